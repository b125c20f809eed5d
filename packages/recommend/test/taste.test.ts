import { describe, expect, it } from "@effect/vitest"
import { SHIPPED_TUNING } from "@tonearm/core"
import { FastCheck as fc } from "effect"
import {
  accumulateTaste,
  buildCatalog,
  buildTasteProfile,
  decayFactor,
  EMPTY_TASTE_PROFILE,
  eraOfYear,
  FEATURED_CREDIT_SHARE,
  type LibraryTrack,
  moodOfTag,
  moodsOfTags,
  playEngagement,
  summarizeHistory,
  TASTE_SHARES,
  TASTE_SQUASH_SCALE,
  type TasteProfile,
  tasteMatch,
  tasteMatchCatalog,
  tasteProfileFromRows,
  tasteProfileRows,
} from "../src/index.js"
import { artistId, DAY, libraryTrack, NOW, play } from "./fixtures.js"

describe("taste profile builder (and the mood and era vocabularies)", () => {
  const taste = SHIPPED_TUNING.taste

  const catalog = buildCatalog([
    libraryTrack(0, { artist: 0, genre: "Rock; Pop", year: 1994, tags: [{ name: "sad", weight: 0.8 }] }),
    libraryTrack(1, { artist: 1, genre: "Rock/Pop", year: null, tags: [] }),
    libraryTrack(2, { artist: 2, genre: "Jazz", year: 0, tags: [{ name: "shoegaze", weight: 0.6 }] }),
  ])

  const profileOf = (plays: Parameters<typeof play>[], likes = {}) => {
    const history = summarizeHistory({ catalog, plays: plays.map((p) => play(...p)), likes, timeZone: "UTC" })
    return buildTasteProfile({ catalog, history, taste, now: NOW })
  }

  describe("taste profile builder", () => {
    it("a full play today adds 1 to its artist (play-equivalents)", () => {
      expect(profileOf([[0, 0]]).artists.get(artistId(0))).toBeCloseTo(1, 12)
    })

    it("taste credits every credited artist of a play: another main artist fully, a featured guest at FEATURED_CREDIT_SHARE", () => {
      const credited = buildCatalog(
        [libraryTrack(0, { artist: 0, genre: "Rock", year: 1994, tags: [] })].map((track) => ({
          ...track,
          credits: [
            { artist_id: artistId(1), role: "main" as const },
            { artist_id: artistId(2), role: "featured" as const },
          ],
        })),
      )
      const history = summarizeHistory({ catalog: credited, plays: [play(0, 0)], likes: {}, timeZone: "UTC" })
      const profile = buildTasteProfile({ catalog: credited, history, taste, now: NOW })
      expect(profile.artists.get(artistId(0))).toBeCloseTo(1, 12)
      expect(profile.artists.get(artistId(1))).toBeCloseTo(1, 12)
      expect(profile.artists.get(artistId(2))).toBeCloseTo(FEATURED_CREDIT_SHARE, 12)
      // A guest with no tracks of their own still has an index (their page, their taste weight).
      expect(credited.artistIndex.has(artistId(2))).toBe(true)
    })

    it("completion goes through the tunable curve: 0.6 → 0.3, 0.9 → 0.9", () => {
      expect(profileOf([[0, 0, { completion: 0.6 }]]).artists.get(artistId(0))).toBeCloseTo(0.3, 12)
      expect(profileOf([[0, 0, { completion: 0.9 }]]).artists.get(artistId(0))).toBeCloseTo(0.9, 12)
    })

    it("skips are negative: a skip at 5 % completion weighs −|curve(0.05)|", () => {
      const expected = -(1 - (0.05 / 0.25) * 0.6)
      expect(profileOf([[0, 0, { skipped: true, completion: 0.05 }]]).artists.get(artistId(0))).toBeCloseTo(
        expected,
        12,
      )
      expect(
        playEngagement(true, 0.2, {
          ...taste,
          completion_curve: [
            { x: 0, y: 0.5 },
            { x: 1, y: 1 },
          ],
        }),
      ).toBeLessThan(0)
    })

    it("a play that never ended counts as a mild positive", () => {
      expect(profileOf([[0, 0, { completion: null }]]).artists.get(artistId(0))).toBeCloseTo(0.5, 12)
    })

    it("decays exponentially with the half-life: 45 days ago counts 0.5, 90 days ago 0.25", () => {
      expect(decayFactor(45 * DAY, 45)).toBeCloseTo(0.5, 12)
      expect(profileOf([[0, 45]]).artists.get(artistId(0))).toBeCloseTo(0.5, 12)
      expect(profileOf([[0, 90]]).artists.get(artistId(0))).toBeCloseTo(0.25, 12)
    })

    it("genre tags use the core genre rule: Rock;Pop gives two tags, Rock/Pop one", () => {
      const profile = profileOf([
        [0, 0],
        [1, 0],
      ])
      expect(profile.tags.get("Rock")).toBeCloseTo(1, 12)
      expect(profile.tags.get("Pop")).toBeCloseTo(1, 12)
      expect(profile.tags.get("Rock/Pop")).toBeCloseTo(1, 12)
    })

    it("enriched tags count relevance × enriched_tag_scale (0.6 × 0.5 = 0.3)", () => {
      expect(profileOf([[2, 0]]).tags.get("shoegaze")).toBeCloseTo(0.3, 12)
    })

    it("eras are decade buckets × era_scale; undated tracks (null or 0) have none", () => {
      expect(eraOfYear(1994)).toBe("1990s")
      expect(eraOfYear(2000)).toBe("2000s")
      expect(eraOfYear(0)).toBeUndefined()
      expect(eraOfYear(null)).toBeUndefined()
      const profile = profileOf([
        [0, 0],
        [1, 0],
        [2, 0],
      ])
      expect([...profile.eras]).toEqual([["1990s", 0.5]])
    })

    it("moods come from enriched tags through the shared vocabulary, × mood_scale", () => {
      expect(moodOfTag("Sad")).toBe("melancholic")
      expect(moodOfTag("chill-out")).toBe("chill")
      expect(moodOfTag("shoegaze")).toBeUndefined()
      expect(moodsOfTags(["sad", "melancholy", "upbeat"])).toEqual(["melancholic", "energetic"])
      expect([...profileOf([[0, 0]]).moods]).toEqual([["melancholic", 0.5]])
    })

    it("likes are standing signals: a liked track counts 2, a liked artist 3", () => {
      const liked = profileOf([], { tracks: [catalog.tracks[2]!.id], artists: [artistId(1)] })
      expect(liked.artists.get(artistId(2))).toBeCloseTo(2, 12)
      expect(liked.artists.get(artistId(1))).toBeCloseTo(3, 12)
    })

    it("plays of tracks no longer in the library are ignored", () => {
      expect(profileOf([[99, 0]]).artists.size).toBe(0)
    })

    it("accumulates signals linearly (the offline evaluation feeds play counts this way)", () => {
      const profile = accumulateTaste(catalog, taste, [
        [0, 120],
        [0, 30],
      ])
      expect(profile.artists.get(artistId(0))).toBeCloseTo(150, 9)
    })

    it("round-trips through stored rows", () => {
      const profile = profileOf([
        [0, 0],
        [2, 3, { skipped: true }],
      ])
      expect(tasteProfileFromRows(tasteProfileRows(profile))).toEqual(profile)
      expect(tasteProfileFromRows([{ dimension: "mood", key: "wistful", weight: 1 }]).moods.size).toBe(0)
    })
  })
})

describe("rule 1", () => {
  const t = (w: number) => Math.tanh(w / TASTE_SQUASH_SCALE)

  const profile: TasteProfile = {
    artists: new Map([[artistId(1), 3]]),
    tags: new Map([
      ["Rock", 6],
      ["Pop", -3],
      ["dreamy", 1.5],
    ]),
    eras: new Map([["1990s", 2]]),
    moods: new Map([["dreamy", 4]]),
  }

  const candidate = (spec: Partial<LibraryTrack>): LibraryTrack => ({ ...libraryTrack(0, { artist: 1 }), ...spec })

  describe("rule 1: taste match", () => {
    it("blends artist (0.7) and average genre-tag weight (0.3), each tanh-squashed with the fixed scale", () => {
      expect(TASTE_SHARES).toEqual({ artist: 0.7, tags: 0.3, era: 0.15, mood: 0.12 })
      const match = tasteMatch(profile, candidate({ genre: "Rock; Pop", year: null }))
      expect(match).toBeCloseTo(0.7 * t(3) + 0.3 * t((6 - 3) / 2), 12)
    })

    it("adds an era term of share 0.15 and a mood term of share 0.12", () => {
      const match = tasteMatch(
        profile,
        candidate({ genre: "Rock", year: 1997, tags: [{ name: "ethereal", weight: 1 }] }),
      )
      // tags: Rock (genre, 1) and "ethereal" (enriched, relevance 1, unknown to the profile → 0)
      expect(match).toBeCloseTo(0.7 * t(3) + 0.3 * t(6 / 2) + 0.15 * t(2) + 0.12 * t(4), 12)
    })

    it("missing data contributes 0: undated (null or 0) and no mood tags", () => {
      const base = 0.7 * t(3) + 0.3 * t(6)
      expect(tasteMatch(profile, candidate({ genre: "Rock", year: null }))).toBeCloseTo(base, 12)
      expect(tasteMatch(profile, candidate({ genre: "Rock", year: 0 }))).toBeCloseTo(base, 12)
    })

    it("an unknown artist, unknown tags or an empty profile give 0 to their terms", () => {
      expect(tasteMatch(profile, candidate({ artist_id: artistId(9), genre: "Rock", year: null }))).toBeCloseTo(
        0.3 * t(6),
        12,
      )
      expect(tasteMatch(profile, candidate({ genre: "Polka", year: null }))).toBeCloseTo(0.7 * t(3), 12)
      expect(tasteMatch(profile, candidate({ artist_id: artistId(9), genre: "Polka", year: 1850 }))).toBe(0)
      expect(tasteMatch(EMPTY_TASTE_PROFILE, candidate({ year: 1995, tags: [{ name: "dreamy", weight: 1 }] }))).toBe(0)
    })

    it("the mood lookup can be skipped (the near-whole-library fallback pool)", () => {
      const c = candidate({ genre: null, year: null, tags: [{ name: "dreamy", weight: 1 }] })
      const withMood = tasteMatch(profile, c)
      const withoutMood = tasteMatch(profile, c, { skipMood: true })
      expect(withMood - withoutMood).toBeCloseTo(0.12 * t(4), 12)
    })

    it("is bounded by the sum of the shares, ±1.27", () => {
      const strong: TasteProfile = {
        artists: new Map([[artistId(1), 1e9]]),
        tags: new Map([["Rock", 1e9]]),
        eras: new Map([["2000s", 1e9]]),
        moods: new Map([["happy", 1e9]]),
      }
      expect(tasteMatch(strong, candidate({ tags: [{ name: "happy", weight: 1 }] }))).toBeCloseTo(1.27, 9)
    })

    const trackArb = fc.record({
      artist: fc.integer({ min: 0, max: 3 }),
      genre: fc.option(fc.constantFrom("Rock", "Rock; Pop", "Jazz,Pop", "Rock/Pop", " ; "), { nil: null }),
      year: fc.option(fc.integer({ min: 1950, max: 2025 }), { nil: null }),
      tags: fc.array(
        fc.record({
          name: fc.constantFrom("dreamy", "sad", "Rock", "noise"),
          weight: fc.double({ min: 0.05, max: 1, noNaN: true }),
        }),
        { maxLength: 3 },
      ),
    })
    const profileArb = fc.record({
      a: fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.double({ min: -20, max: 20, noNaN: true })), {
        maxLength: 4,
      }),
      t: fc.array(
        fc.tuple(
          fc.constantFrom("Rock", "Pop", "Jazz", "Rock/Pop", "dreamy", "sad"),
          fc.double({ min: -9, max: 9, noNaN: true }),
        ),
        {
          maxLength: 5,
        },
      ),
      e: fc.array(fc.tuple(fc.constantFrom("1950s", "1990s", "2010s"), fc.double({ min: -9, max: 9, noNaN: true })), {
        maxLength: 2,
      }),
      m: fc.array(
        fc.tuple(
          fc.constantFrom("melancholic" as const, "dreamy" as const),
          fc.double({ min: -9, max: 9, noNaN: true }),
        ),
        {
          maxLength: 2,
        },
      ),
    })

    it.prop(
      "the whole-catalog scorer equals the per-candidate rule, with and without moods",
      [fc.array(trackArb, { minLength: 1, maxLength: 6 }), profileArb],
      ([specs, p]) => {
        const rows = specs.map((spec, n) => libraryTrack(n, spec))
        const catalog = buildCatalog(rows)
        const prof: TasteProfile = {
          artists: new Map(p.a.map(([a, w]) => [artistId(a), w])),
          tags: new Map(p.t),
          eras: new Map(p.e),
          moods: new Map(p.m),
        }
        for (const skipMood of [false, true]) {
          const all = tasteMatchCatalog(prof, catalog, { skipMood })
          rows.forEach((row, i) => {
            expect(all[i]).toBeCloseTo(tasteMatch(prof, row, { skipMood }), 9)
          })
        }
      },
      { fastCheck: { numRuns: 60 } },
    )
  })
})
