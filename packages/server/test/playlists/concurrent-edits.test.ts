import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { type PlaylistEntryId, TrackId } from "@tonearm/core"
import { Effect, Either, Layer, Logger, LogLevel } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { callJson, withToken } from "../subsonic/support.js"
import { fixtureLibrary } from "../support/library.js"
import { rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 2: edits of one playlist never race. 16 sessions of the owner append, insert, remove and reorder
 * at once (and Subsonic apps add with updatePlaylist): no 5xx, no deadlock, no acknowledged change lost or undone,
 * positions always 0..n-1.
 */
const { root } = await fixtureLibrary()

const ROUNDS = 5

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("concurrent playlist edits", (it) => {
  it.effect("16 sessions appending, inserting, removing and reordering one playlist lose nothing", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const owner = yield* aUser("hana")
      const tracks = (yield* sql<{ id: string }>`SELECT id FROM tracks ORDER BY id LIMIT 8`).map((row) =>
        TrackId.make(row.id),
      )
      const initial = Array.from({ length: 24 }, (_, i) => tracks[i % tracks.length]!)
      const created = yield* owner.client.playlists.create({ payload: { name: "Shared Mix", track_ids: initial } })
      const id = created.id
      const initialEntries = created.tracks.map((entry) => entry.entry_id)
      // Each remover owns 3 entries of the initial 24, so every acknowledged removal must stick.
      const toRemove = initialEntries.slice(0, 12)
      const password = (yield* rawJson("POST", "/api/me/subsonic-password", {}, owner.token)).json as {
        password: string
      }
      const subsonic = withToken(owner.user.username, password.password)

      const serverErrors: Array<string> = []
      const attempt = <A, E>(label: string, call: Effect.Effect<A, E>) =>
        Effect.map(Effect.either(call), (result) => {
          if (Either.isLeft(result)) {
            const tag = (result.left as { _tag?: string })._tag ?? String(result.left)
            if (tag !== "InvalidRequest") serverErrors.push(`${label}: ${tag}`)
          }
          return Either.isRight(result)
        })

      const appender = (i: number) =>
        Effect.forEach(Array.from({ length: ROUNDS }), () =>
          attempt(
            "append",
            owner.client.playlists.addTracks({ path: { id }, payload: { track_ids: [tracks[i % 8]!] } }),
          ),
        )
      const inserter = (i: number) =>
        Effect.forEach(Array.from({ length: ROUNDS }), () =>
          attempt(
            "insert",
            owner.client.playlists.addTracks({ path: { id }, payload: { track_ids: [tracks[i % 8]!], position: 0 } }),
          ),
        )
      const remover = (i: number) =>
        Effect.forEach(toRemove.slice(i * 3, i * 3 + 3), (entry) =>
          attempt(
            "remove",
            owner.client.playlists.removeEntries({ path: { id }, payload: { entry_ids: [entry as PlaylistEntryId] } }),
          ),
        )
      // A reorder names every entry: one that raced another edit is refused with 400, never half-applied.
      const reorderer = () =>
        Effect.forEach(Array.from({ length: ROUNDS }), () =>
          Effect.flatMap(owner.client.playlists.get({ path: { id } }), (detail) =>
            attempt(
              "reorder",
              owner.client.playlists.reorder({
                path: { id },
                payload: { entry_ids: detail.tracks.map((entry) => entry.entry_id).reverse() },
              }),
            ),
          ),
        )
      const subsonicAdder = (i: number) =>
        Effect.forEach(Array.from({ length: ROUNDS }), () =>
          Effect.map(
            callJson("updatePlaylist", { playlistId: id, songIdToAdd: tracks[i % 8]! }, subsonic),
            ({ http, body }) => {
              if (http.status >= 500 || body.status !== "ok")
                serverErrors.push(`updatePlaylist: ${http.status} ${JSON.stringify(body.error)}`)
              return body.status === "ok"
            },
          ),
        )

      const started = performance.now()
      const results = yield* Effect.all(
        [
          ...[0, 1, 2, 3, 4, 5].map(appender),
          ...[0, 1].map(inserter),
          ...[0, 1, 2, 3].map(remover),
          reorderer(),
          reorderer(),
          ...[0, 1].map(subsonicAdder),
        ],
        { concurrency: "unbounded" },
      )
      const ms = performance.now() - started
      expect(serverErrors).toEqual([])
      const [appends, inserts, removes] = [
        results.slice(0, 6).flat(),
        results.slice(6, 8).flat(),
        results.slice(8, 12).flat(),
      ]
      const subsonicAdds = results.slice(14).flat()
      expect(appends.every(Boolean)).toBe(true)
      expect(inserts.every(Boolean)).toBe(true)
      expect(removes.every(Boolean)).toBe(true)
      expect(subsonicAdds.every(Boolean)).toBe(true)

      const rows = yield* sql<{ id: string; position: number }>`
        SELECT id, position FROM playlist_tracks WHERE playlist_id = ${id} ORDER BY position`
      // Every acknowledged add is there, every acknowledged removal stuck, and nothing else changed the count.
      expect(rows).toHaveLength(24 - 12 + 6 * ROUNDS + 2 * ROUNDS + 2 * ROUNDS)
      expect(rows.map((row) => row.position)).toEqual(rows.map((_, i) => i))
      const present = new Set(rows.map((row) => row.id))
      expect(toRemove.filter((entry) => present.has(entry))).toEqual([])
      expect(initialEntries.slice(12).every((entry) => present.has(entry))).toBe(true)
      yield* Effect.logInfo(
        `concurrent playlist edits: ${results.flat().length} edits by 16 sessions in ${Math.round(ms)} ms`,
      ).pipe(Logger.withMinimumLogLevel(LogLevel.Info)) // the figure is the point: printed despite quiet logs
    }),
  )
})
