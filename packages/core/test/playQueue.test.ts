import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { resumePoint } from "../src/index.js"

const stored = (trackIds: Array<string>, currentIndex: number | null, positionMs = 5000) => ({
  trackIds,
  currentId: currentIndex === null ? null : (trackIds[currentIndex] ?? null),
  currentIndex,
  positionMs,
})

describe("resumePoint: where a saved queue resumes once gone tracks are left out", () => {
  it("keeps the exact entry of a song queued twice, and its position", () => {
    expect(resumePoint(stored(["a", "b", "a"], 2), new Set(["a", "b"]))).toEqual({
      trackIds: ["a", "b", "a"],
      currentIndex: 2,
      positionMs: 5000,
    })
  })
  it("a Subsonic save (the song only) resumes at the song's first entry", () => {
    const subsonic = { trackIds: ["a", "b", "a"], currentId: "a", currentIndex: null, positionMs: 10 }
    expect(resumePoint(subsonic, new Set(["a", "b"])).currentIndex).toBe(0)
  })
  it("a gone current track resumes at the next kept entry from its start, or the last when none follows", () => {
    expect(resumePoint(stored(["a", "x", "b"], 1), new Set(["a", "b"]))).toEqual({
      trackIds: ["a", "b"],
      currentIndex: 1,
      positionMs: 0,
    })
    expect(resumePoint(stored(["a", "b", "x"], 2), new Set(["a", "b"]))).toEqual({
      trackIds: ["a", "b"],
      currentIndex: 1,
      positionMs: 0,
    })
  })
  it("the current entry always names a kept track, and the kept tracks keep their order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d"), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        fc.subarray(["a", "b", "c", "d"]),
        (ids, at, kept) => {
          const known = new Set(kept)
          const result = resumePoint(stored(ids, at % ids.length), known)
          expect(result.trackIds).toEqual(ids.filter((id) => known.has(id)))
          if (result.trackIds.length === 0) expect(result.currentIndex).toBeNull()
          else expect(result.currentIndex).toBeGreaterThanOrEqual(0)
          if (result.currentIndex !== null) expect(result.currentIndex).toBeLessThan(result.trackIds.length)
        },
      ),
    )
  })
})
