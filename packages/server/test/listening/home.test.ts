import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { TrackId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

interface TrackRow {
  readonly id: TrackId
  readonly album_id: string
  readonly artist_id: string
  readonly duration_ms: number
}

/** The first track of each album, in a stable order. */
const oneTrackPerAlbum = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<TrackRow>`
      SELECT DISTINCT ON (album_id) id, album_id, artist_id, duration_ms FROM tracks ORDER BY album_id, path`,
    (rows) => rows.map((row) => ({ ...row, id: TrackId.make(row.id) })),
  ),
)

/** Writes plays straight into history, at chosen times (months ago, for Rediscover). */
const played = (user: string, track: TrackRow, daysAgo: number, times: number, skipped = false) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`
      INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
        duration_played_ms, track_duration_ms, skipped, completion, created_at)
      SELECT ${user}, ${track.id}, ${track.artist_id}, ${track.album_id}, 'test',
             now() - make_interval(days => ${daysAgo}) + make_interval(secs => n),
             now() - make_interval(days => ${daysAgo}) + make_interval(secs => n + 1),
             ${skipped ? 0 : track.duration_ms}, ${track.duration_ms}, ${skipped}, ${skipped ? 0 : 1}, now()
      FROM generate_series(1, ${times}) AS n`,
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("home", (it) => {
  it.effect("most played and last played come from the caller's own plays; skips do not count as plays", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      const [a, b, c] = yield* oneTrackPerAlbum
      yield* played(alice.user.id, a!, 3, 5)
      yield* played(alice.user.id, b!, 2, 2)
      yield* played(alice.user.id, c!, 1, 9, true) // skipped: last played, never most played
      const home = yield* alice.client.home.sections()
      expect(home.most_played.map((album) => album.id)).toEqual([a!.album_id, b!.album_id])
      expect(home.last_played.map((album) => album.id)).toEqual([c!.album_id, b!.album_id, a!.album_id])
      const bobs = yield* bob.client.home.sections()
      expect(bobs.most_played).toEqual([])
      expect(bobs.last_played).toEqual([])
    }),
  )

  it.effect("Rediscover: at least 3 unskipped plays; cold for 6 months first, then 5+ plays, then play count", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const sql = yield* SqlClient.SqlClient
      const tracks = (yield* sql<TrackRow>`
        SELECT DISTINCT ON (t.artist_id) t.id, t.album_id, t.artist_id, t.duration_ms FROM tracks t
        JOIN albums a ON a.id = t.album_id WHERE a.artist_id = t.artist_id ORDER BY t.artist_id, t.path`).map(
        (row) => ({
          ...row,
          id: TrackId.make(row.id),
        }),
      )
      const [coldFew, warmMany, warmMost, tooFew, skipped] = tracks
      yield* played(alice.user.id, coldFew!, 200, 3) // cold for 6+ months: first even with few plays
      yield* played(alice.user.id, warmMany!, 10, 5) // 5+ plays
      yield* played(alice.user.id, warmMost!, 10, 4) // more than tooFew, fewer than 5
      yield* played(alice.user.id, tooFew!, 300, 2) // not eligible: 2 plays
      yield* played(alice.user.id, skipped!, 300, 6, true) // skips never count
      const home = yield* alice.client.home.sections()
      expect(home.rediscover_albums.map((album) => album.id)).toEqual([
        coldFew!.album_id,
        warmMany!.album_id,
        warmMost!.album_id,
      ])
      expect(home.rediscover_artists.map((artist) => artist.id)).toEqual([
        coldFew!.artist_id,
        warmMany!.artist_id,
        warmMost!.artist_id,
      ])
    }),
  )

  it.effect("You might like rows come from the snapshot, de-duplicated against the other sections, at most 10", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("alice")
      const bob = yield* aUser("bob")
      // Alice's own history fills the other sections, so the de-duplication has something to remove.
      const [a, b, c] = yield* oneTrackPerAlbum
      yield* played(alice.user.id, a!, 200, 3) // cold: rediscover
      yield* played(alice.user.id, b!, 10, 5)
      yield* played(alice.user.id, c!, 1, 1)
      const sql = yield* SqlClient.SqlClient
      const albums = (yield* sql<{ id: string }>`SELECT id FROM albums ORDER BY title`).map((row) => row.id)
      const artists = (yield* sql<{ id: string }>`SELECT id FROM artists ORDER BY name`).map((row) => row.id)
      const before = yield* alice.client.home.sections()
      expect(before.you_might_like_albums).toEqual([]) // no snapshot yet (cold-start gate): empty
      for (const [rank, id] of albums.entries()) {
        yield* sql`INSERT INTO you_might_like (user_id, kind, entity_id, rank) VALUES (${alice.user.id}, 'album', ${id}, ${rank})`
      }
      for (const [rank, id] of artists.entries()) {
        yield* sql`INSERT INTO you_might_like (user_id, kind, entity_id, rank) VALUES (${alice.user.id}, 'artist', ${id}, ${rank})`
      }
      const home = yield* alice.client.home.sections()
      const elsewhere = new Set<string>(
        [...home.most_played, ...home.rediscover_albums, ...home.last_played].map((album) => album.id),
      )
      expect(elsewhere.size).toBeGreaterThanOrEqual(3)
      expect(home.you_might_like_albums.length).toBeLessThanOrEqual(10)
      expect(home.you_might_like_albums.some((album) => elsewhere.has(album.id))).toBe(false)
      expect(home.you_might_like_albums.map((album) => album.id)).toEqual(
        albums.filter((id) => !elsewhere.has(id)).slice(0, 10),
      )
      expect(home.you_might_like_artists.length).toBeLessThanOrEqual(10)
      const index = yield* alice.client.home.index()
      expect(index.you_might_like_albums).toEqual(home.you_might_like_albums.map((album) => album.id))
      expect(index.rediscover_artists).toEqual(home.rediscover_artists.map((artist) => artist.id))
      expect((yield* bob.client.home.sections()).you_might_like_albums).toEqual([])
    }),
  )
})
