import { describe, expect, it } from "@effect/vitest"
import { ACTIVE_USER_DAYS, isActiveUser } from "../src/index.js"

const DAY = 86_400_000
const NOW = Date.parse("2026-06-10T03:00:00Z")

describe("active user for the daily run (issue 28)", () => {
  it("active: the latest play, sign-in, API call or registration at most 30 days old", () => {
    expect(ACTIVE_USER_DAYS).toBe(30)
    expect(isActiveUser(NOW, NOW)).toBe(true)
    expect(isActiveUser(NOW - 30 * DAY, NOW)).toBe(true)
    expect(isActiveUser(NOW - 29 * DAY - 1, NOW)).toBe(true)
  })

  it("inactive: nothing for more than 30 days, or no activity at all", () => {
    expect(isActiveUser(NOW - 30 * DAY - 1, NOW)).toBe(false)
    expect(isActiveUser(null, NOW)).toBe(false)
  })
})
