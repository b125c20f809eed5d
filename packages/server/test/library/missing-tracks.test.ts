import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import { Effect } from "effect"
import { Scanner } from "../../src/library/index.js"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { arrangePlays, syntheticLibrary } from "../support/listening.js"
import { raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(60, 14)
/** Where files wait while they are "gone": outside the library. */
const away = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-away-"))

const moveOut = (relative: string) => {
  const target = path.join(away, relative.replaceAll("/", "__"))
  fs.renameSync(path.join(root, relative), target)
  return () => fs.renameSync(target, path.join(root, relative))
}

interface Row {
  readonly id: string
  readonly path: string
  readonly album_id: string
  readonly artist_id: string
  readonly title: string
}

const present = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<Row>`SELECT id, path, album_id, artist_id, title FROM tracks ORDER BY path`,
)

const indexed = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ path: string; missing: boolean }>`
      SELECT path, missing_since IS NOT NULL AS missing FROM indexed_tracks WHERE id = ${id}`.pipe(
      Effect.map((rows) => rows[0]),
    ),
  )

const count = (query: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.map(sql.unsafe<{ n: number }>(query), (rows) => rows[0]!.n))

const latestScan = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ state: string; message: string | null; removed: number }>`
      SELECT state, message, removed FROM scans ORDER BY id DESC LIMIT 1`,
    (rows) => rows[0]!,
  ),
)

/** The sync feed from the beginning, as a fresh client sees it. */
const syncAll = (who: SignedIn) =>
  Effect.gen(function* () {
    let cursor: string | undefined
    const upserts = new Set<string>()
    const deletes = new Set<string>()
    for (;;) {
      const page = yield* who.client.sync.changes({ urlParams: cursor === undefined ? {} : { cursor } })
      for (const track of page.upserts.tracks) upserts.add(track.id)
      for (const id of page.deletes.tracks) deletes.add(id)
      cursor = page.cursor
      if (!page.has_more) return { upserts, deletes, cursor }
    }
  })

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "missing, not deleted",
  (it) => {
    let admin: SignedIn
    let track: Row
    let playlistId: string

    it.effect("a vanished file is hidden but keeps its id, like, playlist entry and plays", () =>
      Effect.gen(function* () {
        admin = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        const rows = yield* present
        track = rows.find((row) => rows.filter((other) => other.album_id === row.album_id).length > 1)!
        const id = TrackId.make(track.id)
        yield* admin.client.likes.likeTrack({ path: { id } })
        const playlist = yield* admin.client.playlists.create({ payload: { name: "Keep", track_ids: [id] } })
        playlistId = playlist.id
        yield* arrangePlays(admin.user.id, [
          {
            id,
            artist_id: ArtistId.make(track.artist_id),
            album_id: AlbumId.make(track.album_id),
            duration_ms: 1,
            genres: [],
          },
        ])
        const before = yield* syncAll(admin)

        const putBack = moveOut(track.path)
        const summary = yield* scanNow()
        expect(summary.removed).toBe(1)
        putBack()

        expect(yield* indexed(track.id)).toEqual({ path: track.path, missing: true })
        const album = yield* admin.client.library.album({ path: { id: AlbumId.make(track.album_id) } })
        expect(album.tracks.map((t) => t.id)).not.toContain(track.id)
        expect(album.track_count).toBe(album.tracks.length)
        const found = yield* admin.client.library.search({ urlParams: { q: track.title } })
        expect(found.tracks.map((t) => t.id)).not.toContain(track.id)
        expect((yield* admin.client.likes.list()).tracks.map((t) => t.id)).not.toContain(track.id)
        const detail = yield* admin.client.playlists.get({ path: { id: playlist.id } })
        expect(detail.tracks.map((entry) => entry.track.id)).not.toContain(track.id)
        const shuffled = yield* admin.client.library.shuffle({ urlParams: { limit: 500 } })
        expect(shuffled.tracks.map((t) => t.id)).not.toContain(track.id)
        // Kept underneath: the like, the playlist entry, the plays.
        expect(yield* count(`SELECT count(*)::int AS n FROM likes WHERE entity_id = '${track.id}'`)).toBe(1)
        expect(yield* count(`SELECT count(*)::int AS n FROM playlist_tracks WHERE track_id = '${track.id}'`)).toBe(1)
        expect(yield* count(`SELECT count(*)::int AS n FROM play_events WHERE track_id = '${track.id}'`)).toBe(1)
        // Sync reports it deleted.
        const page = yield* admin.client.sync.changes({ urlParams: { cursor: before.cursor } })
        expect(page.deletes.tracks).toContain(track.id)
      }),
    )

    it.effect("it returns at the same path: same id, visible again, like and playlist entry intact", () =>
      Effect.gen(function* () {
        const before = yield* syncAll(admin)
        yield* scanNow()
        expect(yield* indexed(track.id)).toEqual({ path: track.path, missing: false })
        const album = yield* admin.client.library.album({ path: { id: AlbumId.make(track.album_id) } })
        expect(album.tracks.map((t) => t.id)).toContain(track.id)
        expect(album.track_count).toBe(album.tracks.length)
        expect((yield* admin.client.likes.list()).tracks.map((t) => t.id)).toContain(track.id)
        const detail = yield* admin.client.playlists.get({ path: { id: playlistId as never } })
        expect(detail.tracks.map((entry) => entry.track.id)).toEqual([track.id])
        const page = yield* admin.client.sync.changes({ urlParams: { cursor: before.cursor } })
        expect(page.upserts.tracks.map((t) => t.id)).toContain(track.id)
      }),
    )

    it.effect("a file moved to another folder in one scan keeps its id (and so its like)", () =>
      Effect.gen(function* () {
        const movedTo = `Moved Here/elsewhere${path.extname(track.path)}`
        fs.mkdirSync(path.join(root, "Moved Here"))
        fs.renameSync(path.join(root, track.path), path.join(root, movedTo))
        const summary = yield* scanNow()
        expect(summary).toMatchObject({ added: 0, removed: 0 })
        expect(yield* indexed(track.id)).toEqual({ path: movedTo, missing: false })
        expect((yield* admin.client.likes.list()).tracks.map((t) => t.id)).toContain(track.id)
        // Missing first, found moved in a later scan: the same id again.
        const putBack = moveOut(movedTo)
        yield* scanNow()
        expect((yield* indexed(track.id))!.missing).toBe(true)
        putBack()
        fs.renameSync(path.join(root, movedTo), path.join(root, track.path))
        expect(yield* scanNow()).toMatchObject({ added: 0, removed: 0 })
        expect(yield* indexed(track.id)).toEqual({ path: track.path, missing: false })
      }),
    )

    it.effect("a file that turns unreadable keeps its track and records a scan error", () =>
      Effect.gen(function* () {
        const victim = (yield* present).find((row) => row.id !== track.id)!
        const file = path.join(root, victim.path)
        const original = fs.readFileSync(file)
        fs.writeFileSync(file, "this is not audio any more")
        const summary = yield* scanNow()
        expect(summary.removed).toBe(0)
        expect(summary.errors).toBeGreaterThanOrEqual(1)
        expect(yield* indexed(victim.id)).toEqual({ path: victim.path, missing: false })
        expect(
          yield* count(
            `SELECT count(*)::int AS n FROM scan_errors WHERE path = '${victim.path.replaceAll("'", "''")}'`,
          ),
        ).toBe(1)
        fs.writeFileSync(file, original)
        fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000))
        yield* scanNow()
        expect(yield* indexed(victim.id)).toEqual({ path: victim.path, missing: false })
      }),
    )

    it.effect(
      "an album whose tracks are all missing is hidden from album browse and its artist's page, and returns",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [album] = yield* sql<{ id: string; artist_id: string; directory: string; tracks: number }>`
          SELECT a.id, a.artist_id, min(t.directory) AS directory, count(*)::int AS tracks
          FROM albums a JOIN tracks t ON t.album_id = a.id
          GROUP BY a.id, a.artist_id
          HAVING count(DISTINCT t.directory) = 1
             AND (SELECT count(*) FROM albums b WHERE b.artist_id = a.artist_id) > 1
             AND NOT EXISTS (SELECT 1 FROM tracks o WHERE o.directory = min(t.directory) AND o.album_id <> a.id)
          ORDER BY a.id LIMIT 1`
          expect(album).toBeDefined()
          const albumId = AlbumId.make(album!.id)
          const artistId = ArtistId.make(album!.artist_id)
          const putBack = moveOut(album!.directory)
          expect((yield* scanNow()).removed).toBe(album!.tracks)
          const page = yield* admin.client.library.albums({ urlParams: { limit: 500 } })
          expect(page.items.map((a) => a.id)).not.toContain(albumId)
          const artist = yield* admin.client.library.artist({ path: { id: artistId } })
          expect(artist.albums.map((a) => a.id)).not.toContain(albumId)
          expect(artist.album_count).toBe(artist.albums.length)
          expect((yield* admin.client.library.album({ path: { id: albumId } }).pipe(Effect.flip))._tag).toBe("NotFound")
          const [stored] = yield* sql<{ missing: boolean; track_count: number }>`
          SELECT missing_since IS NOT NULL AS missing, track_count FROM indexed_albums WHERE id = ${albumId}`
          expect(stored).toEqual({ missing: true, track_count: 0 })

          putBack()
          yield* scanNow()
          const back = yield* admin.client.library.album({ path: { id: albumId } })
          expect(back.track_count).toBe(album!.tracks)
          const again = yield* admin.client.library.artist({ path: { id: artistId } })
          expect(again.albums.map((a) => a.id)).toContain(albumId)
        }),
    )

    it.effect("admins list missing tracks and purge them, by ids or all; others may not", () =>
      Effect.gen(function* () {
        const rows = yield* present
        const [first, second, kept] = [rows[3]!, rows[10]!, rows[20]!]
        const putBack = [moveOut(first.path), moveOut(second.path)]
        expect((yield* scanNow()).removed).toBe(2)

        const listed = yield* admin.client.missingTracks.list({ urlParams: {} })
        expect(listed).toMatchObject({ total: 2, offset: 0, limit: 50 })
        expect(listed.items.map((t) => t.id).sort()).toEqual([first.id, second.id].sort())
        expect(listed.items[0]!.missing_since).toBeDefined()
        expect((yield* admin.client.missingTracks.list({ urlParams: { limit: 5_000, offset: 1 } })).limit).toBe(500)
        expect((yield* admin.client.missingTracks.list({ urlParams: { offset: 1 } })).items).toHaveLength(1)

        // A malformed id is refused with the envelope; others and anonymous callers may not purge.
        const malformed = yield* rawJson(
          "POST",
          "/api/admin/library/missing/purge",
          { track_ids: ["nope"] },
          admin.token,
        )
        expect(malformed.status).toBe(400)
        expect((malformed.json as { error: { code: string } }).error.code).toBe("invalid_request")
        const listener = yield* createAndLogIn(admin.client, "listener")
        const forbidden = yield* listener.client.missingTracks.purge({ payload: {} }).pipe(Effect.flip)
        expect(forbidden._tag).toBe("Forbidden")
        expect((yield* raw("GET", "/api/admin/library/missing", { token: listener.token })).status).toBe(403)
        expect((yield* raw("GET", "/api/admin/library/missing")).status).toBe(401)
        const anonymous = yield* makeTonearmClient({ credentials: bearer("not-a-token") })
        expect((yield* anonymous.missingTracks.purge({ payload: {} }).pipe(Effect.flip))._tag).toBe("Unauthenticated")

        // By ids: a present track's id is ignored.
        const byIds = yield* admin.client.missingTracks.purge({
          payload: { track_ids: [TrackId.make(first.id), TrackId.make(kept.id)] },
        })
        expect(byIds.purged).toBe(1)
        expect(yield* indexed(first.id)).toBeUndefined()
        expect(yield* indexed(kept.id)).toEqual({ path: kept.path, missing: false })
        expect((yield* admin.client.missingTracks.list({ urlParams: {} })).total).toBe(1)

        // All of them.
        expect((yield* admin.client.missingTracks.purge({ payload: {} })).purged).toBe(1)
        expect((yield* admin.client.missingTracks.list({ urlParams: {} })).total).toBe(0)
        expect(yield* indexed(second.id)).toBeUndefined()
        const page = yield* syncAll(admin)
        expect(page.deletes.has(first.id) && page.deletes.has(second.id)).toBe(true)

        // Their files come back: new tracks, new ids.
        for (const back of putBack) back()
        expect((yield* scanNow()).added).toBe(2)
      }),
    )

    it.effect(
      "an empty library folder while tracks are indexed fails the scan with the reason; nothing is marked missing",
      () =>
        Effect.gen(function* () {
          const before = (yield* present).length
          const holding = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-holding-"))
          for (const name of fs.readdirSync(root)) fs.renameSync(path.join(root, name), path.join(holding, name))
          const error = yield* Effect.flatMap(Scanner, (scanner) => scanner.scan({ full: false })).pipe(Effect.flip)
          for (const name of fs.readdirSync(holding)) fs.renameSync(path.join(holding, name), path.join(root, name))
          expect(error.message).toBe(
            `the library folder ${root} holds no audio files while the index holds ${before} tracks; nothing was marked missing — is the disk mounted?`,
          )
          expect(yield* latestScan).toEqual({ state: "failed", message: error.message, removed: 0 })
          expect(yield* admin.client.scan.status()).toMatchObject({ state: "failed", message: error.message })
          expect((yield* present).length).toBe(before)
          expect((yield* admin.client.missingTracks.list({ urlParams: {} })).total).toBe(0)
        }),
    )

    it.effect(
      "an absent library folder while tracks are indexed fails the scan likewise; nothing is marked missing",
      () =>
        Effect.gen(function* () {
          const before = (yield* present).length
          fs.renameSync(root, `${root}.unmounted`)
          const error = yield* Effect.flatMap(Scanner, (scanner) => scanner.scan({ full: false })).pipe(Effect.flip)
          fs.renameSync(`${root}.unmounted`, root)
          expect(error._tag).toBe("LibraryFolderUnreadable")
          expect(error.message).toContain(`the library folder ${root} does not exist`)
          expect(error.message).toContain(`the index holds ${before} tracks and nothing was marked missing`)
          expect(yield* latestScan).toMatchObject({ state: "failed", removed: 0 })
          expect((yield* present).length).toBe(before)
        }),
    )

    it.effect("a library folder that vanishes after the walk, before tidying, marks nothing missing", () =>
      Effect.gen(function* () {
        const before = yield* present
        const gone = before[5]!
        const putBack = moveOut(gone.path)
        const holding = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-holding-"))
        const scanner = yield* Scanner
        const error = yield* scanner
          .scan({
            full: false,
            onProgress: (progress) =>
              progress.phase === "tidying"
                ? Effect.sync(() => {
                    // The disk is unmounted: the mount point stays, empty.
                    for (const name of fs.readdirSync(root)) {
                      fs.renameSync(path.join(root, name), path.join(holding, name))
                    }
                  })
                : Effect.void,
          })
          .pipe(Effect.flip)
        for (const name of fs.readdirSync(holding)) fs.renameSync(path.join(holding, name), path.join(root, name))
        putBack()
        expect(error.message).toContain("nothing was marked missing")
        expect(yield* indexed(gone.id)).toEqual({ path: gone.path, missing: false })
        expect((yield* present).map((row) => row.id)).toEqual(before.map((row) => row.id))
        expect(yield* latestScan).toMatchObject({ state: "failed", removed: 0 })
        expect((yield* scanNow()).removed).toBe(0)
      }),
    )
  },
)
