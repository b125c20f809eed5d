import { describe, expect, it } from "@effect/vitest"
import type { SystemVariant } from "@tonearm/core"
import { SHIPPED_TUNING } from "@tonearm/core"
import { Effect, FastCheck as fc, Random } from "effect"
import {
  buildCatalog,
  COLD_START_MIN_ARTISTS,
  COLD_START_MIN_TRACKS,
  clusterArtists,
  contextAt,
  DISCOVER_SLOTS,
  dailyJitter,
  dailyMixes,
  discoverDeck,
  EMPTY_TASTE_PROFILE,
  FOR_YOU_HEAD,
  FOR_YOU_SIZE,
  firstListens,
  forYou,
  interleaveBuckets,
  MIN_MIX_SIZE,
  MIN_SMALL_MIX_SIZE,
  makeScorer,
  minimumMixSize,
  newForYou,
  onRepeat,
  type Pick,
  passesColdStartGate,
  REDISCOVER_COLD_DAYS,
  radio,
  rankRediscover,
  rediscover,
  rediscoverTier,
  rollUpTopScores,
  rotationShuffle,
  scoringBasis,
  songsLikeArtist,
  songsLikeSeeds,
  summarizeHistory,
  withMinimum,
  YOU_MIGHT_LIKE_ALBUMS_PER_ARTIST,
  youMightLike,
  youMightLikeHomeRow,
} from "../src/index.js"
import {
  albumId,
  artistId,
  atTime,
  DAY,
  gridCatalog,
  HOUR,
  libraryTrack,
  NOW,
  play,
  surfaceInput,
  trackId,
} from "./fixtures.js"

describe("rule 6: the Discover deck", () => {
  const SLOTS = [
    { kind: "taste_unheard", slots: 35 },
    { kind: "dormant", slots: 30 },
    { kind: "cross_user", slots: 20 },
    { kind: "random", slots: 15 },
  ] as const

  const counts = (picks: ReadonlyArray<{ kind: string }>) =>
    Object.fromEntries(SLOTS.map(({ kind }) => [kind, picks.filter((p) => p.kind === kind).length]))

  describe("rule 6: the Discover deck interleave", () => {
    it("slots: taste_unheard 35, dormant 30, cross_user 20, random 15", () => {
      expect(DISCOVER_SLOTS).toEqual({ taste_unheard: 35, dormant: 30, cross_user: 20, random: 15 })
      const buckets = SLOTS.map(({ kind, slots }, b) => ({
        kind,
        slots,
        items: Array.from({ length: 100 }, (_, i) => b * 1000 + i),
      }))
      const deck = interleaveBuckets(buckets, 100)
      expect(counts(deck)).toEqual({ taste_unheard: 35, dormant: 30, cross_user: 20, random: 15 })
      expect(deck[0]!.kind).toBe("taste_unheard")
    })

    it("a track in several buckets keeps the pick kind of the bucket that took it", () => {
      const shared = [1, 2, 3]
      const deck = interleaveBuckets(
        [
          { kind: "taste_unheard", slots: 35, items: [...shared, 10] },
          { kind: "dormant", slots: 30, items: [...shared, 20] },
          { kind: "cross_user", slots: 20, items: [3, 30] },
          { kind: "random", slots: 15, items: [2, 40] },
        ],
        100,
      )
      expect(deck.map((p) => p.item).sort((a, b) => a - b)).toEqual([1, 2, 3, 10, 20, 30, 40])
      expect(deck.slice(0, 2)).toEqual([
        { item: 1, kind: "taste_unheard" },
        { item: 2, kind: "dormant" },
      ])
      expect(deck.find((p) => p.item === 3)!.kind).toBe("cross_user")
    })

    it("an empty bucket's slots pass to the others in proportion to their slots", () => {
      const buckets = SLOTS.map(({ kind, slots }, b) => ({
        kind,
        slots,
        items: kind === "dormant" ? [] : Array.from({ length: 100 }, (_, i) => b * 1000 + i),
      }))
      const deck = interleaveBuckets(buckets, 100)
      // 35 : 20 : 15 over 100 tracks = 50 : 28.6 : 21.4
      expect(counts(deck)).toEqual({ taste_unheard: 50, dormant: 0, cross_user: 29, random: 21 })
    })

    const bucketsArb = fc.tuple(
      ...SLOTS.map(() => fc.uniqueArray(fc.integer({ min: 0, max: 300 }), { maxLength: 120 })),
    )

    it.prop(
      "interleave: never repeats a track, fills up to the deck size, gives each bucket at most its items, exact slots when every bucket is deep",
      [bucketsArb, fc.boolean()],
      ([lists, disjoint]) => {
        const buckets = SLOTS.map(({ kind, slots }, b) => ({
          kind,
          slots,
          items: disjoint ? lists[b]!.map((i) => b * 1000 + i) : lists[b]!,
        }))
        const deck = interleaveBuckets(buckets, 100)
        const union = new Set(buckets.flatMap((b) => b.items))
        expect(new Set(deck.map((p) => p.item)).size).toBe(deck.length)
        expect(deck.length).toBe(Math.min(100, union.size))
        for (const bucket of buckets) {
          const taken = deck.filter((p) => p.kind === bucket.kind)
          expect(taken.every((p) => bucket.items.includes(p.item))).toBe(true)
          if (disjoint && buckets.every((b) => b.items.length >= 100)) expect(taken.length).toBe(bucket.slots)
        }
        if (deck.length > 0 && buckets[0]!.items.length > 0) expect(deck[0]!.kind).toBe("taste_unheard")
      },
    )

    it.prop(
      "every prefix of a deep deck follows the slot ratios within one track",
      [fc.integer({ min: 1, max: 100 })],
      ([n]) => {
        const buckets = SLOTS.map(({ kind, slots }, b) => ({
          kind,
          slots,
          items: Array.from({ length: 100 }, (_, i) => b * 1000 + i),
        }))
        const prefix = interleaveBuckets(buckets, 100).slice(0, n)
        for (const { kind, slots } of SLOTS)
          expect(Math.abs(prefix.filter((p) => p.kind === kind).length - (n * slots) / 100)).toBeLessThanOrEqual(1)
      },
    )
  })

  describe("the Discover deck surface", () => {
    // 60 artists × 10 tracks. Recent plays of artists 0–3, plays of artists 4–11 more than 180 days ago.
    const catalog = gridCatalog(60, 10)
    const plays = [
      ...Array.from({ length: 20 }, (_, i) => play(i * 2, 3 + i)),
      ...Array.from({ length: 20 }, (_, i) => play(40 + i * 4, 200 + i)),
    ]
    const crossUser = new Map(Array.from({ length: 40 }, (_, i) => [catalog.tracks[300 + i * 5]!.id, 10 + i]))

    it.effect("fills 100 tracks by the slots, every one unheard", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays, { extra: { crossUser } })
        const deck = yield* atTime(discoverDeck(input))
        expect(deck.withheld).toBe(false)
        expect(deck.picks).toHaveLength(100)
        const kinds = counts(deck.picks.map((p) => ({ kind: p.pick_kind ?? "" })))
        expect(kinds).toEqual({ taste_unheard: 35, dormant: 30, cross_user: 20, random: 15 })
        expect(deck.picks[0]!.pick_kind).toBe("taste_unheard")
        const heard = new Set(plays.map((p) => p.track_id))
        expect(deck.picks.some((p) => heard.has(p.track_id))).toBe(false)
        // dormant picks are from artists last played over 180 days ago (artists 4–11)
        for (const p of deck.picks.filter((p) => p.pick_kind === "dormant")) {
          const artist = catalog.trackArtist[catalog.trackIndex.get(p.track_id)!]!
          expect(artist).toBeGreaterThanOrEqual(4)
          expect(artist).toBeLessThanOrEqual(11)
        }
      }),
    )

    it.effect("an empty taste profile gives an empty taste bucket; its slots pass on", () =>
      Effect.gen(function* () {
        const input = { ...surfaceInput(catalog, plays, { extra: { crossUser } }), profile: EMPTY_TASTE_PROFILE }
        const deck = yield* atTime(discoverDeck(input))
        expect(deck.picks.filter((p) => p.pick_kind === "taste_unheard")).toHaveLength(0)
        expect(deck.picks).toHaveLength(100)
        expect(deck.picks[0]!.pick_kind).toBe("dormant")
      }),
    )

    it.effect("a snoozed artist leaves the deck", () =>
      Effect.gen(function* () {
        const snoozed = new Set(Array.from({ length: 60 }, (_, a) => `mbid-${a}`).filter((_, a) => a % 2 === 0))
        const input = surfaceInput(catalog, plays, { extra: { crossUser, snoozedArtistMbids: snoozed } })
        const deck = yield* atTime(discoverDeck(input))
        for (const p of deck.picks) expect(catalog.trackArtist[catalog.trackIndex.get(p.track_id)!]! % 2).toBe(1)
      }),
    )
  })
})

describe("rule 7: For You", () => {
  describe("rule 7: For You", () => {
    const catalog = gridCatalog(80, 10)
    // a listener of Rock and Jazz (artists ≡ 0 or 1 mod 4)
    const plays = Array.from({ length: 60 }, (_, i) => play(((i * 4) % 80) * 10 + (i % 3) + (i % 2) * 10, 1 + (i % 40)))

    it.effect("a head of the 25 top-scored picks (taste), then a tail of 25 drawn from deeper ranks (fresh)", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays)
        const surface = yield* atTime(forYou(input))
        expect(FOR_YOU_SIZE).toBe(50)
        expect(FOR_YOU_HEAD).toBe(25)
        expect(surface.picks).toHaveLength(50)
        expect(surface.picks.slice(0, 25).every((p) => p.pick_kind === "taste")).toBe(true)
        expect(surface.picks.slice(25).every((p) => p.pick_kind === "fresh")).toBe(true)
        const head = surface.picks.slice(0, 25).map((p) => p.score)
        expect(head).toEqual([...head].sort((a, b) => b - a))
        const lowestHead = Math.min(...head)
        for (const p of surface.picks.slice(25)) expect(p.score).toBeLessThanOrEqual(lowestHead)
        // the head is the top of the whole ranking (two per artist at most)
        const basis = scoringBasis(input)
        const score = makeScorer(input, basis, {
          weights: SHIPPED_TUNING.daily_mix,
          now: NOW,
          context: contextAt(input, NOW),
        })
        const best = Math.max(
          ...Array.from({ length: catalog.size }, (_, t) => (basis.match[t]! > 0 ? score(t) : -Infinity)),
        )
        expect(surface.picks[0]!.score).toBeCloseTo(best, 12)
        const perArtist = new Map<number, number>()
        for (const p of surface.picks) {
          const artist = catalog.trackArtist[catalog.trackIndex.get(p.track_id)!]!
          perArtist.set(artist, (perArtist.get(artist) ?? 0) + 1)
        }
        expect(Math.max(...perArtist.values())).toBeLessThanOrEqual(2)
      }),
    )

    it.effect("the tail changes with the seed, the head does not", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays)
        const a = yield* atTime(forYou(input), "day-1")
        const b = yield* atTime(forYou(input), "day-2")
        expect(a.picks.slice(0, 25)).toEqual(b.picks.slice(0, 25))
        expect(a.picks.slice(25)).not.toEqual(b.picks.slice(25))
      }),
    )

    it.effect("a small pool is all taste, filled from the whole library (the small-pool fallback)", () =>
      Effect.gen(function* () {
        const small = gridCatalog(12, 3, ["Rock", "Jazz", "Techno", "Folk", "Polka", "Ska"])
        const input = surfaceInput(small, [play(0, 1), play(1, 2)])
        const surface = yield* atTime(forYou(input))
        expect(surface.withheld).toBe(false)
        expect(surface.picks.length).toBeGreaterThanOrEqual(15)
        expect(surface.picks.every((p) => p.pick_kind === "taste")).toBe(true)
      }),
    )

    it.effect("below 15 tracks For You is withheld", () =>
      Effect.gen(function* () {
        const tiny = gridCatalog(7, 2)
        const surface = yield* atTime(forYou(surfaceInput(tiny, [play(0, 1)])))
        expect(surface).toEqual({ variant: "for_you", picks: [], withheld: true })
      }),
    )
  })
})

describe("rule 8: You might like, and the cold-start gate", () => {
  describe("rule 8: the You-might-like roll-up", () => {
    it("sums the top 3 track scores per album or artist", () => {
      const scores = [0.9, 0.1, 0.5, 0.7, 0.2, 0.4, -0.3]
      const groups = [0, 0, 0, 0, 1, 1, 2]
      const rolled = rollUpTopScores(
        scores.map((_, i) => i),
        (i) => groups[i]!,
        (i) => scores[i]!,
        3,
      )
      expect(rolled.get(0)).toBeCloseTo(0.9 + 0.7 + 0.5, 12)
      expect(rolled.get(1)).toBeCloseTo(0.6, 12)
      expect(rolled.has(2)).toBe(false) // no positive roll-up
    })

    it("the per-artist album cap is 2", () => {
      expect(YOU_MIGHT_LIKE_ALBUMS_PER_ARTIST).toBe(2)
    })

    it("the jitter is stable within a day and changes across days", () => {
      expect(dailyJitter("user", 20_000, "album-1")).toBe(dailyJitter("user", 20_000, "album-1"))
      expect(dailyJitter("user", 20_000, "album-1")).not.toBe(dailyJitter("user", 20_001, "album-1"))
    })

    it.prop(
      "jitter factors stay within ±10 %, are equal for one day and differ for most ids on another day",
      [fc.uniqueArray(fc.uuid(), { minLength: 10, maxLength: 30 }), fc.integer({ min: 0, max: 40_000 }), fc.string()],
      ([ids, day, salt]) => {
        const today = ids.map((id) => dailyJitter(salt, day, id))
        expect(ids.map((id) => dailyJitter(salt, day, id))).toEqual(today)
        for (const factor of today) expect(Math.abs(factor - 1)).toBeLessThanOrEqual(0.1)
        const tomorrow = ids.map((id) => dailyJitter(salt, day + 1, id))
        expect(tomorrow.filter((f, i) => f !== today[i]).length).toBeGreaterThan(ids.length / 2)
      },
    )

    // 30 artists, 3 albums of 4 tracks each; the user plays one track of each artist's first album.
    const catalog = gridCatalog(30, 12, ["Rock", "Jazz", "Techno"], (artist, n) => ({
      album: artist * 10 + Math.floor((n % 12) / 4),
    }))
    const plays = Array.from({ length: 30 }, (_, a) => play(a * 12, 2 + (a % 20)))

    it.effect("ranks albums and artists from unheard tracks, at most 2 albums per artist", () =>
      Effect.gen(function* () {
        const rows = yield* atTime(youMightLike(surfaceInput(catalog, plays, { extra: { jitterSalt: "u1" } })))
        expect(rows.gated).toBe(false)
        expect(rows.albums.length).toBeGreaterThan(10)
        const perArtist = new Map<number, number>()
        for (const album of rows.albums) {
          const artist = catalog.albumArtist[catalog.albumIndex.get(album.id)!]!
          perArtist.set(artist, (perArtist.get(artist) ?? 0) + 1)
        }
        expect(Math.max(...perArtist.values())).toBeLessThanOrEqual(2)
        expect(rows.albums.map((a) => a.score)).toEqual([...rows.albums.map((a) => a.score)].sort((a, b) => b - a))
      }),
    )

    it.effect("the order holds all day and rotates the next day", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays, { extra: { jitterSalt: "u1" } })
        const morning = yield* atTime(youMightLike(input), "a", NOW - 10 * HOUR)
        const evening = yield* atTime(youMightLike(input), "b", NOW + 10 * HOUR)
        const tomorrow = yield* atTime(youMightLike(input), "a", NOW + DAY)
        expect(evening.albums.map((a) => a.id)).toEqual(morning.albums.map((a) => a.id))
        expect(tomorrow.albums.map((a) => a.id)).not.toEqual(morning.albums.map((a) => a.id))
      }),
    )

    it.effect.prop(
      "whatever the library, no artist has more than 2 albums in the row",
      [
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 30 })), {
          minLength: 30,
          maxLength: 80,
        }),
      ],
      ([specs]) =>
        Effect.gen(function* () {
          // albums mix track artists (compilations); the cap is on the album artist (its most frequent one)
          const rows = specs.map(([artist, album], n) =>
            libraryTrack(n, { artist: n < 30 ? n % 6 : artist, album: 1000 + album }),
          )
          const lib = buildCatalog(rows)
          const input = surfaceInput(
            lib,
            Array.from({ length: 25 }, (_, n) => play(n, 1 + n)),
          )
          const result = yield* atTime(youMightLike(input))
          const perArtist = new Map<number, number>()
          for (const album of result.albums) {
            const artist = lib.albumArtist[lib.albumIndex.get(album.id)!]!
            perArtist.set(artist, (perArtist.get(artist) ?? 0) + 1)
          }
          for (const count of perArtist.values()) expect(count).toBeLessThanOrEqual(2)
        }),
      { fastCheck: { numRuns: 40 } },
    )
  })

  describe("the You-might-like cold-start gate", () => {
    const catalog = gridCatalog(10, 5)
    const gate = (plays: ReturnType<typeof play>[]) =>
      passesColdStartGate(summarizeHistory({ catalog, plays, timeZone: "UTC" }))

    it("needs at least 20 distinct unskipped tracks and at least 5 distinct artists", () => {
      expect(COLD_START_MIN_TRACKS).toBe(20)
      expect(COLD_START_MIN_ARTISTS).toBe(5)
      const twentyOverFive = Array.from({ length: 20 }, (_, i) => play(i, 1)) // tracks 0–19: artists 0–3
      expect(gate(twentyOverFive)).toBe(false)
      const twentyOverFiveArtists = Array.from({ length: 20 }, (_, i) => play(i + (i >= 16 ? 4 : 0), 1)) // artists 0–4
      expect(gate(twentyOverFiveArtists)).toBe(true)
      const nineteen = twentyOverFiveArtists.slice(0, 19)
      expect(gate([...nineteen, play(0, 2), play(1, 3)])).toBe(false) // repeats do not count
      expect(gate([...nineteen, play(30, 1, { skipped: true })])).toBe(false) // skips do not count
    })

    it.effect("blocked: both rows stay empty", () =>
      Effect.gen(function* () {
        const rows = yield* atTime(youMightLike(surfaceInput(catalog, [play(0, 1)])))
        expect(rows).toEqual({ albums: [], artists: [], gated: true })
      }),
    )
  })

  describe("home section rule", () => {
    it("de-duplicates against most played, rediscover and last played, then trims to 10", () => {
      const row = Array.from({ length: 15 }, (_, i) => `a${i}`)
      expect(youMightLikeHomeRow(row, ["a0", "a3", "a4"])).toEqual([
        "a1",
        "a2",
        "a5",
        "a6",
        "a7",
        "a8",
        "a9",
        "a10",
        "a11",
        "a12",
      ])
      expect(youMightLikeHomeRow([], ["a0"])).toEqual([])
    })
  })
})

describe("limits and eligibility ladders", () => {
  const picks = (n: number): Array<Pick> =>
    Array.from({ length: n }, (_, i) => ({
      track_id: trackId(i),
      pick_kind: "tier1",
      score: 1,
      reason: { kind: "new_arrival", text: "New in the library", score_parts: {} },
    }))

  describe("minimum mix size", () => {
    it("15 tracks, or 5 for New for you and First listens; the five discovery mixes only", () => {
      expect(MIN_MIX_SIZE).toBe(15)
      expect(MIN_SMALL_MIX_SIZE).toBe(5)
      expect(minimumMixSize("for_you")).toBe(15)
      expect(minimumMixSize("discover")).toBe(15)
      expect(minimumMixSize(`songs_like_artist:${artistId(1)}`)).toBe(15)
      expect(minimumMixSize("new_for_you")).toBe(5)
      expect(minimumMixSize("first_listens")).toBe(5)
      expect(minimumMixSize("rediscover")).toBe(0)
      expect(minimumMixSize("daily_mix:1")).toBe(0)
    })

    it("14 tracks are withheld, 15 are kept; 4 vs 5 for New for you", () => {
      expect(withMinimum("for_you", picks(14))).toEqual({ variant: "for_you", picks: [], withheld: true })
      expect(withMinimum("for_you", picks(15)).picks).toHaveLength(15)
      expect(withMinimum("new_for_you", picks(4)).withheld).toBe(true)
      expect(withMinimum("new_for_you", picks(5)).withheld).toBe(false)
    })

    it.prop(
      "a mix is withheld exactly when it is below its minimum, and then has no tracks",
      [
        fc.constantFrom<SystemVariant>(
          "for_you",
          "discover",
          "new_for_you",
          "first_listens",
          "rediscover",
          "on_repeat",
        ),
        fc.integer({ min: 0, max: 40 }),
      ],
      ([variant, n]) => {
        const surface = withMinimum(variant, picks(n))
        expect(surface.withheld).toBe(n < minimumMixSize(variant))
        expect(surface.picks).toHaveLength(surface.withheld ? 0 : n)
      },
    )
  })

  describe("Rediscover", () => {
    const catalog = gridCatalog(10, 5)
    const times = (track: number, count: number, daysAgo: number) =>
      Array.from({ length: count }, (_, i) => play(track, daysAgo + i))

    it.effect(
      "eligible with at least 3 unskipped plays; cold for 6 months first, then 5+ plays, then the play count",
      () =>
        Effect.gen(function* () {
          const plays = [
            ...times(0, 3, 200), // cold, 3 plays
            ...times(1, 7, 190), // cold, 7 plays
            ...times(2, 6, 10), // warm, 6 plays
            ...times(3, 4, 10), // warm, 4 plays
            ...times(4, 3, 5), // warm, 3 plays
            ...times(5, 2, 300), // 2 plays: not eligible
            ...times(6, 2, 5),
            play(6, 1, { skipped: true }), // 2 unskipped + a skip: not eligible
          ]
          expect(REDISCOVER_COLD_DAYS).toBe(183)
          const surface = yield* atTime(rediscover(surfaceInput(catalog, plays)))
          expect(surface.picks.map((p) => [p.track_id, p.pick_kind])).toEqual([
            [trackId(1), "tier1"],
            [trackId(0), "tier1"],
            [trackId(2), "tier2"],
            [trackId(3), "tier3"],
            [trackId(4), "tier3"],
          ])
        }),
    )
  })

  describe("Rediscover for albums and artists (home sections)", () => {
    it("applies the same eligibility and ordering to any entity", () => {
      const stats = [
        { id: "warm-6", plays: 6, lastPlayedMs: NOW - 10 * DAY },
        { id: "cold-3", plays: 3, lastPlayedMs: NOW - 200 * DAY },
        { id: "two", plays: 2, lastPlayedMs: NOW - 400 * DAY },
        { id: "warm-3", plays: 3, lastPlayedMs: NOW - 1 * DAY },
        { id: "cold-9", plays: 9, lastPlayedMs: NOW - 183 * DAY },
        { id: "warm-4", plays: 4, lastPlayedMs: NOW - 5 * DAY },
      ]
      expect(rankRediscover(stats, NOW)).toEqual(["cold-9", "cold-3", "warm-6", "warm-4", "warm-3"])
      expect(rediscoverTier({ id: "x", plays: 5, lastPlayedMs: NOW - 182 * DAY }, NOW)).toBe("tier2")
    })
  })

  describe("On repeat", () => {
    it.effect("ladder: ≥3 plays in 14 days, ≥3 in 30, ≥2 in 30; skips and older plays do not count", () =>
      Effect.gen(function* () {
        const catalog = gridCatalog(5, 5)
        const plays = [
          ...[1, 2, 3, 4].map((d) => play(0, d)),
          ...[1, 20, 25].map((d) => play(1, d)),
          ...[3, 28].map((d) => play(2, d)),
          ...[1, 2].map((d) => play(3, d)),
          play(3, 3, { skipped: true }),
          ...[40, 50, 60].map((d) => play(4, d)),
        ]
        const surface = yield* atTime(onRepeat(surfaceInput(catalog, plays)))
        expect(surface.picks.map((p) => [p.track_id, p.pick_kind])).toEqual([
          [trackId(0), "tier1"],
          [trackId(1), "tier2"],
          [trackId(3), "tier3"],
          [trackId(2), "tier3"],
        ])
      }),
    )
  })

  describe("New for you", () => {
    it.effect("unheard tracks added lately, ladder 14 / 30 / 90 days; withheld under 5", () =>
      Effect.gen(function* () {
        const rows = [
          ...Array.from({ length: 4 }, (_, i) => libraryTrack(i, { artist: i, addedDaysAgo: 3 })),
          ...Array.from({ length: 4 }, (_, i) => libraryTrack(10 + i, { artist: 10 + i, addedDaysAgo: 20 })),
          ...Array.from({ length: 4 }, (_, i) => libraryTrack(20 + i, { artist: 20 + i, addedDaysAgo: 60 })),
          libraryTrack(30, { artist: 30, addedDaysAgo: 120 }),
          libraryTrack(31, { artist: 31, addedDaysAgo: 2 }),
        ]
        const catalog = buildCatalog(rows)
        const surface = yield* atTime(newForYou(surfaceInput(catalog, [play(31, 1)])))
        const kinds = surface.picks.map((p) => p.pick_kind)
        expect(kinds).toEqual([...Array(4).fill("tier1"), ...Array(4).fill("tier2"), ...Array(4).fill("tier3")])
        expect(surface.picks.some((p) => p.track_id === trackId(30) || p.track_id === trackId(31))).toBe(false)
        const few = buildCatalog(rows.slice(0, 4))
        expect((yield* atTime(newForYou(surfaceInput(few, [])))).withheld).toBe(true)
      }),
    )
  })

  describe("First listens", () => {
    it.effect("only artists the user never played, at most two tracks each, best taste match first", () =>
      Effect.gen(function* () {
        const catalog = gridCatalog(12, 4, ["Rock", "Jazz", "Techno"])
        const plays = [play(0, 1), play(4, 2), play(8, 3, { skipped: true })]
        const surface = yield* atTime(firstListens(surfaceInput(catalog, plays)))
        const artists = surface.picks.map((p) => catalog.trackArtist[catalog.trackIndex.get(p.track_id)!]!)
        expect(artists.some((a) => a <= 2)).toBe(false)
        const perArtist = new Map<number, number>()
        for (const a of artists) perArtist.set(a, (perArtist.get(a) ?? 0) + 1)
        expect(Math.max(...perArtist.values())).toBe(2)
        // Rock and Jazz (the genres heard without skipping) rank first
        expect(surface.picks[0]!.pick_kind).not.toBe("tier3")
        expect(["Rock", "Jazz"]).toContain(catalog.tracks[catalog.trackIndex.get(surface.picks[0]!.track_id)!]!.genre)
      }),
    )
  })

  describe("daily mixes", () => {
    // 24 artists in four genres; the user plays 16 of them (four per genre).
    const catalog = gridCatalog(24, 10)
    const plays = Array.from({ length: 16 }, (_, a) => [play(a * 10, 1 + a), play(a * 10 + 1, 2 + a)]).flat()

    it.effect("up to 6 coherent clusters: one mix per genre, tiered, no track twice", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays)
        const clusters = clusterArtists(input)
        expect(clusters.length).toBe(4)
        for (const cluster of clusters) expect(new Set(cluster.artists.map((a) => a % 4)).size).toBe(1)
        const mixes = yield* atTime(dailyMixes(input))
        expect(mixes.map((m) => m.variant)).toEqual(["daily_mix:1", "daily_mix:2", "daily_mix:3", "daily_mix:4"])
        const all = mixes.flatMap((m) => m.picks.map((p) => p.track_id))
        expect(new Set(all).size).toBe(all.length)
        for (const mix of mixes) {
          const genres = new Set(mix.picks.map((p) => catalog.tracks[catalog.trackIndex.get(p.track_id)!]!.genre))
          expect(genres.size).toBe(1)
          expect(new Set(mix.picks.map((p) => p.pick_kind))).toEqual(new Set(["tier1", "tier2", "tier3"]))
        }
      }),
    )

    it.effect("never more than six mixes", () =>
      Effect.gen(function* () {
        const wide = gridCatalog(40, 6, ["A", "B", "C", "D", "E", "F", "G", "H"])
        const input = surfaceInput(
          wide,
          Array.from({ length: 40 }, (_, a) => play(a * 6, 1 + (a % 30))),
        )
        expect(clusterArtists(input).length).toBe(6)
        expect((yield* atTime(dailyMixes(input))).length).toBeLessThanOrEqual(6)
      }),
    )

    it.effect("daily mixes are device-agnostic: the latest device does not change them", () =>
      Effect.gen(function* () {
        const onMobile = surfaceInput(catalog, [...plays, play(0, 0.01, { device: "mobile" })])
        const inCar = surfaceInput(catalog, [...plays, play(0, 0.01, { device: "car" })])
        expect(yield* atTime(dailyMixes(onMobile))).toEqual(yield* atTime(dailyMixes(inCar)))
      }),
    )
  })
})

describe("seeded surfaces", () => {
  // 40 artists × 8 tracks in four genres; similar artists from a provider for artist 0.
  const catalog = gridCatalog(40, 8)
  const plays = [...[0, 1, 2, 3].map((k) => play(k, 1 + k)), ...[8, 9].map((k) => play(k, 3))]
  const similarArtists = new Map([
    [
      artistId(0),
      [
        { artist_id: artistId(4), score: 0.9 },
        { artist_id: artistId(1), score: 0.7 },
      ],
    ],
  ])

  describe("Songs like <artist>", () => {
    it.effect("the seed artist and its closest artists are tier1, looser neighbours tier2/tier3", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays, { extra: { similarArtists } })
        const surface = yield* atTime(songsLikeArtist(input, artistId(0)))
        expect(surface.variant).toBe(`songs_like_artist:${artistId(0)}`)
        expect(surface.withheld).toBe(false)
        const tierOf = new Map(
          surface.picks.map((p) => [catalog.trackArtist[catalog.trackIndex.get(p.track_id)!]!, p.pick_kind]),
        )
        expect(tierOf.get(0)).toBe("tier1") // the seed
        expect(tierOf.get(4)).toBe("tier1") // provider 0.9 (and the same genre)
        // artist 1 is Jazz: only the provider's 0.7 makes it similar
        expect(tierOf.get(1)).toBe("tier1")
        expect(tierOf.has(2)).toBe(false) // Techno, unrelated
      }),
    )

    it.effect("an artist outside the library gives a withheld mix", () =>
      Effect.gen(function* () {
        const surface = yield* atTime(songsLikeArtist(surfaceInput(catalog, plays), artistId(999)))
        expect(surface.withheld).toBe(true)
      }),
    )

    it("the daily rebuild seeds Songs like from the user's strongest artists", () => {
      expect(songsLikeSeeds(surfaceInput(catalog, plays))).toEqual([artistId(0), artistId(1)])
    })
  })

  describe("seeded radio", () => {
    it.effect("a track seed opens its own radio; radio picks carry no pick kind; size is honoured", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays, { extra: { similarArtists } })
        const tracks = yield* atTime(radio(input, { kind: "track", id: trackId(0) }, { size: 20 }))
        expect(tracks).toHaveLength(20)
        expect(tracks[0]!.track_id).toBe(trackId(0))
        expect(tracks.every((t) => t.pick_kind === null)).toBe(true)
        expect(new Set(tracks.map((t) => t.track_id)).size).toBe(20)
      }),
    )

    it.effect("artist, album and genre seeds; an unknown seed fails with RadioSeedNotFound", () =>
      Effect.gen(function* () {
        const input = surfaceInput(catalog, plays)
        const byGenre = yield* atTime(radio(input, { kind: "genre", value: "Techno" }, { size: 10 }))
        for (const t of byGenre) expect(catalog.tracks[catalog.trackIndex.get(t.track_id)!]!.genre).toBe("Techno")
        expect((yield* atTime(radio(input, { kind: "album", id: albumId(0) }, { size: 10 }))).length).toBe(10)
        expect((yield* atTime(radio(input, { kind: "artist", id: artistId(5) }, { size: 10 }))).length).toBe(10)
        const error = yield* Effect.flip(atTime(radio(input, { kind: "genre", value: "Gabber" })))
        expect(error._tag).toBe("RadioSeedNotFound")
      }),
    )

    it.effect("rule 4: the radio's context narrows to the device class of the latest play", () =>
      Effect.gen(function* () {
        // Artist 4 is played on the car stereo at this hour of weekdays, artist 8 on mobile at the same hour.
        const hourly = (track: number, device: string) =>
          [7, 14, 21, 28].map((d) => play(track, 0, { at: NOW - d * DAY, device }))
        const base = [...hourly(32, "car"), ...hourly(64, "mobile"), ...hourly(65, "mobile"), play(2, 10)]
        const scoreOf = (device: string) =>
          Effect.gen(function* () {
            const input = surfaceInput(catalog, [...base, play(3, 0.001, { device })])
            const tracks = yield* atTime(radio(input, { kind: "genre", value: "Rock" }, { size: 200 }))
            return (artist: number) =>
              tracks.find((t) => catalog.trackArtist[catalog.trackIndex.get(t.track_id)!] === artist)!.score
          })
        const inCar = yield* scoreOf("car")
        const onMobile = yield* scoreOf("mobile")
        expect(inCar(4)).toBeGreaterThan(onMobile(4))
        expect(inCar(8)).toBeLessThan(onMobile(8))
      }),
    )
  })
})

describe("rotation", () => {
  const snapshot = Array.from({ length: 10 }, (_, i) => ({ track_id: trackId(i), pick_kind: null }))

  describe("rotation shuffle", () => {
    it.effect("not yet heard this rotation (shuffled), then heard (shuffled)", () =>
      Effect.gen(function* () {
        const heard = new Set([trackId(0), trackId(4), trackId(7)])
        const { tracks, reset } = yield* rotationShuffle(snapshot, heard).pipe(Effect.withRandom(Random.make(3)))
        expect(reset).toBe(false)
        expect(tracks.slice(0, 7).every((t) => !heard.has(t.track_id))).toBe(true)
        expect(new Set(tracks.slice(7).map((t) => t.track_id))).toEqual(heard)
      }),
    )

    it.effect("when every snapshot track was heard, the rotation resets and the full list is reshuffled", () =>
      Effect.gen(function* () {
        const all = new Set(snapshot.map((t) => t.track_id))
        const { tracks, reset } = yield* rotationShuffle(snapshot, all).pipe(Effect.withRandom(Random.make(3)))
        expect(reset).toBe(true)
        expect(new Set(tracks.map((t) => t.track_id))).toEqual(all)
      }),
    )

    it.effect("an empty snapshot stays empty", () =>
      Effect.gen(function* () {
        expect(yield* rotationShuffle([], new Set())).toEqual({ tracks: [], reset: false })
      }),
    )
  })
})
