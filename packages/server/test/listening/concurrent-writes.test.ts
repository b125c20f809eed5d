import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type PlayEventId, TrackId } from "@tonearm/core"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { callJson, withPassword } from "../subsonic/support.js"
import { PASSWORD, type SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 2: play-queue saves, likes and the `play_ended` "first end wins" rule are race-free in SQL. Each
 * kind is hammered by 16 clients of one user at once (JSON and Subsonic mixed where both exist).
 */
const { root } = await fixtureLibrary()

const CLIENTS = 16
const ROUNDS = 6

const trackRows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<{ id: string; album_id: string; duration_ms: number }>`
    SELECT id::text AS id, album_id::text AS album_id, duration_ms FROM tracks ORDER BY path`,
)

const subsonicOf = (who: SignedIn) => withPassword(who.user.username, PASSWORD)

const logFigure = (text: string) => Effect.logInfo(text).pipe(Logger.withMinimumLogLevel(LogLevel.Info))

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("concurrent writes of one user", (it) => {
  it.effect(
    "16 players saving the play queue at once: every save answers its own queue, the last one stays",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const owner = yield* aUser("queue")
        const auth = subsonicOf(owner)
        const ids = (yield* trackRows).map((row) => row.id)
        // Client c's queue in round r: a rotation of the library unique to (c, r), named by its changed_by.
        const queueOf = (c: number, r: number) => {
          const shift = (c * ROUNDS + r) % ids.length
          return [...ids.slice(shift), ...ids.slice(0, shift)].slice(0, 2 + ((c + r) % 3))
        }
        const mismatches: Array<string> = []
        const json = (c: number) =>
          Effect.forEach(
            Array.from({ length: ROUNDS }, (_, r) => r),
            (r) =>
              Effect.map(
                owner.client.playQueue.save({
                  payload: {
                    track_ids: queueOf(c, r).map((id) => TrackId.make(id)),
                    current_index: 0,
                    position_ms: 1000 * r,
                    changed_by: `json-${c}-${r}`,
                  },
                }),
                (answer) => {
                  const got = answer.tracks.map((track) => track.id as string)
                  if (answer.changed_by !== `json-${c}-${r}` || got.join() !== queueOf(c, r).join())
                    mismatches.push(`json-${c}-${r} answered ${answer.changed_by}`)
                },
              ),
          )
        const subsonic = (c: number) =>
          Effect.forEach(
            Array.from({ length: ROUNDS }, (_, r) => r),
            (r) =>
              Effect.map(
                callJson(
                  "savePlayQueue",
                  { id: queueOf(c, r), current: queueOf(c, r)[0]!, position: 1000 * r, c: `subsonic-${c}-${r}` },
                  auth,
                ),
                ({ http, body }) => {
                  if (http.status !== 200 || body.status !== "ok") mismatches.push(`subsonic-${c}-${r}: ${http.status}`)
                },
              ),
          )
        const clients = Array.from({ length: CLIENTS }, (_, c) => (c % 3 === 2 ? subsonic(c) : json(c)))
        yield* Effect.all(clients, { concurrency: "unbounded" })
        expect(mismatches).toEqual([])

        // The stored queue is one save, whole: its tracks are the ones its writer sent.
        const [row] = yield* sql<{ track_ids: Array<string>; changed_by: string; current_id: string | null }>`
        SELECT track_ids::text[] AS track_ids, changed_by, current_id::text AS current_id
        FROM subsonic_play_queues WHERE user_id = ${owner.user.id}`
        const [, c, r] = row!.changed_by.split("-").map(Number)
        expect(row!.track_ids).toEqual(queueOf(c!, r!))
        expect(row!.current_id).toBe(queueOf(c!, r!)[0])
        yield* logFigure(`concurrent play-queue saves: ${CLIENTS * ROUNDS} saves by ${CLIENTS} clients`)
      }),
    { timeout: 150_000 },
  )

  it.effect(
    "16 clients liking and unliking at once: the change log's last word is what is stored",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const owner = yield* aUser("likes")
        const auth = subsonicOf(owner)
        const tracks = (yield* trackRows).slice(0, 6).map((row) => row.id)
        const failures: Array<string> = []
        const broken: Array<string> = []
        // Each round, half the clients like six tracks and half unlike them, at once: half through the JSON routes
        // (the six at once), half through Subsonic star/unstar (one call naming the six).
        const toggle = (c: number, round: number) => {
          const like = (c + round) % 2 === 0
          if (c % 4 >= 2)
            return Effect.map(callJson(like ? "star" : "unstar", { id: tracks }, auth), ({ http, body }) => {
              if (http.status !== 200 || body.status !== "ok") failures.push(`star: ${http.status}`)
            })
          return Effect.forEach(
            tracks,
            (track) =>
              Effect.catchAll(
                like
                  ? owner.client.likes.likeTrack({ path: { id: TrackId.make(track) } })
                  : owner.client.likes.unlikeTrack({ path: { id: TrackId.make(track) } }),
                (error) => Effect.sync(() => failures.push(`json ${String(error)}`)),
              ),
            { concurrency: "unbounded" },
          )
        }
        for (let round = 0; round < ROUNDS + 2; round++) {
          yield* Effect.all(
            Array.from({ length: CLIENTS }, (_, c) => toggle(c, round)),
            { concurrency: "unbounded" },
          )
          const liked = new Set(
            (yield* sql<{ entity_id: string }>`
              SELECT entity_id::text AS entity_id FROM likes WHERE user_id = ${owner.user.id} AND entity = 'track'`).map(
              (row) => row.entity_id,
            ),
          )
          const changes = yield* sql<{ entity_id: string; operation: string }>`
            SELECT entity_id::text AS entity_id, operation FROM library_changes
            WHERE entity = 'like_track' AND scope = ${owner.user.id}`
          for (const change of changes)
            if (change.operation !== (liked.has(change.entity_id) ? "upsert" : "delete"))
              broken.push(
                `round ${round}: ${change.entity_id} liked ${liked.has(change.entity_id)}, sync says ${change.operation}`,
              )
        }
        expect(failures).toEqual([])
        expect(broken).toEqual([])
        yield* logFigure(`concurrent likes: ${CLIENTS * (ROUNDS + 2) * tracks.length} toggles by ${CLIENTS} clients`)
      }),
    { timeout: 300_000 },
  )

  it.effect(
    "16 clients ending one play at once: the first end wins, one scrobble or none",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const owner = yield* aUser("ends")
        // A linked scrobbler, so a completed play queues a listen in the same transaction as its end.
        yield* sql`INSERT INTO scrobblers (user_id, provider, enabled, token, updated_at)
                 VALUES (${owner.user.id}, 'listenbrainz', true, 'lb-concurrent-token', now())`
        const tracks = yield* trackRows
        const broken: Array<string> = []
        let requests = 0
        for (const [round, track] of tracks.slice(0, ROUNDS * 2).entries()) {
          const created = yield* owner.client.plays.report({
            payload: { type: "play_started", track_id: TrackId.make(track.id), client_id: `phone-${round}` },
          })
          const id = (created as { play_event_id: PlayEventId }).play_event_id
          // Half report the whole track (a listen), half nothing played (a skip): either may win, never both.
          const played = (c: number) => (c % 2 === 0 ? track.duration_ms : 0)
          yield* Effect.all(
            Array.from({ length: CLIENTS }, (_, c) =>
              owner.client.plays.report({
                payload: { type: "play_ended", play_event_id: id, duration_played_ms: played(c) },
              }),
            ),
            { concurrency: "unbounded" },
          )
          requests += CLIENTS
          const [play] = yield* sql<{ duration_played_ms: number; skipped: boolean }>`
          SELECT duration_played_ms, skipped FROM play_events WHERE id = ${id}`
          const listens = yield* sql`SELECT 1 FROM scrobble_queue WHERE play_event_id = ${id} AND kind = 'listen'`
          const winner = play!.duration_played_ms === track.duration_ms ? "listen" : "skip"
          if (play!.skipped !== (winner === "skip") || listens.length !== (winner === "listen" ? 1 : 0))
            broken.push(`round ${round}: stored ${JSON.stringify(play)}, ${listens.length} listens queued`)
        }
        expect(broken).toEqual([])
        yield* logFigure(`concurrent play ends: ${requests} play_ended by ${CLIENTS} clients`)
      }),
    { timeout: 150_000 },
  )
})
