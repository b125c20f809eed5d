import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type PlaylistId, type SmartRules, TrackId, type UserId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { RebuildScheduler } from "../../src/recommendations/RebuildScheduler.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { callJson, withToken } from "../subsonic/support.js"
import { fixtureLibrary } from "../support/library.js"
import { rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Smart playlists (issue 28 item 5): rules → SQL against the scanned fixture library (real audio), compared with
 * what the database says directly; another user's id; bad input; the Subsonic view; the nightly refresh.
 */
const { root } = await fixtureLibrary()

const rules = (partial: Partial<SmartRules> & Pick<SmartRules, "conditions">): SmartRules => ({
  match: "all",
  sort: { field: "title", order: "asc" },
  limit: 500,
  ...partial,
})

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id).sort()

const playAt = (user: UserId, track: string, ago: string, skipped = false) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
        duration_played_ms, track_duration_ms, skipped, completion, created_at)
      SELECT ${user}, id, artist_id, album_id, 'test', now() - ${ago}::interval, now() - ${ago}::interval + interval '1 second',
             duration_ms, duration_ms, ${skipped}, 1, now()
      FROM tracks WHERE id = ${track}`,
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("smart playlists", (it) => {
  it.effect("rules on genre, format, year and artist select exactly the tracks the library says", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* aUser("smart")
      const evaluate = (r: SmartRules) =>
        Effect.map(owner.client.smartPlaylists.create({ payload: { name: "Mix", rules: r } }), (made) =>
          made.playlist.tracks.map((entry) => entry.track.id as string).sort(),
        )

      const rock = ids(
        yield* sql<{ id: string }>`SELECT DISTINCT track_id AS id FROM track_genres WHERE lower(genre) = 'rock'`,
      )
      expect(rock.length).toBeGreaterThan(1)
      expect(yield* evaluate(rules({ conditions: [{ field: "genre", op: "is", value: "ROCK" }] }))).toEqual(rock)

      const notRock = ids(
        yield* sql<{ id: string }>`
        SELECT id FROM tracks t WHERE NOT EXISTS (SELECT 1 FROM track_genres g WHERE g.track_id = t.id AND lower(g.genre) = 'rock')`,
      )
      expect(yield* evaluate(rules({ conditions: [{ field: "genre", op: "is_not", value: "rock" }] }))).toEqual(notRock)

      const flacOrWav = ids(yield* sql<{ id: string }>`SELECT id FROM tracks WHERE file_format IN ('flac', 'wav')`)
      expect(flacOrWav.length).toBeGreaterThan(1)
      expect(
        yield* evaluate(
          rules({
            match: "any",
            conditions: [
              { field: "format", op: "is", value: "flac" },
              { field: "format", op: "is", value: "WAV" },
            ],
          }),
        ),
      ).toEqual(flacOrWav)

      const years = yield* sql<{
        y: number
      }>`SELECT DISTINCT al.year AS y FROM tracks t JOIN albums al ON al.id = t.album_id WHERE al.year > 0 ORDER BY 1`
      expect(years.length).toBeGreaterThan(1)
      const from = years[0]!.y
      const to = years[Math.floor(years.length / 2)]!.y
      const inRange = ids(
        yield* sql<{ id: string }>`
        SELECT t.id FROM tracks t JOIN albums al ON al.id = t.album_id WHERE al.year BETWEEN ${from} AND ${to}`,
      )
      expect(yield* evaluate(rules({ conditions: [{ field: "year", op: "in_range", value: { from, to } }] }))).toEqual(
        inRange,
      )

      // all: both conditions hold
      const rockFromFlacOrWav = rock.filter((id) => flacOrWav.includes(id))
      const both = yield* evaluate(
        rules({
          conditions: [
            { field: "genre", op: "contains", value: "roc" },
            { field: "format", op: "is_not", value: "mp3" },
          ],
        }),
      )
      const rockNotMp3 = ids(
        yield* sql<{ id: string }>`
        SELECT DISTINCT t.id FROM tracks t JOIN track_genres g ON g.track_id = t.id
        WHERE g.genre ILIKE '%roc%' AND lower(t.file_format) <> 'mp3'`,
      )
      expect(both).toEqual(rockNotMp3)
      expect(rockFromFlacOrWav.every((id) => both.includes(id))).toBe(true)

      const artist = (yield* sql<{
        name: string
      }>`SELECT ar.name FROM tracks t JOIN artists ar ON ar.id = t.artist_id ORDER BY t.path LIMIT 1`)[0]!.name
      const byArtist = ids(
        yield* sql<{
          id: string
        }>`SELECT t.id FROM tracks t JOIN artists ar ON ar.id = t.artist_id WHERE ar.name = ${artist}`,
      )
      expect(yield* evaluate(rules({ conditions: [{ field: "artist", op: "is", value: artist }] }))).toEqual(byArtist)

      // `contains` is literal: LIKE's wildcards and a quote in the value match themselves, nothing more.
      expect(yield* evaluate(rules({ conditions: [{ field: "artist", op: "contains", value: "%" }] }))).toEqual([])
      expect(yield* evaluate(rules({ conditions: [{ field: "genre", op: "is", value: "x' OR '1'='1" }] }))).toEqual([])
    }),
  )

  it.effect("play count, last played, liked and rating read the owner's own listening, not another user's", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* aUser("smart")
      const other = yield* aUser("smart")
      const tracks = (yield* sql<{ id: string }>`SELECT id FROM tracks ORDER BY path LIMIT 4`).map((row) => row.id)
      const [a, b, c, d] = tracks as [string, string, string, string]
      yield* playAt(owner.user.id, a, "1 day")
      yield* playAt(owner.user.id, a, "2 days")
      yield* playAt(owner.user.id, a, "3 days", true)
      yield* playAt(owner.user.id, b, "40 days")
      for (let i = 0; i < 5; i++) yield* playAt(other.user.id, c, "1 day")
      yield* owner.client.likes.likeTrack({ path: { id: TrackId.make(c) } })
      yield* other.client.likes.likeTrack({ path: { id: TrackId.make(d) } })
      yield* sql`INSERT INTO ratings (user_id, entity, entity_id, rating, rated_at)
                 VALUES (${owner.user.id}, 'track', ${d}, 5, now()), (${other.user.id}, 'track', ${a}, 5, now())`

      const evaluate = (r: SmartRules) =>
        Effect.map(owner.client.smartPlaylists.create({ payload: { name: "Mine", rules: r } }), (made) =>
          made.playlist.tracks.map((entry) => entry.track.id as string),
        )
      // Skipped plays do not count: a has 2, b has 1, c has none of the owner's.
      expect((yield* evaluate(rules({ conditions: [{ field: "play_count", op: "gt", value: 1 }] }))).sort()).toEqual([
        a,
      ])
      expect((yield* evaluate(rules({ conditions: [{ field: "play_count", op: "is", value: 1 }] }))).sort()).toEqual([
        b,
      ])
      expect(
        (yield* evaluate(rules({ conditions: [{ field: "last_played", op: "in_last_days", value: 30 }] }))).sort(),
      ).toEqual([a])
      const stale = yield* evaluate(
        rules({ conditions: [{ field: "last_played", op: "not_in_last_days", value: 30 }] }),
      )
      expect(stale).toContain(b)
      expect(stale).toContain(c)
      expect(stale).not.toContain(a)
      expect(yield* evaluate(rules({ conditions: [{ field: "liked", op: "is", value: true }] }))).toEqual([c])
      expect(yield* evaluate(rules({ conditions: [{ field: "rating", op: "gt", value: 3 }] }))).toEqual([d])
      // Sorted by play count, most first, limited to 2.
      expect(
        yield* evaluate(rules({ conditions: [], sort: { field: "play_count", order: "desc" }, limit: 2 })),
      ).toEqual([a, b])
    }),
  )

  it.effect("sort and limit: the first `limit` tracks in order; preview counts before the limit", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* aUser("smart")
      const all = yield* sql<{ id: string; title: string }>`SELECT id, title FROM tracks ORDER BY lower(title), id`
      const r = rules({ conditions: [], sort: { field: "title", order: "asc" }, limit: 3 })
      const made = yield* owner.client.smartPlaylists.create({ payload: { name: "First three", rules: r } })
      expect(made.playlist.tracks.map((entry) => entry.track.id)).toEqual(all.slice(0, 3).map((row) => row.id))
      expect(made.playlist.tracks.map((entry) => entry.position)).toEqual([0, 1, 2])
      const preview = yield* owner.client.smartPlaylists.preview({ payload: { rules: r } })
      expect(preview).toMatchObject({ matching: all.length, count: 3 })
      const random = yield* owner.client.smartPlaylists.create({
        payload: { name: "Random", rules: { ...r, sort: { field: "random", order: "asc" }, limit: 500 } },
      })
      expect(random.playlist.tracks.map((entry) => entry.track.id as string).sort()).toEqual(ids(all))
    }),
  )

  it.effect("quarantined and missing tracks are left out as in other lists", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* aUser("smart")
      const other = yield* aUser("smart")
      const [flagged, missing] = yield* sql<{ id: string }>`SELECT id FROM tracks ORDER BY path LIMIT 2`
      const present = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tracks`)[0]!.n
      yield* sql`INSERT INTO quarantine (track_id, user_id, track_title, album_title, artist_name, created_at)
                 VALUES (${flagged!.id}, ${owner.user.id}, 't', 'a', 'r', now())`
      yield* sql`UPDATE indexed_tracks SET missing_since = now() WHERE id = ${missing!.id}`
      const everything = rules({ conditions: [] })
      const made = yield* Effect.ensuring(
        Effect.all([
          owner.client.smartPlaylists.create({ payload: { name: "Everything", rules: everything } }),
          other.client.smartPlaylists.create({ payload: { name: "Everything", rules: everything } }),
        ]),
        sql`UPDATE indexed_tracks SET missing_since = NULL WHERE id = ${missing!.id}`.pipe(Effect.orDie),
      )
      const listed = made[0].playlist.tracks.map((entry) => entry.track.id as string)
      expect(listed).not.toContain(flagged!.id)
      expect(listed).not.toContain(missing!.id)
      expect(listed.length).toBe(present - 2)
      // Another user's flag hides nothing from them.
      const theirs = made[1].playlist.tracks.map((entry) => entry.track.id as string)
      expect(theirs).toContain(flagged!.id)
      expect(theirs.length).toBe(present - 1)
    }),
  )

  it.effect("another user's smart playlist is 404 everywhere; its entries are read-only (409)", () =>
    Effect.gen(function* () {
      const owner = yield* aUser("smart")
      const intruder = yield* aUser("smart")
      const made = yield* owner.client.smartPlaylists.create({
        payload: { name: "Private", rules: rules({ conditions: [], limit: 2 }) },
      })
      const path = `/api/smart-playlists/${made.id}`
      for (const [method, url, body] of [
        ["GET", path, undefined],
        ["PUT", path, { rules: rules({ conditions: [] }) }],
        ["POST", `${path}/refresh`, {}],
        ["GET", `/api/playlists/${made.id}`, undefined],
      ] as const) {
        const answer = yield* rawJson(method, url, body, intruder.token)
        expect(answer.status, `${method} ${url}`).toBe(404)
        expect(answer.json).toMatchObject({ error: { code: "not_found" } })
      }
      // An ordinary playlist's id is not a smart playlist.
      const plain = yield* owner.client.playlists.create({ payload: { name: "Plain" } })
      expect((yield* rawJson("GET", `/api/smart-playlists/${plain.id}`, undefined, owner.token)).status).toBe(404)
      // The owner cannot edit the entries: the server fills them.
      const track = made.playlist.tracks[0]!.track.id
      const add = yield* rawJson("POST", `/api/playlists/${made.id}/tracks`, { track_ids: [track] }, owner.token)
      expect(add.status).toBe(409)
      expect(add.json).toMatchObject({ error: { code: "conflict" } })
      const remove = yield* rawJson(
        "DELETE",
        `/api/playlists/${made.id}/tracks`,
        { entry_ids: [made.playlist.tracks[0]!.entry_id] },
        owner.token,
      )
      expect(remove.status).toBe(409)
      // The owner can rename and delete it as any playlist of theirs; its rules go with it.
      expect((yield* rawJson("PATCH", `/api/playlists/${made.id}`, { name: "Renamed" }, owner.token)).status).toBe(200)
      expect((yield* owner.client.smartPlaylists.get({ path: { id: made.id } })).playlist.name).toBe("Renamed")
      expect((yield* rawJson("DELETE", `/api/playlists/${made.id}`, undefined, owner.token)).status).toBe(204)
      expect((yield* rawJson("GET", path, undefined, owner.token)).status).toBe(404)
    }),
  )

  it.effect("bad rules answer 400 with the error envelope, never a 500", () =>
    Effect.gen(function* () {
      const owner = yield* aUser("smart")
      const good = rules({ conditions: [{ field: "genre", op: "is", value: "Rock" }] })
      const bad: ReadonlyArray<unknown> = [
        { ...good, extra: 1 },
        { ...good, conditions: [{ field: "genre", op: "is", value: "Rock", typo: true }] },
        { ...good, conditions: [{ field: "colour", op: "is", value: "red" }] },
        { ...good, conditions: [{ field: "year", op: "in_range", value: { from: 2000, to: 1990 } }] },
        { ...good, conditions: [{ field: "year", op: "contains", value: 1990 }] },
        { ...good, conditions: [{ field: "rating", op: "gt", value: 9 }] },
        { ...good, conditions: [{ field: "added", op: "in_last_days", value: 0 }] },
        { ...good, conditions: [{ field: "genre", op: "is", value: "" }] },
        { ...good, limit: 0 },
        { ...good, limit: 100_000 },
        { ...good, sort: { field: "mood", order: "asc" } },
        { ...good, match: "some" },
      ]
      for (const candidate of bad) {
        for (const [url, body] of [
          ["/api/smart-playlists", { name: "Bad", rules: candidate }],
          ["/api/smart-playlists/preview", { rules: candidate }],
        ] as const) {
          const answer = yield* rawJson("POST", url, body, owner.token)
          expect(answer.status, JSON.stringify(candidate)).toBe(400)
          expect(answer.json).toMatchObject({ error: { code: "invalid_request" } })
        }
      }
      expect((yield* owner.client.smartPlaylists.list()).length).toBe(0)
      const notAnId = yield* rawJson("GET", "/api/smart-playlists/not-a-uuid", undefined, owner.token)
      expect(notAnId.status).toBe(400)
    }),
  )

  it.effect("Subsonic apps see a smart playlist as an ordinary read-only playlist; updatePlaylist is refused", () =>
    Effect.gen(function* () {
      const owner = yield* aUser("smart")
      const made = yield* owner.client.smartPlaylists.create({
        payload: { name: "Subsonic Mix", rules: rules({ conditions: [], limit: 3 }) },
      })
      const password = (yield* rawJson("POST", "/api/me/subsonic-password", {}, owner.token)).json as {
        password: string
      }
      const auth = withToken(owner.user.username, password.password)
      const listed = yield* callJson("getPlaylists", {}, auth)
      const playlists = (
        listed.body.playlists as { playlist: Array<{ id: string; readonly: boolean; songCount: number }> }
      ).playlist
      expect(playlists.find((p) => p.id === made.id)).toMatchObject({ readonly: true, songCount: 3 })
      const one = yield* callJson("getPlaylist", { id: made.id }, auth)
      const entries = (one.body.playlist as { entry: Array<{ id: string }> }).entry
      expect(entries.map((entry) => entry.id)).toEqual(made.playlist.tracks.map((entry) => entry.track.id))
      const update = yield* callJson("updatePlaylist", { playlistId: made.id, name: "Hijack" }, auth)
      expect(update.body.status).toBe("failed")
      expect(update.body.error?.code).toBe(50)
      const replace = yield* callJson("createPlaylist", { playlistId: made.id, songId: entries[0]!.id }, auth)
      expect(replace.body.status).toBe("failed")
      expect((yield* owner.client.smartPlaylists.get({ path: { id: made.id } })).playlist.name).toBe("Subsonic Mix")
    }),
  )

  it.effect("refresh and the nightly run evaluate the rules again; entries that stay keep their ids", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* aUser("smart")
      const [first, second] = (yield* sql<{ id: string }>`SELECT id FROM tracks ORDER BY path LIMIT 2`).map((row) =>
        TrackId.make(row.id),
      )
      yield* owner.client.likes.likeTrack({ path: { id: first! } })
      const made = yield* owner.client.smartPlaylists.create({
        payload: { name: "Liked", rules: rules({ conditions: [{ field: "liked", op: "is", value: true }] }) },
      })
      expect(made.playlist.tracks.map((entry) => entry.track.id)).toEqual([first])
      const firstEntry = made.playlist.tracks[0]!.entry_id

      yield* owner.client.likes.likeTrack({ path: { id: second! } })
      const refreshed = yield* owner.client.smartPlaylists.refresh({ path: { id: made.id } })
      expect(refreshed.playlist.tracks.map((entry) => entry.track.id).sort()).toEqual([first, second].sort())
      expect(refreshed.playlist.tracks.find((entry) => entry.track.id === first)!.entry_id).toBe(firstEntry)

      // The nightly run (the user's daily job) refreshes every smart playlist of the user.
      yield* owner.client.likes.unlikeTrack({ path: { id: first! } })
      yield* sql`UPDATE rebuild_jobs SET next_run_at = now() + interval '6 hours'`
      yield* sql`UPDATE rebuild_jobs SET next_run_at = now() - interval '1 hour' WHERE user_id = ${owner.user.id}`
      const ran = yield* (yield* RebuildScheduler).runDue()
      expect(ran).toContain(owner.user.id)
      const nightly = yield* owner.client.smartPlaylists.get({ path: { id: made.id as PlaylistId } })
      expect(nightly.playlist.tracks.map((entry) => entry.track.id)).toEqual([second])
      expect(new Date(nightly.refreshed_at.epochMillis).getTime()).toBeGreaterThanOrEqual(
        new Date(refreshed.refreshed_at.epochMillis).getTime(),
      )
      const summaries = yield* owner.client.smartPlaylists.list()
      expect(summaries.map((s) => [s.id, s.track_count])).toEqual([[made.id, 1]])

      // New rules on save: evaluated at once.
      const saved = yield* owner.client.smartPlaylists.update({
        path: { id: made.id },
        payload: { name: "Liked or not", rules: rules({ conditions: [], limit: 4 }) },
      })
      expect(saved.playlist.tracks.length).toBe(4)
      expect(saved.playlist.name).toBe("Liked or not")
      expect(saved.rules.limit).toBe(4)
    }),
  )
})
