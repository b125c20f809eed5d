import { describe, expect, it } from "@effect/vitest"
import { HOME_SECTION_SIZE, rankLastPlayed, rankMostPlayed, SHIPPED_TUNING } from "@tonearm/core"
import { Effect } from "effect"
import { rebuildUser } from "../src/index.js"
import { DISCOVER_ARTIST_SHARE, homeRediscover, largestGroupShare, sameItems } from "../src/surfaces/diversity.js"
import { atTime, NOW } from "./fixtures.js"
import { albumStats, GENERATED_TRACKS, generatedLibrary, scriptedListener } from "./scriptedListener.js"

/**
 * Issue 28's "done means": the pure engine on a generated 3,000-track library with a scripted listener whose
 * plays lean on one artist (the report's case: 68 of 100 Discover tracks by that artist, For You without its
 * tail, Rediscover repeating Most played, On repeat and Rediscover the same list).
 */
describe("scripted listener on a generated 3,000-track library", () => {
  const library = generatedLibrary(5)
  const plays = scriptedListener(library, 7)

  it.effect("no artist holds more than 10% of the Discover deck; For You keeps its tail; mixes differ", () =>
    Effect.gen(function* () {
      expect(library.catalog.size).toBe(GENERATED_TRACKS)
      const { snapshots } = yield* atTime(
        rebuildUser({ catalog: library.catalog, plays, timeZone: "UTC", tuning: SHIPPED_TUNING }),
        "seed-1",
      )
      const surface = (variant: string) => snapshots.surfaces.find((s) => s.variant === variant)!
      const artistOf = (id: string) => library.catalog.trackArtist[library.catalog.trackIndex.get(id)!]!

      const deck = surface("discover").picks
      expect(deck).toHaveLength(100)
      expect(largestGroupShare(deck, (p) => artistOf(p.track_id))).toBeLessThanOrEqual(DISCOVER_ARTIST_SHARE)

      const forYou = surface("for_you").picks
      expect(forYou.length).toBe(50)
      expect(forYou.filter((p) => p.pick_kind === "fresh").length).toBeGreaterThan(0)

      const lists = snapshots.surfaces.filter((s) => s.picks.length > 0).map((s) => s.picks.map((p) => p.track_id))
      for (let i = 0; i < lists.length; i++)
        for (let j = 0; j < i; j++) expect(sameItems(lists[i]!, lists[j]!)).toBe(false)
    }),
  )

  it("Home's Rediscover does not repeat Most played or Last played while other albums are eligible", () => {
    const stats = albumStats(library, plays)
    const mostPlayed = rankMostPlayed(stats).slice(0, HOME_SECTION_SIZE)
    const lastPlayed = rankLastPlayed(stats).slice(0, HOME_SECTION_SIZE)
    const shown = new Set([...mostPlayed, ...lastPlayed])
    const row = homeRediscover(stats, shown, NOW, HOME_SECTION_SIZE)
    const eligibleElsewhere = stats.filter((s) => s.plays >= 3 && !shown.has(s.id)).length
    expect(eligibleElsewhere).toBeGreaterThan(0)
    expect(row.length).toBeGreaterThan(0)
    // Every eligible album not already shown comes first; shown ones only fill what is left.
    const fresh = Math.min(eligibleElsewhere, HOME_SECTION_SIZE)
    expect(row.slice(0, fresh).every((id) => !shown.has(id))).toBe(true)
    expect(row.filter((id) => !shown.has(id))).toHaveLength(fresh)
  })
})
