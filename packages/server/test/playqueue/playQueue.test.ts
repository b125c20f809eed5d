import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { PLAY_QUEUE_MAX_TRACKS, TrackId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { ok, onceOk, withPassword } from "../subsonic/support.js"
import { PASSWORD, type SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

/** Every track id in path order (read-only); the fixture library has at least three. */
const trackIds = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ id: string }>`SELECT id::text AS id FROM tracks ORDER BY path`, (rows) => rows.map((row) => row.id)),
)

/** A fresh listener with a saved queue of two tracks, the second playing. */
const aliceWithQueue = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  const ids = yield* trackIds
  yield* alice.client.playQueue.save({
    payload: { track_ids: [TrackId.make(ids[0]!), TrackId.make(ids[1]!)], current_index: 1, position_ms: 5000 },
  })
  return { alice, ids }
})

const subsonicAuth = (who: SignedIn) => withPassword(who.user.username, PASSWORD)
const UNKNOWN = "00000000-0000-4000-8000-000000000000"
// biome-ignore lint/suspicious/noExplicitAny: Subsonic answers are schema-checked in support.ts; read loosely here
type Json = Record<string, any>

const expectEnvelope = (answer: { status: number; json: unknown }, status: number, code: string) => {
  expect(answer.status).toBe(status)
  expect(answer.json).toMatchObject({ error: { code, message: expect.any(String) } })
}

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("play queue (GET/PUT /api/me/play-queue)", (it) => {
  it.scoped("nothing saved yet: an empty queue, not an error; without a session 401 in the envelope", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const ids = yield* trackIds
      expect(ids.length).toBeGreaterThanOrEqual(3)
      const empty = yield* raw("GET", "/api/me/play-queue", { token: alice.token })
      expect(empty.status).toBe(200)
      expect(empty.json).toEqual({
        tracks: [],
        current_index: null,
        position_ms: 0,
        source: null,
        changed_at: null,
        changed_by: null,
      })
      expectEnvelope(yield* raw("GET", "/api/me/play-queue"), 401, "unauthenticated")
      expectEnvelope(yield* rawJson("PUT", "/api/me/play-queue", { track_ids: [ids[0]] }), 401, "unauthenticated")
    }),
  )

  it.scoped(
    "a saved queue reads back in order with its exact current entry (a song queued twice), position and source",
    () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const ids = yield* trackIds
        const queued = [ids[0]!, ids[1]!, ids[0]!, ids[2]!].map((id) => TrackId.make(id))
        const saved = yield* alice.client.playQueue.save({
          payload: {
            track_ids: queued,
            current_index: 2,
            position_ms: 61_500,
            source: "album:x",
            changed_by: "Web",
          },
        })
        const read = yield* alice.client.playQueue.get()
        expect(read).toEqual(saved)
        expect(read.tracks.map((track) => track.id)).toEqual(queued)
        expect(read).toMatchObject({ current_index: 2, position_ms: 61_500, source: "album:x", changed_by: "Web" })
        expect(read.changed_at).not.toBeNull()
        // The wire shape: snake_case keys, an RFC 3339 instant.
        const wire = (yield* raw("GET", "/api/me/play-queue", { token: alice.token })).json as Json
        expect(Object.keys(wire).sort()).toEqual(
          ["changed_at", "changed_by", "current_index", "position_ms", "source", "tracks"].sort(),
        )
        expect(wire.changed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/)
      }),
  )

  it.scoped("bad input is 400 invalid_request in the envelope and leaves the saved queue as it was", () =>
    Effect.gen(function* () {
      const { alice, ids } = yield* aliceWithQueue
      const before = (yield* raw("GET", "/api/me/play-queue", { token: alice.token })).json
      expect((before as Json).tracks).toHaveLength(2)
      const put = (body: unknown) => rawJson("PUT", "/api/me/play-queue", body, alice.token)
      expectEnvelope(yield* put({ track_ids: ["not-a-uuid"] }), 400, "invalid_request")
      expectEnvelope(yield* put({ track_ids: [ids[0]], current_index: 1 }), 400, "invalid_request")
      expectEnvelope(yield* put({ track_ids: [ids[0]], current_index: -1 }), 400, "invalid_request")
      expectEnvelope(yield* put({ track_ids: [ids[0]], position_ms: -5 }), 400, "invalid_request")
      expectEnvelope(yield* put({ track_ids: [ids[0]], position_ms: 1.5 }), 400, "invalid_request")
      expectEnvelope(yield* put({}), 400, "invalid_request")
      const tooMany = Array.from({ length: PLAY_QUEUE_MAX_TRACKS + 1 }, () => ids[0])
      expectEnvelope(yield* put({ track_ids: tooMany }), 400, "invalid_request")
      expect((yield* raw("GET", "/api/me/play-queue", { token: alice.token })).json).toEqual(before)
    }),
  )

  it.scoped("unknown track ids are dropped and the current entry follows the kept ones", () =>
    Effect.gen(function* () {
      const bob = yield* aUser("bob")
      const ids = yield* trackIds
      const put = (body: unknown) =>
        Effect.map(rawJson("PUT", "/api/me/play-queue", body, bob.token), (answer) => answer.json as Json)
      const kept = yield* put({ track_ids: [UNKNOWN, ids[1], UNKNOWN, ids[2]], current_index: 3, position_ms: 9000 })
      expect(kept.tracks.map((track: Json) => track.id)).toEqual([ids[1], ids[2]])
      expect(kept).toMatchObject({ current_index: 1, position_ms: 9000, changed_by: "tonearm" })
      // The playing track itself is unknown: resume at the next kept entry, from its start.
      const moved = yield* put({ track_ids: [ids[0], UNKNOWN, ids[2]], current_index: 1, position_ms: 9000 })
      expect(moved).toMatchObject({ current_index: 1, position_ms: 0 })
      expect(moved.tracks.map((track: Json) => track.id)).toEqual([ids[0], ids[2]])
      // Nothing known: the queue is cleared.
      expect(yield* put({ track_ids: [UNKNOWN], current_index: 0 })).toMatchObject({
        tracks: [],
        current_index: null,
      })
    }),
  )

  it.scoped("per user: another user's save never shows in, nor changes, one's own queue", () =>
    Effect.gen(function* () {
      const { alice, ids } = yield* aliceWithQueue
      const bob = yield* aUser("bob")
      const aliceBefore = yield* alice.client.playQueue.get()
      expect(aliceBefore.tracks).toHaveLength(2)
      yield* bob.client.playQueue.save({ payload: { track_ids: [TrackId.make(ids[2]!)], current_index: 0 } })
      expect((yield* bob.client.playQueue.get()).tracks.map((track) => track.id)).toEqual([ids[2]])
      expect(yield* alice.client.playQueue.get()).toEqual(aliceBefore)
      yield* bob.client.playQueue.save({ payload: { track_ids: [] } })
      expect((yield* bob.client.playQueue.get()).tracks).toEqual([])
      expect(yield* alice.client.playQueue.get()).toEqual(aliceBefore)
    }),
  )

  it.scoped("a queue saved by a Subsonic app reads through the JSON route, with its current song and position", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const ids = yield* trackIds
      const A = subsonicAuth(alice)
      yield* onceOk(
        "savePlayQueue",
        { id: [ids[2]!, ids[1]!, ids[0]!], current: ids[1]!, position: 4200, c: "Symfonium" },
        A,
      )
      const read = yield* alice.client.playQueue.get()
      expect(read.tracks.map((track) => track.id)).toEqual([ids[2], ids[1], ids[0]])
      expect(read).toMatchObject({ current_index: 1, position_ms: 4200, source: null, changed_by: "Symfonium" })
    }),
  )

  it.scoped("a queue saved through the JSON route resumes in a Subsonic app, with its current song and position", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const ids = yield* trackIds
      yield* alice.client.playQueue.save({
        payload: {
          track_ids: [ids[0]!, ids[2]!].map((id) => TrackId.make(id)),
          current_index: 1,
          position_ms: 73_000,
          changed_by: "Tonearm Web",
        },
      })
      const queue = (yield* ok("getPlayQueue", {}, subsonicAuth(alice))).playQueue as Json
      expect(queue).toMatchObject({
        current: ids[2],
        position: 73_000,
        username: alice.user.username,
        changedBy: "Tonearm Web",
      })
      expect(queue.entry.map((song: Json) => song.id)).toEqual([ids[0], ids[2]])
      // And a Subsonic clear (savePlayQueue without ids) empties it for the web player too.
      yield* onceOk("savePlayQueue", {}, subsonicAuth(alice))
      expect((yield* alice.client.playQueue.get()).tracks).toEqual([])
    }),
  )
})
