import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { openSse, type SseConnection } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

/** The library's first track with its album and artist (read-only). */
const firstTrack = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ id: string; album_id: string; artist_id: string }>`
      SELECT id, album_id, artist_id FROM tracks ORDER BY path LIMIT 1`,
    ([row]) => ({ track: row!.id, album: row!.album_id, artist: row!.artist_id }),
  ),
)

/** A fresh listener who likes the first track and its album. */
const aliceWithLikes = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  const ids = yield* firstTrack
  yield* alice.client.likes.likeTrack({ path: { id: TrackId.make(ids.track) } })
  yield* alice.client.likes.likeAlbum({ path: { id: AlbumId.make(ids.album) } })
  return { alice, ids }
})

/** `who` likes an album and waits for it on their stream: a later event proving earlier ones were delivered. */
const likeAlbumAndSee = (who: SignedIn, events: SseConnection, album: string) =>
  Effect.zipRight(
    who.client.likes.likeAlbum({ path: { id: AlbumId.make(album) } }),
    events.waitFor((frame) => frame.event === "album.liked"),
  )

const likeRows = (user: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{
        entity: string
        entity_id: string
      }>`SELECT entity, entity_id FROM likes WHERE user_id = ${user} ORDER BY entity`,
  )
const changeRow = (entity: string, id: string, scope: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{
        operation: string
        scope: string
      }>`SELECT operation, scope FROM library_changes WHERE entity = ${entity} AND entity_id = ${id} AND scope = ${scope}`,
      (rows) => rows[0],
    ),
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("likes", (it) => {
  it.scoped("liking is idempotent, writes a change-log row and publishes track.liked to the liker only", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const ids = yield* firstTrack
      const url = yield* serverUrl
      const aliceEvents = yield* openSse(url, alice.token)
      const bobEvents = yield* openSse(url, bob.token)
      yield* aliceEvents.waitFor((frame) => frame.text === "connected")
      yield* bobEvents.waitFor((frame) => frame.text === "connected")
      const [, response] = yield* alice.client.likes.likeTrack({
        path: { id: TrackId.make(ids.track) },
        withResponse: true,
      })
      expect(response.status).toBe(204)
      yield* alice.client.likes.likeTrack({ path: { id: TrackId.make(ids.track) } })
      expect(yield* likeRows(alice.user.id)).toEqual([{ entity: "track", entity_id: ids.track }])
      expect(yield* changeRow("like_track", ids.track, alice.user.id)).toEqual({
        operation: "upsert",
        scope: alice.user.id,
      })
      const [event] = yield* aliceEvents.waitFor((frame) => frame.event === "track.liked")
      expect(event!.data).toEqual({ kind: "track.liked", user_id: alice.user.id, data: { id: ids.track } })
      // Bob's own like comes after Alice's on the bus: once it arrives, hers would have too.
      yield* likeAlbumAndSee(bob, bobEvents, ids.album)
      expect(bobEvents.frames.some((frame) => frame.event === "track.liked")).toBe(false)
    }),
  )

  it.scoped("albums and artists have their own like and unlike kinds; unliking is idempotent", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const ids = yield* firstTrack
      yield* alice.client.likes.likeTrack({ path: { id: TrackId.make(ids.track) } })
      const events = yield* openSse(yield* serverUrl, alice.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      yield* alice.client.likes.likeAlbum({ path: { id: AlbumId.make(ids.album) } })
      yield* alice.client.likes.likeArtist({ path: { id: ArtistId.make(ids.artist) } })
      yield* alice.client.likes.unlikeTrack({ path: { id: TrackId.make(ids.track) } })
      yield* alice.client.likes.unlikeTrack({ path: { id: TrackId.make(ids.track) } })
      yield* alice.client.likes.unlikeArtist({ path: { id: ArtistId.make(ids.artist) } })
      const kinds = yield* events.waitFor((frame) => frame.type === "event", 5)
      expect(kinds.map((frame) => frame.event)).toEqual([
        "album.liked",
        "artist.liked",
        "track.unliked",
        "track.unliked",
        "artist.unliked",
      ])
      expect(yield* likeRows(alice.user.id)).toEqual([{ entity: "album", entity_id: ids.album }])
      expect(yield* changeRow("like_track", ids.track, alice.user.id)).toMatchObject({ operation: "delete" })
    }),
  )

  it.effect("GET /api/likes lists the caller's liked tracks, albums and artists", () =>
    Effect.gen(function* () {
      const { alice, ids } = yield* aliceWithLikes
      const bob = yield* aUser("bob")
      const liked = yield* alice.client.likes.list()
      expect(liked.tracks.map((track) => track.id)).toEqual([ids.track])
      expect(liked.albums.map((album) => album.id)).toEqual([ids.album])
      expect(liked.artists).toEqual([])
      expect(yield* bob.client.likes.list()).toEqual({ tracks: [], albums: [], artists: [] })
    }),
  )

  it.effect("liking an unknown id is 404 and stores nothing", () =>
    Effect.gen(function* () {
      const { alice } = yield* aliceWithLikes
      const missing = yield* alice.client.likes
        .likeTrack({ path: { id: TrackId.make(crypto.randomUUID()) } })
        .pipe(Effect.flip)
      expect(missing._tag).toBe("NotFound")
      const album = yield* alice.client.likes
        .likeAlbum({ path: { id: AlbumId.make(crypto.randomUUID()) } })
        .pipe(Effect.flip)
      expect(album._tag).toBe("NotFound")
      expect((yield* likeRows(alice.user.id)).length).toBe(2)
    }),
  )

  it.scoped("a like still answers 204 and publishes its event when the change-log write fails", () =>
    Effect.gen(function* () {
      const bob = yield* aUser("bob")
      const ids = yield* firstTrack
      const sql = yield* SqlClient.SqlClient
      const events = yield* openSse(yield* serverUrl, bob.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      yield* sql`ALTER TABLE library_changes RENAME TO library_changes_gone`
      const result = yield* bob.client.likes
        .likeTrack({ path: { id: TrackId.make(ids.track) }, withResponse: true })
        .pipe(Effect.ensuring(sql`ALTER TABLE library_changes_gone RENAME TO library_changes`.pipe(Effect.orDie)))
      expect(result[1].status).toBe(204)
      expect(yield* likeRows(bob.user.id)).toEqual([{ entity: "track", entity_id: ids.track }])
      yield* events.waitFor((frame) => frame.event === "track.liked")
      expect(yield* changeRow("like_track", ids.track, bob.user.id)).toBeUndefined() // bob's row never written
    }),
  )
})
