import { describe, expect, it } from "@effect/vitest"
import { PickReason, REASON_KINDS, rescoreParts, SHIPPED_TUNING } from "@tonearm/core"
import { Effect, Schema } from "effect"
import {
  DISCOVER_REASONS,
  discoverDeck,
  dominantKind,
  forYou,
  type Pick,
  radio,
  reasonText,
  rebuildSystemSnapshots,
  songsLikeArtist,
} from "../src/index.js"
import { artistId, atTime, gridCatalog, play, surfaceInput } from "./fixtures.js"

const sum = (parts: Record<string, number>) => Object.values(parts).reduce((a, b) => a + b, 0)
const isReason = Schema.is(PickReason)

describe("pick reasons (issue 28 item 3)", () => {
  // 60 artists × 10 tracks; recent plays of artists 0–3, old plays of artists 4–11
  const catalog = gridCatalog(60, 10)
  const plays = [
    ...Array.from({ length: 40 }, (_, i) => play(i % 40, 1 + (i % 20))),
    ...Array.from({ length: 20 }, (_, i) => play(40 + i * 4, 200 + i)),
  ]
  const crossUser = new Map(Array.from({ length: 40 }, (_, i) => [catalog.tracks[300 + i * 5]!.id, 10 + i]))
  const names = new Map(catalog.artistIds.map((id, a) => [id, `Artist ${a}`]))
  const input = surfaceInput(catalog, plays, { extra: { crossUser, artistNames: names } })

  it.effect("every pick of every system surface carries a reason of a known kind with a line", () =>
    Effect.gen(function* () {
      const built = yield* atTime(rebuildSystemSnapshots(input))
      const picks = built.surfaces.flatMap((surface) => surface.picks)
      expect(picks.length).toBeGreaterThan(100)
      for (const pick of picks) {
        expect(isReason(pick.reason)).toBe(true)
        expect(REASON_KINDS).toContain(pick.reason.kind)
        expect(pick.reason.text.length).toBeGreaterThan(5)
      }
    }),
  )

  it.effect("score_parts are the weighted terms of rule 2: they add up to the pick's score", () =>
    Effect.gen(function* () {
      const surface = yield* atTime(forYou(input))
      expect(surface.picks.length).toBeGreaterThan(0)
      for (const pick of surface.picks) {
        expect(Object.keys(pick.reason.score_parts).sort()).toEqual(
          ["context", "like", "novelty", "popularity", "recency", "similarity", "skips", "taste"].sort(),
        )
        expect(sum(pick.reason.score_parts)).toBeCloseTo(pick.score, 3)
        expect(pick.reason.kind).toBe(dominantKind(pick.reason.score_parts))
        expect(pick.reason.score_parts.recency).toBeLessThanOrEqual(0)
      }
    }),
  )

  it.effect("the Discover buckets give their reason kinds: taste, dormant, co_listened, random", () =>
    Effect.gen(function* () {
      const deck = yield* atTime(discoverDeck(input))
      for (const pick of deck.picks) expect(pick.reason.kind).toBe(DISCOVER_REASONS[pick.pick_kind as "random"])
      expect(new Set(deck.picks.map((p) => p.reason.kind))).toEqual(
        new Set(["taste", "dormant", "co_listened", "random"]),
      )
    }),
  )

  it.effect(
    "Songs like <artist>: the seed's own tracks are seed_artist, the rest similar_artist, seed_id the artist",
    () =>
      Effect.gen(function* () {
        const surface = yield* atTime(songsLikeArtist(input, artistId(0)))
        expect(surface.picks.length).toBeGreaterThan(0)
        for (const pick of surface.picks) {
          const own = catalog.tracks[catalog.trackIndex.get(pick.track_id)!]!.artist_id === artistId(0)
          expect(pick.reason.kind).toBe(own ? "seed_artist" : "similar_artist")
          expect(pick.reason.seed_id).toBe(artistId(0))
        }
        expect(surface.picks.some((p) => p.reason.text === "Because you like Artist 0")).toBe(true)
      }),
  )

  it.effect("a radio from a track: seed_track with the track as seed_id", () =>
    Effect.gen(function* () {
      const seed = catalog.tracks[0]!.id
      const picks: ReadonlyArray<Pick> = yield* atTime(radio(input, { kind: "track", id: seed }, { size: 20 }))
      expect(picks.length).toBeGreaterThan(0)
      for (const pick of picks) expect(pick.reason).toMatchObject({ kind: "seed_track", seed_id: seed })
    }),
  )

  it.effect("the tuning page's what-if: rescoring the parts under the same weights gives the score back", () =>
    Effect.gen(function* () {
      const surface = yield* atTime(forYou(input))
      const weights = SHIPPED_TUNING.daily_mix
      for (const pick of surface.picks)
        expect(rescoreParts(pick.reason.score_parts, weights, weights)).toBeCloseTo(pick.score, 3)
      // doubling the taste weight doubles the taste part only; a zero weight hides its feature
      const parts = { taste: 0.5, like: 0.25, recency: -0.1, plays: 3 }
      expect(rescoreParts(parts, weights, { ...weights, taste_weight: weights.taste_weight * 2 })).toBeCloseTo(
        1 + 0.25 - 0.1 + 3,
        12,
      )
      expect(rescoreParts({ novelty: 0 }, { ...weights, novelty_weight: 0 }, weights)).toBe(0)
    }),
  )

  it("without artist names the lines stay generic", () => {
    expect(reasonText("taste", undefined)).toBe("Matches your taste")
    expect(reasonText("taste", "Nina Simone")).toBe("Because you like Nina Simone")
    for (const kind of REASON_KINDS) expect(reasonText(kind, undefined)).not.toContain("undefined")
  })
})
