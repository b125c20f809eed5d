import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ArtistId, type PlayEventId, TrackId } from "@tonearm/core"
import { DateTime, Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

/** The library's first two tracks, set to 100 s (`long`) and 2 s (`short`); idempotent, so every test asks. */
const twoTracks = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const [a, b] = yield* sql<{ id: string }>`SELECT id FROM tracks ORDER BY path LIMIT 2`
  const long = TrackId.make(a!.id)
  const short = TrackId.make(b!.id)
  yield* sql`UPDATE tracks SET duration_ms = 100000 WHERE id = ${long}`
  yield* sql`UPDATE tracks SET duration_ms = 2000 WHERE id = ${short}`
  return { long, short }
})

interface PlayRow {
  readonly ended_at: Date | null
  readonly duration_played_ms: number | null
  readonly skipped: boolean
  readonly completion: number | null
  readonly started_at: Date
  readonly pick_kind: string | null
  readonly device_class: string | null
  readonly source: string | null
}

const playRow = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<PlayRow>`SELECT ended_at, duration_played_ms, skipped, completion, started_at, pick_kind, device_class, source
                   FROM play_events WHERE id = ${id}`,
      (rows) => rows[0]!,
    ),
  )

const start = (
  who: SignedIn,
  track: TrackId,
  extra: { source?: string | null; device_class?: string | null; client_id?: string } = {},
) =>
  Effect.map(
    who.client.plays.report({ payload: { type: "play_started", track_id: track, client_id: "phone-1", ...extra } }),
    (created) => (created as { play_event_id: PlayEventId }).play_event_id,
  )

const end = (who: SignedIn, id: PlayEventId, played: number) =>
  who.client.plays.report({ payload: { type: "play_ended", play_event_id: id, duration_played_ms: played } })

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("play events", (it) => {
  it.effect("play_started answers 201 with play_event_id and stores an open play", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long } = yield* twoTracks
      const [created, response] = yield* alice.client.plays.report({
        payload: { type: "play_started", track_id: long, client_id: "phone-1" },
        withResponse: true,
      })
      expect(response.status).toBe(201)
      const id = (created as { play_event_id: string }).play_event_id
      expect(yield* playRow(id)).toMatchObject({ ended_at: null, duration_played_ms: null, skipped: false })
    }),
  )

  it.effect("opening a new play closes the open one, which counts as a play without completion, not a skip", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long, short } = yield* twoTracks
      const first = yield* start(alice, long)
      const second = yield* start(alice, short)
      const closed = yield* playRow(first)
      expect(closed.ended_at).not.toBeNull()
      expect(closed).toMatchObject({ duration_played_ms: null, skipped: false, completion: null })
      expect((yield* playRow(second)).ended_at).toBeNull()
    }),
  )

  it.effect("the skip rule is an AND: under 30 s and under half the track, at its edges", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long, short } = yield* twoTracks
      const cases: Array<[TrackId, number, boolean]> = [
        [long, 29_999, true], // < 30 s and < 50 s
        [long, 30_000, false], // not < 30 s
        [short, 999, true], // < 30 s and < 1 s
        [short, 1_000, false], // not < half
        [long, 0, true],
      ]
      for (const [track, played, skipped] of cases) {
        const id = yield* start(alice, track)
        const [, response] = yield* alice.client.plays.report({
          payload: { type: "play_ended", play_event_id: id, duration_played_ms: played },
          withResponse: true,
        })
        expect(response.status).toBe(204)
        expect({ track, played, skipped: (yield* playRow(id)).skipped }).toEqual({ track, played, skipped })
      }
    }),
  )

  it.effect("play_ended clamps the played duration to [0, track length] and records completion", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long, short } = yield* twoTracks
      const over = yield* start(alice, short)
      yield* end(alice, over, 9_999_999)
      expect(yield* playRow(over)).toMatchObject({ duration_played_ms: 2000, skipped: false, completion: 1 })
      const under = yield* start(alice, long)
      yield* end(alice, under, -50)
      expect(yield* playRow(under)).toMatchObject({ duration_played_ms: 0, skipped: true, completion: 0 })
    }),
  )

  it.effect("play_skipped marks a skip", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long } = yield* twoTracks
      const id = yield* start(alice, long)
      yield* alice.client.plays.report({ payload: { type: "play_skipped", play_event_id: id, position_ms: 80_000 } })
      expect(yield* playRow(id)).toMatchObject({ skipped: true, duration_played_ms: 80_000 })
    }),
  )

  it.effect("another user's play event id is 404 and the play is untouched", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long } = yield* twoTracks
      const bob = yield* aUser("bob")
      const id = yield* start(alice, long)
      const ended = yield* bob.client.plays
        .report({ payload: { type: "play_ended", play_event_id: id, duration_played_ms: 5 } })
        .pipe(Effect.flip)
      expect(ended._tag).toBe("NotFound")
      const skipped = yield* bob.client.plays
        .report({ payload: { type: "play_skipped", play_event_id: id, position_ms: 5 } })
        .pipe(Effect.flip)
      expect(skipped._tag).toBe("NotFound")
      expect((yield* playRow(id)).ended_at).toBeNull()
    }),
  )

  it.effect("device classes: whitelisted values lower-cased, anything else `other`, empty null", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long } = yield* twoTracks
      const cases: Array<[string | null | undefined, string | null]> = [
        ["Mobile", "mobile"],
        ["SPEAKER", "speaker"],
        ["fridge", "other"],
        ["", null],
        [null, null],
        [undefined, null],
      ]
      for (const [sent, stored] of cases) {
        const id = yield* start(alice, long, sent === undefined ? {} : { device_class: sent })
        expect((yield* playRow(id)).device_class).toBe(stored)
      }
    }),
  )

  it.effect("play_offline writes a complete play; a far-future or before-account `at` is clamped", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long } = yield* twoTracks
      const sql = yield* SqlClient.SqlClient
      const offline = (at: Date, played: number) =>
        Effect.map(
          alice.client.plays.report({
            payload: {
              type: "play_offline",
              track_id: long,
              client_id: "car",
              at: DateTime.unsafeFromDate(at),
              duration_played_ms: played,
            },
          }),
          (created) => (created as { play_event_id: PlayEventId }).play_event_id,
        )
      const [account] = yield* sql<{ created_at: Date }>`SELECT created_at FROM users WHERE id = ${alice.user.id}`
      // Between the account's creation and now: kept as sent.
      const past = new Date(Math.floor((account!.created_at.getTime() + Date.now()) / 2))
      const normal = yield* playRow(yield* offline(past, 60_000))
      expect(normal.started_at.getTime()).toBe(past.getTime())
      expect(normal).toMatchObject({ duration_played_ms: 60_000, skipped: false })
      expect(normal.ended_at!.getTime()).toBe(past.getTime() + 60_000)

      const future = yield* playRow(yield* offline(new Date(Date.now() + 86_400_000 * 365), 10_000))
      expect(future.started_at.getTime()).toBeLessThanOrEqual(Date.now() + 5 * 60_000 + 1000)
      expect(future.started_at.getTime()).toBeGreaterThan(Date.now() + 4 * 60_000)
      expect(future.skipped).toBe(true)

      const ancient = yield* playRow(yield* offline(new Date("1999-01-01T00:00:00Z"), 999_999))
      expect(ancient.started_at.getTime()).toBe(account!.created_at.getTime())
      expect(ancient.duration_played_ms).toBe(100_000) // clamped to the track length
    }),
  )

  it.effect("a system source stamps pick_kind from the user's snapshot and joins the rotation; absent → null", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long, short } = yield* twoTracks
      const bob = yield* aUser("bob")
      const sql = yield* SqlClient.SqlClient
      const [playlist] = yield* sql<{ id: string }>`
        INSERT INTO playlists (owner_id, name, system_variant, created_at, updated_at)
        VALUES (${alice.user.id}, 'For You', 'for_you', now(), now()) RETURNING id`
      yield* sql`
        INSERT INTO playlist_tracks (playlist_id, track_id, position, pick_kind, added_at)
        VALUES (${playlist!.id}, ${long}, 0, 'taste', now())`
      const stamped = yield* playRow(yield* start(alice, long, { source: "for_you" }))
      expect(stamped).toMatchObject({ source: "for_you", pick_kind: "taste" })
      const absent = yield* playRow(yield* start(alice, short, { source: "for_you" }))
      expect(absent.pick_kind).toBeNull()
      const [state] = yield* sql<{ played_track_ids: Array<string> }>`
        SELECT played_track_ids FROM rotation_states WHERE user_id = ${alice.user.id} AND playlist_kind = 'for_you'`
      expect([...state!.played_track_ids].sort()).toEqual([long, short].sort())
      // The set stays unique.
      yield* start(alice, long, { source: "for_you" })
      const [again] = yield* sql<{ played_track_ids: Array<string> }>`
        SELECT played_track_ids FROM rotation_states WHERE user_id = ${alice.user.id} AND playlist_kind = 'for_you'`
      expect(again!.played_track_ids).toHaveLength(2)
      // Not a system source: no pick kind, no rotation.
      const direct = yield* playRow(yield* start(alice, long, { source: `album:${crypto.randomUUID()}` }))
      expect(direct.pick_kind).toBeNull()
      const bobPlay = yield* playRow(yield* start(bob, long, { source: "for_you" }))
      expect(bobPlay.pick_kind).toBeNull() // alice's snapshot is not bob's
    }),
  )

  it.effect("an unknown track is 404; a malformed event is 400 and stores nothing", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long } = yield* twoTracks
      const sql = yield* SqlClient.SqlClient
      const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM play_events WHERE user_id = ${alice.user.id}`
      yield* start(alice, long) // one play stored before, so the count is not trivially zero
      const before = (yield* count)[0]!.n
      const missing = yield* alice.client.plays
        .report({ payload: { type: "play_started", track_id: TrackId.make(crypto.randomUUID()), client_id: "x" } })
        .pipe(Effect.flip)
      expect(missing._tag).toBe("NotFound")
      for (const body of [{ type: "play_paused", track_id: long }, { type: "play_started", track_id: long }, {}]) {
        const response = yield* rawJson("POST", "/api/events", body, alice.token)
        expect(response.status).toBe(400)
      }
      expect((yield* count)[0]!.n).toBe(before)
    }),
  )

  it.effect("listening history is newest first and pages with a cursor", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long, short } = yield* twoTracks
      const bob = yield* aUser("bob")
      // Alice: open, closed and offline plays on another client (nine in all); Bob: one on phone-1.
      for (const track of [long, short, long, short, long]) yield* start(alice, track, { client_id: "car" })
      for (const hoursAgo of [1, 3, 2, 5]) {
        yield* alice.client.plays.report({
          payload: {
            type: "play_offline",
            track_id: short,
            client_id: "car",
            at: DateTime.unsafeFromDate(new Date(Date.now() - hoursAgo * 3_600_000)),
            duration_played_ms: 2000,
          },
        })
      }
      yield* start(bob, long)
      const all = yield* alice.client.plays.history({ urlParams: { limit: 500 } })
      expect(all.items).toHaveLength(9)
      expect(all.cursor).toBeNull()
      const starts = all.items.map((item) => DateTime.toEpochMillis(item.started_at))
      expect(starts).toEqual([...starts].sort((a, b) => b - a))
      const pages: Array<string> = []
      let cursor: string | undefined
      do {
        const page = yield* alice.client.plays.history({ urlParams: { limit: 4, ...(cursor ? { cursor } : {}) } })
        pages.push(...page.items.map((item) => item.id))
        cursor = page.cursor ?? undefined
      } while (cursor !== undefined)
      expect(pages).toEqual(all.items.map((item) => item.id))
      const bobs = (yield* bob.client.plays.history({ urlParams: {} })).items
      expect(bobs).toHaveLength(1)
      expect(bobs.every((item) => item.client_id === "phone-1")).toBe(true)
    }),
  )

  it.effect("top tracks are the caller's most played of the artist, skips excluded", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long } = yield* twoTracks
      const bob = yield* aUser("bob")
      for (const played of [100_000, 60_000]) yield* end(alice, yield* start(alice, long), played)
      yield* end(alice, yield* start(alice, long), 1_000) // a skip
      yield* start(bob, long)
      const sql = yield* SqlClient.SqlClient
      const [artist] = yield* sql<{ artist_id: string }>`SELECT artist_id FROM tracks WHERE id = ${long}`
      const top = yield* alice.client.plays.topTracks({ path: { id: ArtistId.make(artist!.artist_id) } })
      expect(top.tracks.map((track) => track.id)).toContain(long)
      const bobTop = yield* bob.client.plays.topTracks({ path: { id: ArtistId.make(artist!.artist_id) } })
      expect(bobTop.tracks.map((track) => track.id)).toEqual([long]) // bob's one play, open, counts
      const unknown = yield* alice.client.plays
        .topTracks({ path: { id: ArtistId.make(crypto.randomUUID()) } })
        .pipe(Effect.flip)
      expect(unknown._tag).toBe("NotFound")
    }),
  )

  it.effect("per-source metrics: window default 30 days, capped at 365, families and a baseline", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const { long, short } = yield* twoTracks
      // Three discovery plays (for_you) and two without a source (the baseline).
      for (const track of [long, short, long]) yield* start(alice, track, { source: "for_you" })
      for (const track of [short, long]) yield* start(alice, track)
      const metrics = yield* alice.client.recommendations.metrics({ urlParams: {} })
      expect(metrics.window_days).toBe(30)
      expect(metrics.baseline.plays).toBeGreaterThan(0)
      const discovery = metrics.rows.find((row) => row.family === "discovery")
      expect(discovery?.plays).toBeGreaterThanOrEqual(3)
      expect(discovery?.low_confidence).toBe(true)
      expect(discovery!.breakdown.reduce((sum, row) => sum + row.plays, 0)).toBe(discovery!.plays)
      expect((yield* alice.client.recommendations.metrics({ urlParams: { days: 10_000 } })).window_days).toBe(365)
    }),
  )
})
