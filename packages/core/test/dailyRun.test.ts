import { describe, expect, it } from "@effect/vitest"
import { nextRunAt } from "../src/index.js"

const next = (zone: string, after: string) => nextRunAt(zone, new Date(after)).toISOString()

describe("the daily run at 03:00 in the user's timezone", () => {
  it("is the next 03:00 local, strictly after the given instant", () => {
    expect(next("Europe/Paris", "2026-06-10T00:59:59Z")).toBe("2026-06-10T01:00:00.000Z")
    expect(next("Europe/Paris", "2026-06-10T01:00:00Z")).toBe("2026-06-11T01:00:00.000Z")
    expect(next("America/New_York", "2026-01-15T12:00:00Z")).toBe("2026-01-16T08:00:00.000Z")
    expect(next("Asia/Kolkata", "2026-01-15T12:00:00Z")).toBe("2026-01-15T21:30:00.000Z")
    expect(next("UTC", "2026-01-15T03:00:00Z")).toBe("2026-01-16T03:00:00.000Z")
  })

  it("a 03:00 that does not exist on a spring-forward day runs at the first valid instant after it", () => {
    // Helsinki jumps from 03:00 EET to 04:00 EEST at 01:00 UTC on 29 March 2026.
    expect(next("Europe/Helsinki", "2026-03-28T12:00:00Z")).toBe("2026-03-29T01:00:00.000Z")
    // New York jumps over 02:00–03:00: 03:00 EDT exists.
    expect(next("America/New_York", "2026-03-07T12:00:00Z")).toBe("2026-03-08T07:00:00.000Z")
  })

  it("an ambiguous 03:00 on a fall-back day runs once, at its first occurrence", () => {
    // Helsinki reads 03:00 twice on 25 October 2026: 00:00 UTC (EEST), then 01:00 UTC (EET).
    expect(next("Europe/Helsinki", "2026-10-24T12:00:00Z")).toBe("2026-10-25T00:00:00.000Z")
    expect(next("Europe/Helsinki", "2026-10-25T00:00:00Z")).toBe("2026-10-26T01:00:00.000Z")
    expect(next("Europe/Helsinki", "2026-10-25T00:30:00Z")).toBe("2026-10-26T01:00:00.000Z")
  })

  it("a zone that does not load runs in UTC", () => {
    expect(next("Not/AZone", "2026-01-15T12:00:00Z")).toBe("2026-01-16T03:00:00.000Z")
  })
})
