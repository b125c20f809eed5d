import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { RecommendationTrends } from "@tonearm/core"
import { isoWeekOf, trendsWindowStart } from "@tonearm/recommend"
import { DateTime, Effect, Layer } from "effect"
import { Admin, AdminLive, aUser } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const DAY = 86_400_000
const WEEK = 7 * DAY
const TRENDS = "/api/admin/recommendation-trends"

/** The Monday that starts week `k` (0 = oldest) of a 12-week window ending this week, plus `days`. */
const inWeek = (k: number, days = 1) => new Date(trendsWindowStart(Date.now(), 12) + k * WEEK + days * DAY)

interface ArrangedPlay {
  readonly user: SignedIn
  readonly artist: string | null
  readonly at: Date
  readonly source?: string
  readonly skipped?: boolean
  readonly completion: number | null
}

/** Plays arranged straight in the database (what a client reports is tested in the listening tests). */
const arrange = (plays: ReadonlyArray<ArrangedPlay>, trackIds: Array<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(
      plays,
      (play) => {
        const track = randomUUID()
        trackIds.push(track)
        return sql`
          INSERT INTO play_events (user_id, track_id, artist_id, client_id, started_at, ended_at, duration_played_ms,
            track_duration_ms, skipped, completion, source, created_at)
          VALUES (${play.user.user.id}, ${track}, ${play.artist}, 'test', ${play.at}, ${play.at}, 1000, 100000,
            ${play.skipped ?? false}, ${play.completion}, ${play.source ?? null}, ${play.at})`
      },
      { discard: true },
    ),
  )

/** A taste profile's artist weights, as a rebuild would have stored them. */
const setArtistWeights = (user: SignedIn, weights: Record<string, number>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const rows = Object.entries(weights).map(([key, weight]) => ({ dimension: "artist", key, weight }))
    return sql`INSERT INTO taste_profiles (user_id, built_at, weights) VALUES (${user.user.id}, now(), ${JSON.stringify(rows)}::json)
               ON CONFLICT (user_id) DO UPDATE SET built_at = now(), weights = EXCLUDED.weights`
  })

const pointOf = (trends: RecommendationTrends, family: string, k: number) =>
  trends.series.find((series) => series.family === family)!.points[k]!

const trends = (weeks?: number) =>
  Effect.flatMap(Admin, (admin) => admin.client.trends.get({ urlParams: weeks === undefined ? {} : { weeks } }))

/**
 * Trends are server-wide: every play on the server is removed, then fresh Alice and Bob get taste profiles
 * and a hand-made set of plays (on artists and tracks of their own).
 */
const handMadePlays = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM play_events`
  const alice = yield* aUser("alice")
  const bob = yield* aUser("bob")
  const artistA = randomUUID()
  const artistB = randomUUID()
  const trackIds: Array<string> = []
  yield* setArtistWeights(alice, { [artistA]: 2, [artistB]: -1 })
  yield* setArtistWeights(bob, { [artistB]: 1 })
  yield* arrange(
    [
      // Week 10, no source: the baseline.
      { user: alice, artist: artistA, at: inWeek(10), completion: 1 },
      { user: alice, artist: artistB, at: inWeek(10, 2), completion: 0.1, skipped: true },
      { user: bob, artist: artistB, at: inWeek(10), completion: 0.5 },
      { user: alice, artist: artistA, at: inWeek(10, 3), completion: null }, // never ended: no completion value
      // Week 10, discovery.
      { user: alice, artist: artistA, at: inWeek(10), source: "for_you", completion: 0.9 },
      { user: bob, artist: artistA, at: inWeek(10), source: "discover", completion: 0.2, skipped: true },
      // Week 11: go-to, radio, direct.
      { user: alice, artist: artistB, at: inWeek(11, 0), source: "daily_mix:2", completion: 0.8 },
      { user: bob, artist: artistB, at: inWeek(11, 0), source: `radio:${randomUUID()}`, completion: 1 },
      { user: alice, artist: artistA, at: inWeek(11, 0), source: `album:${randomUUID()}`, completion: 0.6 },
      { user: alice, artist: null, at: inWeek(11, 0), source: `playlist:${randomUUID()}`, completion: 0.4 },
      // Week 3, and one play before the window.
      { user: alice, artist: artistA, at: inWeek(3), completion: 0.7 },
      { user: alice, artist: artistA, at: inWeek(0, -3), completion: 0.3, skipped: true },
      // A source outside every family is left out.
      { user: alice, artist: artistA, at: inWeek(3), source: "somewhere_else", completion: 0.1 },
    ],
    trackIds,
  )
  return { alice, bob, artistA, artistB, trackIds }
})

layer(AdminLive().pipe(Layer.provideMerge(TestServerLive())), { excludeTestServices: true, timeout: "120 seconds" })(
  "recommendation trends",
  (it) => {
    it.effect(
      "per family and ISO week: skip rate, sample-weighted completion and taste-hit rate of a hand-made set of plays",
      () =>
        Effect.gen(function* () {
          yield* handMadePlays
          const result = yield* trends()
          expect(pointOf(result, "baseline", 10)).toMatchObject({ plays: 4, skip_rate: 0.25, taste_hit_rate: 0.75 })
          expect(pointOf(result, "baseline", 10).avg_completion).toBeCloseTo((1 + 0.1 + 0.5) / 3, 5)
          expect(pointOf(result, "discovery", 10)).toMatchObject({ plays: 2, skip_rate: 0.5, taste_hit_rate: 0.5 })
          expect(pointOf(result, "discovery", 10).avg_completion).toBeCloseTo(0.55, 5)
          expect(pointOf(result, "go_to", 11)).toMatchObject({ plays: 1, skip_rate: 0, taste_hit_rate: 0 })
          expect(pointOf(result, "go_to", 11).avg_completion).toBeCloseTo(0.8, 5)
          expect(pointOf(result, "radio", 11)).toMatchObject({
            plays: 1,
            skip_rate: 0,
            avg_completion: 1,
            taste_hit_rate: 1,
          })
          // A play whose artist is unknown counts, but is never a taste hit.
          expect(pointOf(result, "direct", 11)).toMatchObject({ plays: 2, skip_rate: 0, taste_hit_rate: 0.5 })
          expect(pointOf(result, "direct", 11).avg_completion).toBeCloseTo(0.5, 5)
          expect(pointOf(result, "baseline", 3)).toMatchObject({ plays: 1, skip_rate: 0, taste_hit_rate: 1 })
          expect(pointOf(result, "baseline", 0).plays).toBe(0)
        }),
    )

    it.effect(
      "every family has a point for every ISO week of the window, oldest first; a week without plays has null rates",
      () =>
        Effect.gen(function* () {
          yield* handMadePlays
          const result = yield* trends()
          const start = trendsWindowStart(Date.now(), 12)
          expect(DateTime.toEpochMillis(result.from)).toBe(start)
          expect(result.weeks).toHaveLength(12)
          expect(result.weeks[0]).toBe(isoWeekOf(start))
          expect(result.weeks[11]).toBe(isoWeekOf(Date.now()))
          expect(result.series.map((series) => series.family).sort()).toEqual(
            ["baseline", "direct", "discovery", "go_to", "radio"].sort(),
          )
          for (const series of result.series) expect(series.points.map((point) => point.week)).toEqual(result.weeks)
          expect(pointOf(result, "radio", 5)).toEqual({
            week: result.weeks[5],
            plays: 0,
            skip_rate: null,
            avg_completion: null,
            taste_hit_rate: null,
            first_listen_share: null,
            intra_list_diversity: null,
          })
        }),
    )

    it.effect("taste hits are recomputed against the current profiles: profile drift changes past weeks' rate", () =>
      Effect.gen(function* () {
        const { alice, bob, artistA, artistB } = yield* handMadePlays
        expect(pointOf(yield* trends(), "discovery", 10).taste_hit_rate).toBe(0.5)
        yield* setArtistWeights(bob, { [artistA]: 0.4, [artistB]: -0.2 })
        const drifted = yield* trends()
        expect(pointOf(drifted, "discovery", 10).taste_hit_rate).toBe(1)
        expect(pointOf(drifted, "radio", 11).taste_hit_rate).toBe(0)
        // A weight of zero is not a hit.
        yield* setArtistWeights(alice, { [artistA]: 0 })
        expect(pointOf(yield* trends(), "baseline", 3).taste_hit_rate).toBe(0)
      }),
    )

    it.effect("weeks defaults to 12 and is clamped at 52; weeks below 1 or not a number is 400 invalid_request", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        yield* handMadePlays
        expect((yield* trends()).weeks).toHaveLength(12)
        expect((yield* trends(4)).weeks).toHaveLength(4)
        const widest = yield* trends(100)
        expect(widest.weeks).toHaveLength(52)
        expect(DateTime.toEpochMillis(widest.from)).toBe(trendsWindowStart(Date.now(), 52))
        // The play from before the 12-week window is inside the 52-week one.
        const before = isoWeekOf(inWeek(0, -3).getTime())
        const point = widest.series
          .find((series) => series.family === "baseline")!
          .points.find((p) => p.week === before)
        expect(point).toMatchObject({ plays: 1, skip_rate: 1 })
        for (const query of ["weeks=0", "weeks=-3", "weeks=abc", "weeks=1.5"]) {
          const response = yield* raw("GET", `${TRENDS}?${query}`, { token: admin.token })
          expect(response.status).toBe(400)
          expect((response.json as { error: { code: string } }).error.code).toBe("invalid_request")
        }
      }),
    )

    it.effect("tuning-audit markers inside the window are listed with their week and fields; older ones are not", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const sql = yield* SqlClient.SqlClient
        // Markers are server-wide: start from shipped daily_mix values and an empty audit.
        yield* admin.client.tuning.reset({ payload: { scope: "daily_mix" } })
        yield* sql`DELETE FROM tuning_audit`
        const twentyWeeksAgo = new Date(Date.now() - 20 * WEEK)
        const yearAndAHalfAgo = new Date(Date.now() - 78 * WEEK)
        yield* sql`INSERT INTO tuning_audit (scope, changed_by, changed_at, diff) VALUES
        ('taste', ${admin.user.id}, ${twentyWeeksAgo}, '[{"field":"half_life_days","old":45,"new":30}]'::jsonb),
        ('radio', ${admin.user.id}, ${yearAndAHalfAgo}, '[{"field":"taste_weight","old":1,"new":2}]'::jsonb)`
        yield* admin.client.tuning.patch({
          payload: { scope: "daily_mix", changes: { taste_weight: 2, novelty_weight: 0.5 } },
        })
        const [latest] = yield* admin.client.tuning.audit()

        const recent = yield* trends()
        expect(recent.markers).toHaveLength(1)
        expect(recent.markers[0]).toEqual({
          audit_id: latest!.id,
          scope: "daily_mix",
          week: isoWeekOf(Date.now()),
          changed_at: latest!.changed_at,
          fields: ["taste_weight", "novelty_weight"],
        })
        const wide = yield* trends(52)
        expect(wide.markers.map((marker) => marker.scope)).toEqual(["taste", "daily_mix"]) // oldest first
        expect(wide.markers[0]).toMatchObject({
          week: isoWeekOf(twentyWeeksAgo.getTime()),
          fields: ["half_life_days"],
        })
        yield* admin.client.tuning.reset({ payload: { scope: "daily_mix" } })
      }),
    )

    it.effect("rows carry rates only: no user, track or artist identity in the response", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const { alice, bob, artistA, artistB, trackIds } = yield* handMadePlays
        const response = yield* raw("GET", `${TRENDS}?weeks=52`, { token: admin.token })
        expect(response.status).toBe(200)
        for (const id of [admin.user.id, alice.user.id, bob.user.id, artistA, artistB, ...trackIds])
          expect(response.text).not.toContain(id)
        for (const series of (response.json as { series: Array<{ points: Array<object> }> }).series)
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
      }),
    )

    it.effect("share of first listens and intra-list diversity per family and week, from the stored plays", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM play_events`
        const alice = yield* aUser("alice")
        const bob = yield* aUser("bob")
        const [artistA, artistB, t1, t2, t3, t4] = Array.from({ length: 6 }, () => randomUUID())
        const play = (user: SignedIn, track: string, artist: string, at: Date, source: string) =>
          sql`
            INSERT INTO play_events (user_id, track_id, artist_id, client_id, started_at, ended_at, duration_played_ms,
              track_duration_ms, skipped, completion, source, created_at)
            VALUES (${user.user.id}, ${track}, ${artist}, 'test', ${at}, ${at}, 1000, 100000, false, 1, ${source}, ${at})`
        // Before the window: Alice's first play of t1, so t1 in week 10 is a repeat.
        yield* play(alice, t1!, artistA!, inWeek(0, -3), "for_you")
        // Week 10, discovery: Alice t1 (repeat), t2 (first), t3 (first) by A, A, B; Bob t1 twice (first, repeat).
        yield* play(alice, t1!, artistA!, inWeek(10, 1), "for_you")
        yield* play(alice, t2!, artistA!, inWeek(10, 2), "discover")
        yield* play(alice, t3!, artistB!, inWeek(10, 3), "for_you")
        yield* play(bob, t1!, artistA!, inWeek(10, 1), "discover")
        yield* play(bob, t1!, artistA!, inWeek(10, 2), "discover")
        // Week 11, go-to: Bob t4 (first).
        yield* play(bob, t4!, artistB!, inWeek(11, 1), "daily_mix:1")
        const result = yield* trends()
        const discovery = pointOf(result, "discovery", 10)
        expect(discovery.plays).toBe(5)
        expect(discovery.first_listen_share).toBeCloseTo(3 / 5, 12)
        // Alice's list t1 t2 t3 (A A B): 2/3; Bob's list is one track: no list
        expect(discovery.intra_list_diversity).toBeCloseTo(2 / 3, 12)
        expect(pointOf(result, "go_to", 11)).toMatchObject({ first_listen_share: 1, intra_list_diversity: null })
      }),
    )

    it.effect("a non-admin is 403 forbidden and an anonymous caller 401", () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const listener = yield* raw("GET", TRENDS, { token: alice.token })
        expect(listener.status).toBe(403)
        expect((listener.json as { error: { code: string } }).error.code).toBe("forbidden")
        expect((yield* raw("GET", TRENDS)).status).toBe(401)
      }),
    )
  },
)
