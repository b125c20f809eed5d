import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { dailyMixes, forYou, passesColdStartGate, rebuildSystemSnapshots } from "../src/index.js"
import { atTime, gridCatalog, play, surfaceInput, trackId } from "./fixtures.js"

/** Issue 28 item 4: before the cold-start gate For You and the mixes are starter mixes, not empty. */
describe("cold start", () => {
  const catalog = gridCatalog(20, 10)
  // Other listeners play the last artists' tracks: the library's popularity.
  const popularity = new Map(Array.from({ length: 30 }, (_, k) => [trackId(170 + k), 1 - k / 60] as const))

  it.effect("before the gate: Daily Mix 1 is a starter mix of likes, first plays and popular tracks", () =>
    Effect.gen(function* () {
      const input = surfaceInput(catalog, [play(0, 1), play(1, 2), play(2, 3)], {
        likes: { tracks: [trackId(55)] },
        extra: { popularity },
      })
      expect(passesColdStartGate(input.history)).toBe(false)
      const mixes = yield* atTime(dailyMixes(input))
      const starter = mixes.find((mix) => mix.variant === "daily_mix:1")!
      expect(starter.starter).toBe(true)
      expect(starter.withheld).toBe(false)
      expect(starter.picks.length).toBeGreaterThanOrEqual(15)
      expect(mixes.every((mix) => mix.starter === true)).toBe(true)
      // With no cluster to build from (a liked and a played artist without tags), the starter mix itself:
      const untagged = gridCatalog(20, 10, ["Rock"], () => ({ genre: null, tags: [] }))
      const bare = surfaceInput(untagged, [play(0, 1), play(1, 2), play(2, 3)], {
        likes: { tracks: [trackId(55)] },
        extra: { popularity },
      })
      const own = (yield* atTime(dailyMixes(bare)))[0]!
      expect(own.variant).toBe("daily_mix:1")
      expect(own.starter).toBe(true)
      const ids = new Set(own.picks.map((p) => p.track_id))
      expect(ids.has(trackId(55))).toBe(true) // the liked track
      expect(ids.has(trackId(0))).toBe(true) // a first play
      expect(own.picks.some((p) => p.reason.kind === "popular")).toBe(true)
      expect(own.picks.find((p) => p.track_id === trackId(55))!.reason.kind).toBe("liked")
      const forYouMix = yield* atTime(forYou(input))
      expect(forYouMix.withheld).toBe(false)
      expect(forYouMix.starter).toBe(true)
      expect(forYouMix.picks.length).toBeGreaterThanOrEqual(15)
    }),
  )

  it.effect("a brand-new listener (no plays, no likes) still gets For You and a starter Daily Mix 1", () =>
    Effect.gen(function* () {
      const { surfaces } = yield* atTime(rebuildSystemSnapshots(surfaceInput(catalog, [], { extra: { popularity } })))
      const forYouMix = surfaces.find((s) => s.variant === "for_you")!
      const mix = surfaces.find((s) => s.variant === "daily_mix:1")!
      expect(forYouMix.picks.length).toBeGreaterThanOrEqual(15)
      expect(mix.starter).toBe(true)
      expect(mix.picks[0]!.reason.kind).toBe("popular")
    }),
  )

  it.effect("past the gate (20 tracks, 5 artists) nothing is a starter mix", () =>
    Effect.gen(function* () {
      const plays = Array.from({ length: 25 }, (_, i) => play((i % 5) * 10 + Math.floor(i / 5), 1 + i))
      const input = surfaceInput(catalog, plays, { extra: { popularity } })
      expect(passesColdStartGate(input.history)).toBe(true)
      const { surfaces } = yield* atTime(rebuildSystemSnapshots(input))
      expect(surfaces.some((s) => s.starter === true)).toBe(false)
    }),
  )
})
