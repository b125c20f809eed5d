import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { Deferred, Effect, Fiber, Option } from "effect"
import { Scanner, ScanService } from "../../src/library/index.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { expectedReleaseDate, fixtureLibrary, scanNow } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const { root, manifest } = await fixtureLibrary()
const audio = manifest.files.filter((file) => file.kind === "audio")
const corrupt = manifest.files.filter((file) => file.kind === "corrupt")

interface TrackRow {
  readonly id: string
  readonly path: string
  readonly title: string
  readonly artist: string
  readonly album: string
  readonly album_artist: string
  readonly track_number: number | null
  readonly disc_number: number | null
  readonly genre: string | null
  readonly file_format: string
  readonly duration_ms: number
  readonly mbid: string | null
}

const indexedTracks = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<TrackRow>`
    SELECT t.id, t.path, t.title, t.artist_display AS artist, al.title AS album, aa.name AS album_artist, t.track_number,
           t.disc_number, t.genre, t.file_format, t.duration_ms, t.mbid
    FROM tracks t JOIN artists ar ON ar.id = t.artist_id JOIN albums al ON al.id = t.album_id
    JOIN artists aa ON aa.id = al.artist_id ORDER BY t.path`,
)

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "library scan",
  (it) => {
    it.effect(
      "a cold scan indexes every audio file as the ground truth says, and records the corrupt ones as errors",
      () =>
        Effect.gen(function* () {
          const summary = yield* scanNow()
          expect(summary).toMatchObject({
            filesSeen: audio.length + corrupt.length,
            added: audio.length,
            updated: 0,
            removed: 0,
            errors: corrupt.length,
          })
          const rows = yield* indexedTracks
          expect(rows.map((row) => row.path)).toEqual(audio.map((file) => file.path).sort())
          for (const file of audio) {
            const row = rows.find((candidate) => candidate.path === file.path)!
            expect({ ...row, id: undefined, duration_ms: undefined }).toEqual({
              path: file.path,
              id: undefined,
              title: file.expect.title,
              artist: file.expect.artist,
              album: file.expect.album,
              album_artist: manifest.albums.find((album) => album.tracks.includes(file.path))!.artist,
              track_number: file.expect.track_number,
              disc_number: file.expect.disc_number ?? 1, // no disc number: disc 1 (contract)
              genre: file.expect.genre,
              file_format: file.format,
              duration_ms: undefined,
              mbid: file.expect.mbids.track,
            })
            expect(Math.abs(row.duration_ms - file.expect.duration_ms)).toBeLessThanOrEqual(150)
          }
          const sql = yield* SqlClient.SqlClient
          const errors = yield* sql<{ path: string }>`SELECT path FROM scan_errors ORDER BY path`
          expect(errors.map((row) => row.path)).toEqual(corrupt.map((file) => file.path).sort())
        }),
    )

    it.effect(
      "albums follow the album rules: album artist over track artist, compilations, disc folders, dates, covers",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const albums = yield* sql<{
            title: string
            artist: string
            year: number
            release_date: string | null
            track_count: number
            compilation: boolean
            cover_art_source: string | null
            cover_path: string | null
          }>`
        SELECT a.title, ar.name AS artist, a.year, to_char(a.release_date, 'YYYY-MM-DD') AS release_date, a.track_count,
               a.compilation, a.cover_art_source, a.cover_path
        FROM albums a JOIN artists ar ON ar.id = a.artist_id`
          expect(albums).toHaveLength(manifest.albums.length)
          for (const expected of manifest.albums) {
            const album = albums.find((row) => row.title === expected.title)!
            expect(album).toEqual({
              title: expected.title,
              artist: expected.artist,
              year: expected.year,
              release_date: expectedReleaseDate(expected),
              track_count: expected.track_count,
              compilation: expected.compilation,
              cover_art_source: expected.sidecar !== null ? "sidecar" : expected.embedded_cover ? "embedded" : null,
              cover_path: expected.sidecar ?? album.cover_path,
            })
          }
          // Track artists of compilations keep their own rows.
          const artists = yield* sql<{ name: string }>`SELECT name FROM artists`
          for (const name of ["Pale Echo", "Old Wire", "Static Harbor", "Mira Sol", "DJ Kō", "Various Artists"]) {
            expect(artists.map((row) => row.name)).toContain(name)
          }
        }),
    )

    it.effect("a rescan of the unchanged library reads nothing and changes nothing; ids are stable", () =>
      Effect.gen(function* () {
        const before = yield* indexedTracks
        const summary = yield* scanNow()
        expect(summary).toMatchObject({ added: 0, updated: 0, removed: 0, errors: corrupt.length })
        expect(yield* indexedTracks).toEqual(before)
      }),
    )

    it.effect(
      "a changed file is re-read in place (same id); a removed file's track is marked missing (hidden, row kept); a new file is added",
      () =>
        Effect.gen(function* () {
          const before = yield* indexedTracks
          const touched = path.join(root, "Old Wire/Field Recordings/01 Porch.wav")
          const later = new Date(Date.now() + 60_000)
          fs.utimesSync(touched, later, later)
          fs.rmSync(path.join(root, "Static Harbor/Raw Takes/02 Take Two.aac"))
          fs.copyFileSync(
            path.join(root, "Static Harbor/Raw Takes/01 Take One.aac"),
            path.join(root, "Static Harbor/Raw Takes/03 Take Three.aac"),
          )
          const summary = yield* scanNow()
          expect(summary).toMatchObject({ added: 1, updated: 1, removed: 1 })
          const after = yield* indexedTracks
          const porch = (rows: ReadonlyArray<TrackRow>) => rows.find((row) => row.path.endsWith("01 Porch.wav"))!.id
          expect(porch(after)).toBe(porch(before))
          expect(after.some((row) => row.path.endsWith("02 Take Two.aac"))).toBe(false)
          const sql = yield* SqlClient.SqlClient
          const kept = yield* sql<{ id: string }>`
            SELECT id FROM indexed_tracks WHERE path LIKE '%02 Take Two.aac' AND missing_since IS NOT NULL`
          expect(kept.map((row) => row.id)).toEqual([before.find((row) => row.path.endsWith("02 Take Two.aac"))!.id])
          expect(after.some((row) => row.path.endsWith("03 Take Three.aac"))).toBe(true)
          const [album] = yield* sql<{ track_count: number }>`SELECT track_count FROM albums WHERE title = 'Raw Takes'`
          expect(album!.track_count).toBe(2)
        }),
    )

    it.effect("removing an album's folder hides its tracks, the album, and an artist left with nothing present", () =>
      Effect.gen(function* () {
        fs.rmSync(path.join(root, "Night Ledger"), { recursive: true })
        const summary = yield* scanNow()
        expect(summary.removed).toBe(2)
        expect(summary.errors).toBe(corrupt.length - 1) // the broken take went with its folder
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT 1 FROM albums WHERE title = 'Undated Sessions'`).toHaveLength(0)
        // Night Ledger still has a track on the Late Night Radio compilation, so the artist stays.
        expect(yield* sql`SELECT 1 FROM artists WHERE name = 'Night Ledger'`).toHaveLength(1)
        fs.rmSync(path.join(root, "Old Wire"), { recursive: true })
        fs.rmSync(path.join(root, "Compilations"), { recursive: true })
        yield* scanNow()
        expect(yield* sql`SELECT 1 FROM artists WHERE name = 'Old Wire'`).toHaveLength(0)
      }),
    )

    it.effect("a full scan re-reads every file and keeps every id", () =>
      Effect.gen(function* () {
        const before = yield* indexedTracks
        const summary = yield* scanNow(true)
        expect(summary.updated).toBe(before.length)
        expect(summary.added).toBe(0)
        expect((yield* indexedTracks).map((row) => row.id)).toEqual(before.map((row) => row.id))
      }),
    )

    it.effect("one scan at a time: a second scan while one runs is refused at once", () =>
      Effect.gen(function* () {
        const scanner = yield* Scanner
        const holding = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const first = yield* scanner
          .scan({
            full: true,
            onStarted: Deferred.succeed(holding, undefined).pipe(Effect.zipRight(Deferred.await(release))),
          })
          .pipe(Effect.fork)
        yield* Deferred.await(holding)
        expect(Option.isNone(yield* scanner.scan({ full: false }))).toBe(true)
        const services = yield* ScanService
        expect((yield* services.start(false)).started).toBe(false)
        expect((yield* services.status).state).toBe("running")
        yield* Deferred.succeed(release, undefined)
        expect(Option.isSome(yield* Fiber.join(first))).toBe(true)
        expect((yield* services.status).state).toBe("idle")
      }),
    )

    it.effect("a scan that ends while its status is being read is reported idle, never failed", () =>
      Effect.gen(function* () {
        const services = yield* ScanService
        const scanner = yield* Scanner
        // Status reads back to back while scans come and go: each scan's end falls between some read's look at
        // the row ("running") and its look at the lock (already let go).
        const scans = yield* Effect.fork(Effect.repeatN(scanner.scan({ full: false }), 7))
        const seen = new Set<string>()
        while (Option.isNone(yield* Fiber.poll(scans))) seen.add((yield* services.status).state)
        yield* Fiber.join(scans)
        seen.add((yield* services.status).state)
        expect(seen.has("failed")).toBe(false)
        expect(seen.has("idle")).toBe(true)
      }),
    )

    it.effect(
      "a killed scan loses nothing already indexed, shows as failed, and the next scan completes the work",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          // Forget everything, then kill a full scan after its first committed batch.
          yield* sql`DELETE FROM track_genres`
          yield* sql`DELETE FROM indexed_tracks`
          yield* sql`DELETE FROM indexed_albums`
          yield* sql`DELETE FROM library_folders`
          const onDisk = (yield* Effect.promise(() => countAudio(root))) as number
          const scanner = yield* Scanner
          const firstBatch = yield* Deferred.make<void>()
          const fiber = yield* scanner
            .scan({
              full: false,
              onProgress: (progress) =>
                progress.filesRead > 0 ? Deferred.succeed(firstBatch, undefined) : Effect.void,
            })
            .pipe(Effect.fork)
          yield* Deferred.await(firstBatch)
          yield* Fiber.interrupt(fiber)
          const kept = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tracks`)[0]!.n
          expect(kept).toBeGreaterThan(0)
          const services = yield* ScanService
          expect((yield* services.status).state).not.toBe("running")
          const summary = yield* scanNow()
          expect(summary.added).toBe(onDisk - kept)
          expect((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM tracks`)[0]!.n).toBe(onDisk)
        }),
    )

    it.effect("the scan API starts a background scan (202) and reports state and counts; admins only", () =>
      Effect.gen(function* () {
        const admin = yield* signUpFirstAdmin("admin")
        const [started, response] = yield* admin.client.scan.start({ payload: { full: true }, withResponse: true })
        expect(response.status).toBe(202)
        expect(started.started).toBe(true)
        let status = yield* admin.client.scan.status()
        for (let i = 0; i < 200 && status.state === "running"; i++) {
          yield* Effect.sleep("50 millis")
          status = yield* admin.client.scan.status()
        }
        expect(status).toMatchObject({ state: "idle", errors: corrupt.length - 1 })
        expect(status.files_seen).toBeGreaterThan(0)
        expect(status.finished_at).not.toBeNull()
        yield* admin.client.adminUsers.create({ payload: { username: "listener", password: "correct horse battery" } })
        const listener = yield* makeTonearmClient()
        const { token } = yield* listener.auth.login({
          payload: { username: "listener", password: "correct horse battery" },
        })
        const forbidden = yield* (yield* makeTonearmClient({ credentials: bearer(token) })).scan
          .start({ payload: {} })
          .pipe(Effect.flip)
        expect(forbidden._tag).toBe("Forbidden")
      }),
    )

    it.effect("the first boot of a never-scanned library starts a scan; later boots do not", () =>
      Effect.gen(function* () {
        const services = yield* ScanService
        // Completed scans exist by now, so a boot does nothing.
        expect(yield* services.startIfNeverScanned).toBe(false)
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM scans`
        expect(yield* services.startIfNeverScanned).toBe(true)
        let status = yield* services.status
        for (let i = 0; i < 200 && status.state === "running"; i++) {
          yield* Effect.sleep("50 millis")
          status = yield* services.status
        }
        expect(status.state).toBe("idle")
      }),
    )
  },
)

const countAudio = async (dir: string): Promise<number> => {
  const { isAudioPath } = await import("@tonearm/core")
  let count = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && isAudioPath(entry.name) && !entry.parentPath.includes("_junk")) count++
  }
  return count
}
