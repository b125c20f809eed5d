import { describe, expect, it } from "@effect/vitest"
import { releaseLabel } from "../src/index.js"

describe("release label (spec Versioning)", () => {
  it("is v<year>.<month>.<day>, unpadded", () => {
    expect(releaseLabel({ year: 2026, month: 11, day: 22 })).toBe("v2026.11.22")
    expect(releaseLabel({ year: 2027, month: 1, day: 5 })).toBe("v2027.1.5")
  })
})
