import { describe, expect, it } from "@effect/vitest"
import { familyOfSource, type PickKind } from "@tonearm/core"
import { FastCheck as fc } from "effect"
import {
  artistPairDiversity,
  isoWeekOf,
  LOW_CONFIDENCE_PLAYS,
  type MetricsPlayRow,
  metricsWindowDays,
  rollUpMetrics,
  type TasteProfile,
  TRENDS_DEFAULT_WEEKS,
  TRENDS_MAX_WEEKS,
  trendsWindowStart,
  trendsWindowWeeks,
  weeklyTrends,
} from "../src/index.js"
import { artistId, DAY } from "./fixtures.js"

describe("metrics", () => {
  const row = (
    source: string | null,
    skipped: boolean,
    completion: number | null,
    pick_kind: PickKind | null = null,
  ): MetricsPlayRow => ({
    source,
    pick_kind,
    skipped,
    completion,
  })
  const repeat = (n: number, r: MetricsPlayRow) => Array.from({ length: n }, () => r)

  describe("metrics rules", () => {
    it("the window defaults to 30 days and is capped at 365", () => {
      expect(metricsWindowDays()).toBe(30)
      expect(metricsWindowDays(null)).toBe(30)
      expect(metricsWindowDays(7)).toBe(7)
      expect(metricsWindowDays(9999)).toBe(365)
      expect(metricsWindowDays(0)).toBe(1)
    })

    const rows = [
      // baseline: 10 plays, 2 skips, completion 0.5 on all
      ...repeat(8, row(null, false, 0.5)),
      ...repeat(2, row(null, true, 0.5)),
      // discovery: 30 plays over for_you and discover with pick kinds, 3 earlier unattributed
      ...repeat(12, row("for_you", false, 0.9, "taste")),
      ...repeat(6, row("for_you", true, 0.1, "fresh")),
      ...repeat(9, row("discover", false, 1, "taste_unheard")),
      ...repeat(3, row("for_you", false, null, null)),
      // go_to: daily mixes, rediscover
      ...repeat(4, row("daily_mix:2", false, 0.8, "tier1")),
      row("rediscover", true, 0.2, "tier3"),
      // direct and radio
      ...repeat(3, row("album:abc", false, 1)),
      row("artist:x", false, 0.5),
      ...repeat(2, row("radio:5f0c", true, 0.05)),
      // an unknown source is left out
      row("carplay-widget", false, 1),
    ]
    const metrics = rollUpMetrics(rows, 30)

    it("groups plays into the four families plus the no-source baseline (the control)", () => {
      expect(metrics.window_days).toBe(30)
      expect(metrics.baseline).toEqual({
        plays: 10,
        skips: 2,
        skip_rate: 0.2,
        avg_completion: 0.5,
        low_confidence: true,
      })
      expect(metrics.rows.map((r) => [r.family, r.plays, r.skips])).toEqual([
        ["go_to", 5, 1],
        ["discovery", 30, 6],
        ["direct", 4, 0],
        ["radio", 2, 2],
      ])
    })

    it("deltas against the baseline are in percentage points", () => {
      const discovery = metrics.rows.find((r) => r.family === "discovery")!
      expect(discovery.skip_rate).toBeCloseTo(0.2, 12)
      expect(discovery.delta_skip_rate_pp).toBeCloseTo(0, 9)
      // completion over the 27 plays that have one: (12·0.9 + 6·0.1 + 9·1) / 27
      expect(discovery.avg_completion).toBeCloseTo((10.8 + 0.6 + 9) / 27, 12)
      expect(discovery.delta_completion_pp).toBeCloseTo(((10.8 + 0.6 + 9) / 27 - 0.5) * 100, 9)
      const radio = metrics.rows.find((r) => r.family === "radio")!
      expect(radio.delta_skip_rate_pp).toBeCloseTo(80, 9)
    })

    it("a family with fewer than 20 plays is flagged low confidence but still returned", () => {
      expect(LOW_CONFIDENCE_PLAYS).toBe(20)
      expect(metrics.rows.map((r) => [r.family, r.low_confidence])).toEqual([
        ["go_to", true],
        ["discovery", false],
        ["direct", true],
        ["radio", true],
      ])
    })

    it("families with pick kinds carry a breakdown with a row for earlier unattributed plays", () => {
      const discovery = metrics.rows.find((r) => r.family === "discovery")!
      expect(discovery.breakdown.map((b) => [b.pick_kind, b.plays, b.skips])).toEqual([
        ["taste", 12, 0],
        ["fresh", 6, 6],
        ["taste_unheard", 9, 0],
        [null, 3, 0],
      ])
      expect(discovery.breakdown.find((b) => b.pick_kind === null)!.avg_completion).toBeNull()
      expect(metrics.rows.find((r) => r.family === "direct")!.breakdown).toEqual([])
      expect(metrics.rows.find((r) => r.family === "radio")!.breakdown).toEqual([])
    })

    const rowArb = fc.record({
      source: fc.constantFrom(
        null,
        "for_you",
        "discover",
        "daily_mix:1",
        "on_repeat",
        "album:1",
        "radio:1",
        "new_for_you",
      ),
      pick_kind: fc.constantFrom<PickKind | null>(null, "taste", "fresh", "tier1", "tier2", "random"),
      skipped: fc.boolean(),
      completion: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
    })

    it.prop(
      "each parent row equals the sum of its breakdown; completion is averaged over the plays that have one",
      [fc.array(rowArb, { maxLength: 120 })],
      ([sample]) => {
        const result = rollUpMetrics(sample, 30)
        const mean = (xs: ReadonlyArray<number>) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length)
        for (const family of result.rows) {
          const own = sample.filter((r) => familyOfSource(r.source) === family.family)
          expect(family.plays).toBe(own.length)
          const completions = own.flatMap((r) => (r.completion === null ? [] : [r.completion]))
          if (completions.length === 0) expect(family.avg_completion).toBeNull()
          else expect(family.avg_completion).toBeCloseTo(mean(completions)!, 9)
          if (family.breakdown.length === 0) continue
          expect(family.breakdown.reduce((n, b) => n + b.plays, 0)).toBe(family.plays)
          expect(family.breakdown.reduce((n, b) => n + b.skips, 0)).toBe(family.skips)
          for (const b of family.breakdown) {
            const kind = own
              .filter((r) => r.pick_kind === b.pick_kind)
              .flatMap((r) => (r.completion === null ? [] : [r.completion]))
            if (kind.length === 0) expect(b.avg_completion).toBeNull()
            else expect(b.avg_completion).toBeCloseTo(mean(kind)!, 9)
          }
        }
        expect(result.rows.reduce((n, r) => n + r.plays, 0) + result.baseline.plays).toBe(sample.length)
      },
    )
  })
})

describe("trends", () => {
  describe("ISO weeks", () => {
    it("follow the ISO week-numbering year", () => {
      expect(isoWeekOf(Date.UTC(2021, 0, 3))).toBe("2020-W53")
      expect(isoWeekOf(Date.UTC(2021, 0, 4))).toBe("2021-W01")
      expect(isoWeekOf(Date.UTC(2024, 11, 30))).toBe("2025-W01")
      expect(isoWeekOf(Date.UTC(2025, 5, 11, 23, 59))).toBe("2025-W24")
    })

    it("the window defaults to 12 weeks, at most 52, starting on a Monday", () => {
      expect(TRENDS_DEFAULT_WEEKS).toBe(12)
      expect(TRENDS_MAX_WEEKS).toBe(52)
      expect(trendsWindowWeeks()).toBe(12)
      expect(trendsWindowWeeks(100)).toBe(52)
      const start = trendsWindowStart(Date.UTC(2025, 5, 11, 12), 2)
      expect(new Date(start).toISOString()).toBe("2025-06-02T00:00:00.000Z")
    })
  })

  describe("weekly trends", () => {
    const now = Date.UTC(2025, 5, 11, 12) // Wednesday of 2025-W24
    const profiles = new Map<string, TasteProfile>([
      [
        "u1",
        {
          artists: new Map([
            [artistId(1), 2],
            [artistId(2), -1],
          ]),
          tags: new Map(),
          eras: new Map(),
          moods: new Map(),
        },
      ],
    ])
    const row = (
      user: string,
      artist: number,
      daysAgo: number,
      source: string | null,
      skipped: boolean,
      completion: number | null,
    ) => ({
      user_id: user,
      artist_id: artistId(artist),
      started_at_ms: now - daysAgo * DAY,
      source,
      skipped,
      completion,
    })
    const trends = weeklyTrends({
      now,
      weeks: 2,
      profiles,
      rows: [
        row("u1", 1, 1, "for_you", false, 1),
        row("u1", 2, 1, "discover", true, 0.1),
        row("u1", 1, 1, "discover", false, null),
        row("u2", 1, 1, "for_you", false, 0.4), // u2 has no profile: never a taste hit
        row("u1", 1, 8, "daily_mix:1", false, 0.5),
        row("u1", 1, 30, "for_you", false, 1), // outside the window
      ],
    })

    it("lists every week of the window for every family, the baseline included", () => {
      expect(trends.weeks).toEqual(["2025-W23", "2025-W24"])
      expect(trends.series.map((s) => s.family)).toEqual(["baseline", "go_to", "discovery", "direct", "radio"])
      expect(trends.series.find((s) => s.family === "radio")!.points).toEqual([
        {
          week: "2025-W23",
          plays: 0,
          skip_rate: null,
          avg_completion: null,
          taste_hit_rate: null,
          first_listen_share: null,
          intra_list_diversity: null,
        },
        {
          week: "2025-W24",
          plays: 0,
          skip_rate: null,
          avg_completion: null,
          taste_hit_rate: null,
          first_listen_share: null,
          intra_list_diversity: null,
        },
      ])
    })

    it("skip rate, sample-weighted completion and taste-hit rate per family and week", () => {
      const discovery = trends.series.find((s) => s.family === "discovery")!.points[1]!
      expect(discovery.plays).toBe(4)
      expect(discovery.skip_rate).toBe(0.25)
      expect(discovery.avg_completion).toBeCloseTo((1 + 0.1 + 0.4) / 3, 12)
      // hits: u1's artist 1 twice (positive weight); artist 2 is negative, u2 has no profile
      expect(discovery.taste_hit_rate).toBe(0.5)
      const goTo = trends.series.find((s) => s.family === "go_to")!.points
      expect(goTo[0]).toEqual({
        week: "2025-W23",
        plays: 1,
        skip_rate: 0,
        avg_completion: 0.5,
        taste_hit_rate: 1,
        // these rows carry no track nor first-listen flag
        first_listen_share: 0,
        intra_list_diversity: null,
      })
    })

    it("rows carry rates only, with no user or track identity", () => {
      for (const series of trends.series)
        for (const point of series.points)
          expect(Object.keys(point).sort()).toEqual([
            "avg_completion",
            "first_listen_share",
            "intra_list_diversity",
            "plays",
            "skip_rate",
            "taste_hit_rate",
            "week",
          ])
    })

    it("taste hits use the player's current profile, so profile drift changes past weeks", () => {
      const drifted = new Map<string, TasteProfile>([
        ["u1", { artists: new Map([[artistId(1), -0.5]]), tags: new Map(), eras: new Map(), moods: new Map() }],
      ])
      const again = weeklyTrends({
        now,
        weeks: 2,
        profiles: drifted,
        rows: [row("u1", 1, 8, "daily_mix:1", false, 0.5)],
      })
      expect(again.series.find((s) => s.family === "go_to")!.points[0]!.taste_hit_rate).toBe(0)
    })

    it("share of first listens per family and week: plays that were the listener's first of the track", () => {
      const played = (track: string, first: boolean, source: string) => ({
        ...row("u1", 1, 1, source, false, 1),
        track_id: track,
        first_listen: first,
      })
      const result = weeklyTrends({
        now,
        weeks: 1,
        profiles,
        rows: [
          played("t1", true, "discover"),
          played("t1", false, "discover"),
          played("t2", true, "discover"),
          played("t3", false, "discover"),
          played("t4", false, "daily_mix:1"),
        ],
      })
      const point = (family: string) => result.series.find((s) => s.family === family)!.points[0]!
      expect(point("discovery").first_listen_share).toBe(0.5)
      expect(point("go_to").first_listen_share).toBe(0)
      expect(point("radio").first_listen_share).toBeNull()
    })

    it("intra-list diversity: share of pairs by different artists in each listener's list, mean over lists", () => {
      expect(artistPairDiversity(new Map([["t1", "a"]]))).toBeUndefined()
      expect(
        artistPairDiversity(
          new Map([
            ["t1", "a"],
            ["t2", "a"],
          ]),
        ),
      ).toBe(0)
      expect(
        artistPairDiversity(
          new Map([
            ["t1", "a"],
            ["t2", "b"],
          ]),
        ),
      ).toBe(1)
      // a a b: pairs (aa) same, (ab)(ab) different → 2/3
      expect(
        artistPairDiversity(
          new Map([
            ["t1", "a"],
            ["t2", "a"],
            ["t3", "b"],
          ]),
        ),
      ).toBeCloseTo(2 / 3, 12)
      const played = (user: string, artist: number, track: string) => ({
        ...row(user, artist, 1, "for_you", false, 1),
        track_id: track,
        first_listen: true,
      })
      const result = weeklyTrends({
        now,
        weeks: 1,
        profiles,
        rows: [
          // u1: one artist three times (a repeat of t1 counts once): diversity 0
          played("u1", 1, "t1"),
          played("u1", 1, "t1"),
          played("u1", 1, "t2"),
          played("u1", 1, "t3"),
          // u2: three artists: diversity 1
          played("u2", 1, "t4"),
          played("u2", 2, "t5"),
          played("u2", 3, "t6"),
          // u3: one track only: no list
          played("u3", 4, "t7"),
        ],
      })
      expect(result.series.find((s) => s.family === "discovery")!.points[0]!.intra_list_diversity).toBe(0.5)
    })
  })
})
