import { describe, expect, it } from "@effect/vitest"
import { makeLocalTime, SHIPPED_TUNING } from "@tonearm/core"
import { Effect, FastCheck as fc } from "effect"
import {
  activeSnoozes,
  affinityFromCounts,
  buildCatalog,
  CONTEXT_PSEUDO_COUNT,
  contextAffinities,
  contextAt,
  contextCellOf,
  daypartOfHour,
  describeCell,
  discoverSuggestions,
  type EnrichedTag,
  featuresOf,
  makeScorer,
  noveltyOf,
  rankSuggestions,
  recencyOf,
  type ScoreFeatures,
  type SuggestionCandidate,
  scoringBasis,
  skipRateOf,
  snoozedUntil,
  strongestTag,
  suggestionPool,
  suggestionScore,
  summarizeHistory,
  type TasteProfile,
  tagOverlap,
  tasteMatchCatalog,
  weightedScore,
} from "../src/index.js"
import { albumId, artistId, DAY, gridCatalog, HOUR, libraryTrack, NOW, play, surfaceInput } from "./fixtures.js"

describe("rule 2", () => {
  const zero: ScoreFeatures = {
    similarity: 0,
    tasteMatch: 0,
    contextAffinity: 0,
    like: 0,
    novelty: 0,
    popularity: 0,
    recency: 0,
    skipRate: 0,
  }

  describe("rule 2: the weighted score", () => {
    it("the taste term is taste_weight × match, added to the score (daily_mix 1.5 × 0.4 = 0.6)", () => {
      expect(weightedScore(SHIPPED_TUNING.daily_mix, { ...zero, tasteMatch: 0.4 })).toBeCloseTo(0.6, 12)
      expect(weightedScore(SHIPPED_TUNING.radio, { ...zero, tasteMatch: 0.4 })).toBeCloseTo(0.4, 12)
    })

    it("uses all eight weights: six bonuses and two penalties", () => {
      const w = {
        similarity_weight: 1,
        taste_weight: 2,
        context_time_weight: 3,
        like_weight: 4,
        novelty_weight: 0.5,
        popularity_weight: 0.25,
        recency_penalty_weight: 2,
        skip_penalty_weight: 4,
      }
      const f = {
        similarity: 0.5,
        tasteMatch: 0.2,
        contextAffinity: -0.1,
        like: 1,
        novelty: 0.5,
        popularity: 0.4,
        recency: 0.25,
        skipRate: 0.1,
      }
      expect(weightedScore(w, f)).toBeCloseTo(0.5 + 0.4 - 0.3 + 4 + 0.25 + 0.1 - 0.5 - 0.4, 12)
    })

    it("feature scales: novelty 1/(1+plays), skip rate skips/(plays+skips+1), recency linear to the horizon", () => {
      expect(noveltyOf(0)).toBe(1)
      expect(noveltyOf(3)).toBe(0.25)
      expect(skipRateOf(2, 1)).toBe(0.25)
      expect(recencyOf(NOW - 6 * HOUR, NOW, 24 * HOUR)).toBeCloseTo(0.75, 12)
      expect(recencyOf(NOW - 30 * HOUR, NOW, 24 * HOUR)).toBe(0)
      expect(recencyOf(Number.NEGATIVE_INFINITY, NOW, 24 * HOUR)).toBe(0)
    })

    it("the surfaces' scorer is exactly weightedScore of the features", () => {
      const catalog = gridCatalog(6, 5)
      const input = surfaceInput(catalog, [play(0, 0.1), play(1, 2, { skipped: true }), play(6, 3), play(6, 1)], {
        likes: { albums: [albumId(10)] },
        extra: { popularity: new Map([[catalog.tracks[12]!.id, 0.6]]) },
      })
      const basis = scoringBasis(input)
      const context = Float64Array.from({ length: catalog.artistIds.length }, (_, a) => (a - 2) / 10)
      const options = { weights: SHIPPED_TUNING.radio, now: NOW, context, similarity: (t: number) => t / 30 }
      const score = makeScorer(input, basis, options)
      for (let t = 0; t < catalog.size; t++)
        expect(score(t)).toBeCloseTo(weightedScore(SHIPPED_TUNING.radio, featuresOf(input, basis, t, options)), 12)
      expect(featuresOf(input, basis, 12, options)).toMatchObject({ like: 0, popularity: 0.6, novelty: 1 })
      expect(featuresOf(input, basis, 7, options).like).toBe(0.5) // album 10 (artist 1's first five) is liked
      expect(featuresOf(input, basis, 6, options).novelty).toBeCloseTo(1 / 3, 12)
      expect(featuresOf(input, basis, 0, options).recency).toBeCloseTo(1 - (0.1 * DAY) / (24 * HOUR), 12)
    })

    it("the near-whole-library fallback pool scores without the mood lookup", () => {
      const catalog = gridCatalog(2, 2, ["Rock"], () => ({ tags: [{ name: "chill", weight: 1 }] }))
      const input = surfaceInput(catalog, [play(0, 0)])
      const basis = scoringBasis(input)
      expect(basis.match[3]).toBeCloseTo(tasteMatchCatalog(input.profile, catalog)[3]!, 12)
      expect(basis.fallbackMatch()[3]).toBeCloseTo(
        tasteMatchCatalog(input.profile, catalog, { skipMood: true })[3]!,
        12,
      )
      expect(basis.match[3]! - basis.fallbackMatch()[3]!).toBeGreaterThan(0)
    })
  })
})

describe("rules 3 and 4", () => {
  describe("rule 3: dayparts and cells", () => {
    it("night [22,5), morning [5,12), afternoon [12,17), evening [17,22)", () => {
      const parts = Array.from({ length: 24 }, (_, hour) => daypartOfHour(hour))
      expect(parts.map((p) => p[0]).join("")).toBe("nnnnnmmmmmmmaaaaaeeeeenn")
      expect(daypartOfHour(4)).toBe("night")
      expect(daypartOfHour(5)).toBe("morning")
      expect(daypartOfHour(11)).toBe("morning")
      expect(daypartOfHour(12)).toBe("afternoon")
      expect(daypartOfHour(17)).toBe("evening")
      expect(daypartOfHour(22)).toBe("night")
    })

    it("the cell is daypart × weekday-or-weekend in the user's time zone (luxon)", () => {
      // Friday 2025-06-13 23:30 UTC is Saturday 08:30 in Tokyo and Friday 19:30 in New York.
      const at = Date.UTC(2025, 5, 13, 23, 30)
      expect(describeCell(contextCellOf(makeLocalTime("Asia/Tokyo")(at)))).toEqual({
        daypart: "morning",
        weekend: true,
      })
      expect(describeCell(contextCellOf(makeLocalTime("America/New_York")(at)))).toEqual({
        daypart: "evening",
        weekend: false,
      })
      expect(describeCell(contextCellOf(makeLocalTime("UTC")(at)))).toEqual({ daypart: "night", weekend: false })
    })
  })

  describe("rule 3: context affinity", () => {
    it("is the shrunk cell share minus the baseline: 8 of 10 plays in a cell whose baseline is 0.25 → 0.3667", () => {
      expect(CONTEXT_PSEUDO_COUNT).toBe(5)
      expect(affinityFromCounts(8, 10, 0.25)).toBeCloseTo((8 + 5 * 0.25) / (10 + 5) - 0.25, 12)
      expect(affinityFromCounts(8, 10, 0.25)).toBeCloseTo(0.36667, 4)
    })

    it("an artist with one play shrinks hard toward the baseline; an unknown artist is 0", () => {
      expect(affinityFromCounts(1, 1, 0.25)).toBeCloseTo((1 + 1.25) / 6 - 0.25, 12)
      expect(affinityFromCounts(0, 0, 0.25)).toBe(0)
    })

    it.prop(
      "stays within [-1, 1] and is 0 when the artist's share equals the baseline",
      [fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true })],
      ([a, b, baseline]) => {
        const plays = Math.max(a, b)
        const inCell = Math.min(a, b)
        const value = affinityFromCounts(inCell, plays, baseline)
        expect(value).toBeGreaterThanOrEqual(-1)
        expect(value).toBeLessThanOrEqual(1)
        if (plays > 0) expect(affinityFromCounts(baseline * plays, plays, baseline)).toBeCloseTo(0, 9)
      },
    )

    // Monday 2025-06-09 08:00 UTC: a weekday morning in UTC.
    const now = Date.UTC(2025, 5, 9, 8)
    const catalog = buildCatalog([
      libraryTrack(0, { artist: 0 }),
      libraryTrack(1, { artist: 1 }),
      libraryTrack(2, { artist: 2 }),
    ])
    const morning = (weeksAgo: number) => now - weeksAgo * 7 * DAY // Mondays at 08:00
    const evening = (weeksAgo: number) => now - weeksAgo * 7 * DAY + 11 * HOUR // Mondays at 19:00
    const morningCell = contextCellOf(makeLocalTime("UTC")(now))

    it("uses 365 days of unskipped plays: skips and older plays are left out", () => {
      const plays = [
        // artist 0: 4 morning plays, 1 evening → more morning than the baseline
        ...[1, 2, 3, 4].map((w) => play(0, 0, { at: morning(w) })),
        play(0, 0, { at: evening(1) }),
        // artist 1: 5 evening plays
        ...[1, 2, 3, 4, 5].map((w) => play(1, 0, { at: evening(w) })),
        // skipped morning plays and a morning play older than 365 days do not count
        ...[1, 2, 3].map((w) => play(1, 0, { at: morning(w), skipped: true })),
        play(1, 0, { at: now - 366 * DAY }),
      ]
      const history = summarizeHistory({ catalog, plays, timeZone: "UTC" })
      const affinity = contextAffinities(catalog, history, { now, cell: morningCell })
      const baseline = 4 / 10
      expect(affinity[0]).toBeCloseTo(affinityFromCounts(4, 5, baseline), 12)
      expect(affinity[1]).toBeCloseTo(affinityFromCounts(0, 5, baseline), 12)
      expect(affinity[2]).toBe(0)
      expect(affinity[0]).toBeGreaterThan(0)
      expect(affinity[1]).toBeLessThan(0)
    })

    it("reads the cell in the user's zone", () => {
      // 08:00 UTC Mondays are 17:00 (evening) in Tokyo.
      const plays = [1, 2, 3].map((w) => play(0, 0, { at: morning(w) }))
      const tokyo = summarizeHistory({ catalog, plays, timeZone: "Asia/Tokyo" })
      const tokyoEvening = contextCellOf(makeLocalTime("Asia/Tokyo")(morning(1)))
      expect(describeCell(tokyoEvening)).toEqual({ daypart: "evening", weekend: false })
      expect(tokyo.playCell[0]).toBe(tokyoEvening)
    })
  })

  it("a snapshot built at 03:00 can score the cell of another time (contextTime)", () => {
    const catalog = gridCatalog(2, 1)
    const monday = Date.UTC(2025, 5, 9)
    // artist 0 is an evening artist, artist 1 a morning one
    const plays = [1, 2, 3].flatMap((w) => [
      play(0, 0, { at: monday - w * 7 * DAY + 19 * HOUR }),
      play(1, 0, { at: monday - w * 7 * DAY + 8 * HOUR }),
    ])
    const input = surfaceInput(catalog, plays)
    const atThree = contextAt(input, monday + 3 * HOUR)
    const evening = contextAt({ ...input, contextTime: monday + 19 * HOUR }, monday + 3 * HOUR)
    expect([...atThree]).toEqual([0, 0]) // nobody listens at night: both at the baseline
    expect(evening[0]).toBeGreaterThan(0)
    expect(evening[1]).toBeLessThan(0)
  })

  describe("rule 4: device narrowing", () => {
    const now = Date.UTC(2025, 5, 9, 8)
    const catalog = buildCatalog([libraryTrack(0, { artist: 0 }), libraryTrack(1, { artist: 1 })])
    const morningCell = contextCellOf(makeLocalTime("UTC")(now))
    const plays = [
      // artist 0: mornings on the car stereo; artist 1: mornings on mobile
      ...[1, 2, 3, 4].map((w) => play(0, 0, { at: now - w * 7 * DAY, device: "car" })),
      ...[1, 2, 3, 4].map((w) => play(1, 0, { at: now - w * 7 * DAY, device: "mobile" })),
      ...[1, 2, 3, 4].map((w) => play(1, 0, { at: now - w * 7 * DAY + 10 * HOUR, device: "mobile" })),
    ]
    const history = summarizeHistory({ catalog, plays, timeZone: "UTC" })

    it("the current device is the class of the user's latest play", () => {
      expect(history.latestDeviceClass).toBe("mobile")
    })

    it("the cell also filters by device: in the car, the car artist is the morning artist", () => {
      const car = contextAffinities(catalog, history, { now, cell: morningCell, deviceClass: "car" })
      // 4 of 12 plays are car mornings: artist 0 has 4/4 in the cell, artist 1 0/8.
      expect(car[0]).toBeCloseTo(affinityFromCounts(4, 4, 4 / 12), 12)
      expect(car[1]).toBeCloseTo(affinityFromCounts(0, 8, 4 / 12), 12)
    })

    it("an empty device value reproduces time-only behaviour", () => {
      const timeOnly = contextAffinities(catalog, history, { now, cell: morningCell })
      for (const device of [null, "", undefined])
        expect(contextAffinities(catalog, history, { now, cell: morningCell, deviceClass: device })).toEqual(timeOnly)
      expect(timeOnly[0]).toBeCloseTo(affinityFromCounts(4, 4, 8 / 12), 12)
      expect(timeOnly[1]).toBeCloseTo(affinityFromCounts(4, 8, 8 / 12), 12)
    })

    it.effect("a device never seen gives an empty cell: every known artist falls below the baseline of 0", () =>
      Effect.sync(() => {
        const tv = contextAffinities(catalog, history, { now, cell: morningCell, deviceClass: "tv" })
        expect([...tv]).toEqual([0, 0])
      }),
    )
  })
})

describe("rule 5", () => {
  const profileTags = new Map([
    ["rock", 10],
    ["indie", 5],
    ["pop", 20],
    ["metal", -8],
  ])

  const candidate = (mbid: string, score: number, tags: ReadonlyArray<EnrichedTag> = []): SuggestionCandidate => ({
    mbid,
    name: mbid,
    score,
    in_library: false,
    tags,
  })

  describe("rule 5: suggestion ranking", () => {
    it("overlap: shared tags' candidate weight × taste weight / strongest, over all candidate tag weights", () => {
      const tags = [
        { name: "rock", weight: 1 },
        { name: "indie", weight: 0.5 },
        { name: "jazz", weight: 0.5 },
      ]
      expect(strongestTag(profileTags)).toBe(20)
      expect(tagOverlap(profileTags, tags)).toBeCloseTo((1 * (10 / 20) + 0.5 * (5 / 20)) / 2, 12)
      expect(tagOverlap(profileTags, tags)).toBeCloseTo(0.3125, 12)
    })

    it("final score = similarity × (1 + weight × overlap): 0.8 × (1 + 1.0 × 0.3125) = 1.05", () => {
      expect(suggestionScore(0.8, 1.0, 0.3125)).toBeCloseTo(1.05, 12)
      const [ranked] = rankSuggestions(
        [
          candidate("a", 0.8, [
            { name: "rock", weight: 1 },
            { name: "indie", weight: 0.5 },
            { name: "jazz", weight: 0.5 },
          ]),
        ],
        profileTags,
        1.0,
      )
      expect(ranked!.score).toBeCloseTo(1.05, 12)
    })

    it("disliked tags pull a candidate down", () => {
      expect(tagOverlap(profileTags, [{ name: "metal", weight: 1 }])).toBeCloseTo(-0.4, 12)
    })

    it("an untagged candidate keeps exactly its score; no profile or no profile tags is neutral", () => {
      const [untagged] = rankSuggestions([candidate("u", 0.37)], profileTags, 7)
      expect(untagged!.score).toBe(0.37)
      expect(tagOverlap(undefined, [{ name: "rock", weight: 1 }])).toBe(0)
      expect(tagOverlap(new Map(), [{ name: "rock", weight: 1 }])).toBe(0)
    })

    it("applies to the whole over-fetched pool: a lower-similarity candidate can overtake", () => {
      const pool = [
        candidate("similar-but-off-taste", 0.9, [{ name: "jazz", weight: 1 }]),
        candidate("close-to-taste", 0.6, [{ name: "pop", weight: 1 }]),
      ]
      expect(rankSuggestions(pool, profileTags, 1).map((r) => r.candidate.mbid)).toEqual([
        "close-to-taste",
        "similar-but-off-taste",
      ])
    })

    const tagArb = fc.array(
      fc.record({
        name: fc.constantFrom("rock", "indie", "pop", "metal", "jazz", "folk"),
        weight: fc.double({ min: 0.01, max: 1, noNaN: true }),
      }),
      { maxLength: 4 },
    )
    const poolArb = fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), tagArb), {
      minLength: 1,
      maxLength: 12,
    })

    it.prop(
      "overlap = 0 ⇒ the score is unchanged, whatever the weight",
      [poolArb, fc.double({ min: 0, max: 10, noNaN: true })],
      ([pool, weight]) => {
        const noShared = new Map([["polka", 3]])
        for (const ranked of rankSuggestions(
          pool.map(([s, tags], i) => candidate(`c${i}`, s, tags)),
          noShared,
          weight,
        )) {
          expect(ranked.overlap).toBe(0)
          expect(ranked.score).toBe(ranked.similarity)
        }
      },
    )

    it.prop("weight 0 ⇒ pure similarity order", [poolArb], ([pool]) => {
      const ranked = rankSuggestions(
        pool.map(([s, tags], i) => candidate(`c${i}`, s, tags)),
        profileTags,
        0,
      )
      const order = ranked.map((r) => r.candidate.score)
      expect(order).toEqual([...order].sort((a, b) => b - a))
      for (const r of ranked) expect(r.score).toBe(r.similarity)
    })

    it.prop("the overlap stays in [-1, 1]", [tagArb], ([tags]) => {
      const overlap = tagOverlap(profileTags, tags)
      expect(overlap).toBeGreaterThanOrEqual(-1)
      expect(overlap).toBeLessThanOrEqual(1)
    })
  })

  describe("Discover artist suggestions", () => {
    const profile: TasteProfile = {
      artists: new Map([
        [artistId(1), 40],
        [artistId(2), 3],
      ]),
      tags: profileTags,
      eras: new Map(),
      moods: new Map(),
    }
    const similar = new Map<string, ReadonlyArray<SuggestionCandidate>>([
      [artistId(1), [candidate("x", 1), candidate("y", 0.5), { ...candidate("known", 0.9), artist_id: artistId(2) }]],
      [artistId(2), [candidate("y", 1), candidate("z", 0.2)]],
    ])

    it("the pool is the seed-weighted mean similarity over the user's artists, known artists left out", () => {
      const pool = suggestionPool({ profile, similarOf: (a) => similar.get(a) ?? [] })
      const w1 = Math.log1p(40)
      const w2 = Math.log1p(3)
      expect(pool.map((c) => c.mbid)).toEqual(["x", "y", "z"])
      expect(pool.find((c) => c.mbid === "x")!.score).toBeCloseTo(w1 / (w1 + w2), 12)
      expect(pool.find((c) => c.mbid === "y")!.score).toBeCloseTo((0.5 * w1 + w2) / (w1 + w2), 12)
    })

    it("snoozed candidates leave the list after ranking; the snooze ends at snoozed_until", () => {
      const pool = [candidate("a", 0.9), candidate("b", 0.8), candidate("c", 0.7)]
      const snoozes = [
        { candidate_mbid: "a", candidate_name: "A", snoozed_until_ms: NOW + DAY },
        { candidate_mbid: "b", candidate_name: "B", snoozed_until_ms: NOW },
      ]
      const snoozed = activeSnoozes(snoozes, NOW)
      expect([...snoozed]).toEqual(["a"])
      const list = discoverSuggestions({ pool, profile, discovery: SHIPPED_TUNING.discovery, snoozed })
      expect(list.map((s) => s.mbid)).toEqual(["b", "c"])
    })

    it("the default snooze horizon is snooze_days (90 days); a request's days win, clamped to 1–3650", () => {
      expect(snoozedUntil(NOW, undefined, SHIPPED_TUNING.discovery)).toBe(NOW + 90 * DAY)
      expect(snoozedUntil(NOW, 7, SHIPPED_TUNING.discovery)).toBe(NOW + 7 * DAY)
      expect(snoozedUntil(NOW, 0, SHIPPED_TUNING.discovery)).toBe(NOW + DAY)
      expect(snoozedUntil(NOW, 99_999, SHIPPED_TUNING.discovery)).toBe(NOW + 3650 * DAY)
    })

    it("diversity: one primary tag fills at most 30 % of the list while others remain", () => {
      const pool = Array.from({ length: 10 }, (_, i) =>
        candidate(`c${i}`, 1 - i / 100, [{ name: i < 8 ? "rock" : "folk", weight: 1 }]),
      )
      const list = discoverSuggestions({ pool, profile: undefined, discovery: SHIPPED_TUNING.discovery, size: 5 })
      expect(list.map((s) => s.mbid)).toEqual(["c0", "c1", "c8", "c9", "c2"])
    })
  })
})
