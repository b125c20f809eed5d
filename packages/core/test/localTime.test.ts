import { describe, expect, it } from "@effect/vitest"
import { localDayToIsoDate, makeLocalTime } from "../src/listening/localTime.js"

describe("local time in the user's zone", () => {
  it("reads hour, ISO weekday and local day in the zone", () => {
    const berlin = makeLocalTime("Europe/Berlin")
    // 2024-06-02T21:30:00Z is Sunday 23:30 in Berlin (UTC+2 in summer).
    const t = berlin(Date.UTC(2024, 5, 2, 21, 30))
    expect(t.hour).toBe(23)
    expect(t.isoWeekday).toBe(7)
    expect(localDayToIsoDate(t.localDay)).toBe("2024-06-02")
    // 22:30Z is already Monday 00:30 there.
    const next = berlin(Date.UTC(2024, 5, 2, 22, 30))
    expect(next.hour).toBe(0)
    expect(next.isoWeekday).toBe(1)
    expect(localDayToIsoDate(next.localDay)).toBe("2024-06-03")
  })

  it("follows daylight-saving changes", () => {
    const newYork = makeLocalTime("America/New_York")
    expect(newYork(Date.UTC(2024, 0, 15, 12)).hour).toBe(7) // EST, UTC−5
    expect(newYork(Date.UTC(2024, 6, 15, 12)).hour).toBe(8) // EDT, UTC−4
    // 2024-03-10 07:00Z is the switch: 06:59Z is 01:59 EST, 07:00Z is 03:00 EDT.
    expect(newYork(Date.UTC(2024, 2, 10, 6, 59)).hour).toBe(1)
    expect(newYork(Date.UTC(2024, 2, 10, 7, 0)).hour).toBe(3)
  })

  it("handles half-hour zones whose switch falls inside a UTC hour", () => {
    const stJohns = makeLocalTime("America/St_Johns")
    // 2024-03-10 05:30Z: 02:00 NST becomes 03:00 NDT (UTC−2:30).
    expect(stJohns(Date.UTC(2024, 2, 10, 5, 29)).hour).toBe(1)
    expect(stJohns(Date.UTC(2024, 2, 10, 5, 31)).hour).toBe(3)
  })

  it("reads an unknown zone as UTC", () => {
    expect(makeLocalTime("Not/AZone")(Date.UTC(2024, 0, 1, 9)).hour).toBe(9)
  })
})
