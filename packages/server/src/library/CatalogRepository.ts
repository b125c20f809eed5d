import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"
import { type AlbumRow, type CatalogRows, leadArtistKey, type TrackRow } from "./catalogRows.js"
import { libraryOfStoredPath, libraryPathPattern, PRIMARY_LIBRARY } from "./libraryPaths.js"

export interface KnownFile {
  readonly sizeBytes: number
  readonly mtimeMs: number
}

export interface KnownFolder {
  readonly sidecar: string | null
  readonly sidecarMtimeMs: number | null
}

export interface FolderState {
  readonly path: string
  readonly sidecar: string | null
  readonly sidecarMtimeMs: number | null
}

export interface ScanErrorRow {
  readonly path: string
  readonly sizeBytes: number
  readonly mtimeMs: number
  readonly message: string
}

/** What one batch wrote. */
export interface BatchOutcome {
  readonly inserted: number
  readonly updatedPaths: ReadonlyArray<string>
  readonly artistIds: ReadonlyArray<string>
  readonly albumIds: ReadonlyArray<string>
  readonly trackIds: ReadonlyArray<string>
}

/** A track a new file may be the moved copy of: missing already, or its path vanished in this scan. */
export interface VanishedTrack {
  readonly id: string
  readonly path: string
  readonly sizeBytes: number
  readonly title: string
  readonly album: string
  readonly artist: string
  readonly trackNumber: number | null
  readonly durationMs: number
  /** Marked missing by an earlier scan (else it was present when this scan began). */
  readonly missing: boolean
}

/** A track row that takes a new path (its file moved): written before the batch's upsert, keeping its id. */
export interface TrackMove {
  readonly id: string
  readonly path: string
}

/**
 * What tidying changed, as sync sees it: `gone*` left the library (deleted, or now missing), `changed*`
 * are present and were restored, recounted or re-covered.
 */
export interface TidyOutcome {
  readonly goneAlbums: ReadonlyArray<string>
  readonly goneArtists: ReadonlyArray<string>
  readonly changedAlbums: ReadonlyArray<string>
  readonly changedArtists: ReadonlyArray<string>
}

const CHUNK = 5_000
const chunks = <A>(items: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK))
  return out
}

/**
 * The scanner's writes: batches of folders upserted in one transaction each, so a killed scan loses nothing
 * committed. The only writer of `indexed_tracks`, `indexed_albums` and `indexed_artists` (the base tables
 * behind the `tracks`, `albums` and `artists` views of present rows, migration 0006): every upsert clears
 * `missing_since`, a vanished file marks its track missing, and only an admin's purge deletes a track.
 */
export class CatalogRepository extends Effect.Service<CatalogRepository>()("@tonearm/server/CatalogRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Whether a path column holds one library's paths (`libraryPaths.ts`: library 1's are the relative ones). */
    const pathIn = (column: string, libraryId: number) => {
      const { primary, prefix } = libraryPathPattern(libraryId)
      const name = sql.literal(column)
      return primary
        ? sql`NOT starts_with(${name}, '/')`
        : sql`(starts_with(${name}, ${`${prefix}/`}) OR ${name} = ${prefix})`
    }

    /** One library's present tracks, by stored path. */
    const knownTracks = (libraryId: number = PRIMARY_LIBRARY) =>
      sql<{ path: string; size_bytes: string; mtime_ms: string }>`
      SELECT path, size_bytes, mtime_ms FROM tracks WHERE library_id = ${libraryId}`.pipe(
        Effect.map(
          (rows) =>
            new Map(
              rows.map((row) => [row.path, { sizeBytes: Number(row.size_bytes), mtimeMs: Number(row.mtime_ms) }]),
            ),
        ),
        orInternal("CatalogRepository.knownTracks"),
      )

    const knownErrors = (libraryId: number = PRIMARY_LIBRARY) =>
      sql<{ path: string; size_bytes: string; mtime_ms: string }>`
      SELECT path, size_bytes, mtime_ms FROM scan_errors WHERE ${pathIn("path", libraryId)}`.pipe(
        Effect.map(
          (rows) =>
            new Map<string, KnownFile>(
              rows.map((row) => [row.path, { sizeBytes: Number(row.size_bytes), mtimeMs: Number(row.mtime_ms) }]),
            ),
        ),
        orInternal("CatalogRepository.knownErrors"),
      )

    /** A library's present tracks: whether its empty or absent folder would hide them all. */
    const presentTrackCount = (libraryId: number = PRIMARY_LIBRARY) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM tracks WHERE library_id = ${libraryId}`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        orInternal("CatalogRepository.presentTrackCount"),
      )

    /**
     * The tracks a new file may be a moved copy of: every missing track of the library, and the present ones at
     * `removedPaths` (a file never takes the id of another library's track: a FLAC and an MP3 copy stay two).
     */
    const vanishedTracks = (removedPaths: ReadonlyArray<string>, libraryId: number = PRIMARY_LIBRARY) =>
      sql<{
        id: string
        path: string
        size_bytes: string
        title: string
        album: string
        artist: string
        track_number: number | null
        duration_ms: number
        missing: boolean
      }>`
        SELECT t.id, t.path, t.size_bytes, t.title, al.title AS album, ar.name AS artist, t.track_number,
               t.duration_ms, t.missing_since IS NOT NULL AS missing
        FROM indexed_tracks t JOIN indexed_albums al ON al.id = t.album_id JOIN indexed_artists ar ON ar.id = t.artist_id
        WHERE t.library_id = ${libraryId}
          AND (t.missing_since IS NOT NULL OR t.path = ANY(${removedPaths as Array<string>}::text[]))`.pipe(
        Effect.map((rows) =>
          rows.map(
            (row): VanishedTrack => ({
              id: row.id,
              path: row.path,
              sizeBytes: Number(row.size_bytes),
              title: row.title,
              album: row.album,
              artist: row.artist,
              trackNumber: row.track_number,
              durationMs: row.duration_ms,
              missing: row.missing,
            }),
          ),
        ),
        orInternal("CatalogRepository.vanishedTracks"),
      )

    const knownFolders = (libraryId: number = PRIMARY_LIBRARY) =>
      sql<{ path: string; sidecar: string | null; sidecar_mtime_ms: string | null }>`
      SELECT path, sidecar, sidecar_mtime_ms FROM library_folders WHERE ${pathIn("path", libraryId)}`.pipe(
        Effect.map(
          (rows) =>
            new Map<string, KnownFolder>(
              rows.map((row) => [
                row.path,
                {
                  sidecar: row.sidecar,
                  sidecarMtimeMs: row.sidecar_mtime_ms === null ? null : Number(row.sidecar_mtime_ms),
                },
              ]),
            ),
        ),
        orInternal("CatalogRepository.knownFolders"),
      )

    /**
     * An artist whose spelling split into credits ("Alice feat. Bob" → Alice, Bob) keeps its id on the part that
     * takes it: of the names now credited on tracks that sat under one old artist, one with no row of its own is
     * that artist renamed, so its likes stay, when no name of this batch writes the old artist and no earlier batch
     * of this scan took it. The first credited name wins (the lead artist, else a guest: "Dora feat. Eve" becomes
     * Eve when Dora has her own row), then the old artist with the most of those tracks. (When every part already
     * has a row of its own, the old row is left with nothing and goes.)
     */
    const keepArtistIds = (rows: CatalogRows, kept: Set<string> | undefined) =>
      Effect.gen(function* () {
        const tracks = rows.tracks
        if (tracks.length === 0) return
        const credits = tracks.flatMap((track) =>
          [...new Set([leadArtistKey(track), ...track.credits.map((credit) => credit.artist_key)])].map(
            (key, position) => ({
              path: track.path,
              key,
              position,
            }),
          ),
        )
        // Only an artist whose every credit is in this batch moves (else its other tracks would take the new name).
        const found = yield* sql<{
          name_key: string
          artist_id: string
          current_key: string
          tracks: number
          in_batch: number
          credited: number
        }>`
          WITH cur AS (
            SELECT b.path, b.name_key, b.position, t.artist_id, ar.name_key AS current_key
            FROM unnest(${credits.map((credit) => credit.path)}::text[], ${credits.map((credit) => credit.key)}::text[],
                        ${credits.map((credit) => credit.position)}::int[]) AS b (path, name_key, position)
            JOIN indexed_tracks t ON t.path = b.path
            JOIN indexed_artists ar ON ar.id = t.artist_id),
          held AS (SELECT artist_id, count(DISTINCT path)::int AS in_batch FROM cur GROUP BY artist_id)
          SELECT cur.name_key, cur.artist_id, cur.current_key, count(*)::int AS tracks, min(cur.position)::int AS position,
                 held.in_batch, (SELECT count(*)::int FROM track_artists x WHERE x.artist_id = cur.artist_id) AS credited
          FROM cur JOIN held ON held.artist_id = cur.artist_id
          WHERE cur.current_key <> cur.name_key
            AND NOT EXISTS (SELECT 1 FROM indexed_artists n WHERE n.name_key = cur.name_key)
          GROUP BY cur.name_key, cur.artist_id, cur.current_key, held.in_batch
          ORDER BY position, tracks DESC, cur.name_key`
        if (found.length === 0) return
        const taken = new Set<string>()
        const renames: Array<{ id: string; key: string }> = []
        for (const row of found) {
          if (rows.artists.has(row.current_key) || taken.has(row.artist_id) || kept?.has(row.artist_id)) continue
          if (row.in_batch < row.credited) continue
          if (renames.some((rename) => rename.key === row.name_key)) continue
          taken.add(row.artist_id)
          kept?.add(row.artist_id)
          renames.push({ id: row.artist_id, key: row.name_key })
        }
        if (renames.length === 0) return
        const artists = renames.map((rename) => rows.artists.get(rename.key)!)
        // Only the identity moves here; the upsert that follows writes the rest of the row.
        yield* sql`
          UPDATE indexed_artists a SET name = r.name, name_key = r.name_key
          FROM unnest(${renames.map((rename) => rename.id)}::uuid[], ${artists.map((artist) => artist.name)}::text[],
                      ${artists.map((artist) => artist.name_key)}::text[]) AS r (id, name, name_key)
          WHERE a.id = r.id`
      })

    /**
     * An album whose key changed (its album artist was re-decided, it gained a release id) keeps its id: a new key
     * whose tracks all sit in one existing album that no key of this scan has taken yet takes that album's row, so
     * its likes and everything else pointing at it stay. When an album splits (two editions, say), the part holding
     * most of its tracks takes the id; the other parts are new albums.
     */
    const keepAlbumIds = (
      albums: ReadonlyArray<AlbumRow>,
      tracks: ReadonlyArray<TrackRow>,
      kept: Set<string> | undefined,
    ) =>
      Effect.gen(function* () {
        const keys = albums.map((album) => album.album_key)
        // Only an album whose every track is in this batch moves (else its other tracks would follow the new key).
        const rows = yield* sql<{
          album_key: string
          album_id: string
          current_key: string
          tracks: number
          in_batch: number
          total: number
        }>`
          WITH cur AS (
            SELECT b.path, b.album_key, t.album_id, al.album_key AS current_key
            FROM unnest(${tracks.map((track) => track.path)}::text[], ${tracks.map((track) => track.album_key)}::text[])
                 AS b (path, album_key)
            JOIN indexed_tracks t ON t.path = b.path
            JOIN indexed_albums al ON al.id = t.album_id),
          held AS (SELECT album_id, count(*)::int AS in_batch FROM cur GROUP BY album_id)
          SELECT cur.album_key, cur.album_id, cur.current_key, count(*)::int AS tracks, held.in_batch,
                 (SELECT count(*)::int FROM indexed_tracks x WHERE x.album_id = cur.album_id) AS total
          FROM cur JOIN held ON held.album_id = cur.album_id
          WHERE cur.current_key <> cur.album_key
            AND NOT EXISTS (SELECT 1 FROM indexed_albums n WHERE n.album_key = cur.album_key)
          GROUP BY cur.album_key, cur.album_id, cur.current_key, held.in_batch
          ORDER BY tracks DESC, cur.album_key`
        if (rows.length === 0) return
        const written = new Set(keys)
        const taken = new Set<string>()
        const rekeys: Array<{ id: string; key: string }> = []
        for (const row of rows) {
          // The old key is still written by this batch (the album goes on), or a part took it already.
          if (written.has(row.current_key) || taken.has(row.album_id) || kept?.has(row.album_id)) continue
          if (row.in_batch < row.total) continue
          if (rekeys.some((rekey) => rekey.key === row.album_key)) continue
          taken.add(row.album_id)
          rekeys.push({ id: row.album_id, key: row.album_key })
        }
        if (rekeys.length === 0) return
        yield* sql`
          UPDATE indexed_albums a SET album_key = r.key
          FROM unnest(${rekeys.map((rekey) => rekey.id)}::uuid[], ${rekeys.map((rekey) => rekey.key)}::text[])
               AS r (id, key)
          WHERE a.id = r.id`
      })

    /**
     * Held by every transaction that writes the catalogue's tables in bulk (a scan's batch, its tidy, a removed
     * library's rows, dropping or building the search indexes), until its commit. Two libraries scan at once: their
     * batches share artists, so two upserts in different orders would deadlock; and a build of the search indexes
     * (SHARE locks on tracks, then albums) against a batch (tracks and albums, in its own order) did deadlock, and
     * two builds at once raced each other to the same index name. One at a time, none of that can happen.
     */
    const lockCatalogWrites = sql`SELECT pg_advisory_xact_lock(hashtext('tonearm.catalog-write'))`

    /**
     * Each table is written with one statement over parallel arrays (`unnest`), not a VALUES list of
     * thousands of parameters: PostgreSQL parses and plans it once, whatever the batch size.
     */
    const writeBatch = (input: {
      readonly rows: CatalogRows
      readonly folders: ReadonlyArray<FolderState>
      readonly errors: ReadonlyArray<ScanErrorRow>
      /** Some of these files were scan errors before: clear their error rows. */
      readonly clearErrors: boolean
      /** Tracks whose files moved: they take their new path before the upsert, which then updates them in place. */
      readonly moves?: ReadonlyArray<TrackMove>
      /** Albums this scan has written or re-keyed already: no other album key takes their id (keepAlbumIds). */
      readonly keptAlbums?: Set<string>
      /** Artists this scan renamed already (keepArtistIds). */
      readonly keptArtists?: Set<string>
      /** Some of these files were indexed before, so an album or artist may carry its id to a new key. */
      readonly reindexed?: boolean
      readonly now: Date
    }) =>
      Effect.gen(function* () {
        yield* lockCatalogWrites
        const { rows, now } = input
        // A library removed while it scans (its removal takes the same lock): this batch must not bring any of its
        // tracks back from missing. The scan stops, failed, saying so.
        const first = input.folders[0]?.path ?? rows.tracks[0]?.path
        if (first !== undefined) {
          const libraryId = libraryOfStoredPath(first)
          const [library] = yield* sql<{ removed: boolean }>`
            SELECT removed_at IS NOT NULL AS removed FROM libraries WHERE id = ${libraryId}`
          if (library?.removed === true) {
            return yield* Effect.dieMessage(`library ${libraryId} was removed during its scan: the scan stopped`)
          }
        }
        const column = <A, K extends keyof A>(items: ReadonlyArray<A>, key: K) => items.map((item) => item[key])
        // Moved files take their new paths first, so the album and artist they belonged to are found by path.
        const moves = input.moves ?? []
        if (moves.length > 0) {
          yield* sql`
            UPDATE indexed_tracks t SET path = m.path
            FROM unnest(${column(moves, "id")}::uuid[], ${column(moves, "path")}::text[]) AS m (id, path)
            WHERE t.id = m.id`
        }
        const artistIds = new Map<string, string>()
        const artists = [...rows.artists.values()]
        if (artists.length > 0) {
          if (input.reindexed !== false) yield* keepArtistIds(rows, input.keptArtists)
          // A tagged sort name wins over one made from the name; an untagged one follows the article setting.
          const written = yield* sql<{ id: string; name_key: string }>`
            INSERT INTO indexed_artists (name, name_key, sort_name, sort_key, sort_tagged, search_key, search_words,
                                         search_fields, mbid, created_at, updated_at)
            SELECT a.name, a.name_key, a.sort_name, a.sort_key, a.sort_tagged, a.search_key, a.search_words,
                   a.search_fields, a.mbid, ${now}, ${now}
            FROM unnest(${column(artists, "name")}::text[], ${column(artists, "name_key")}::text[],
                        ${column(artists, "sort_name")}::text[], ${column(artists, "sort_key")}::text[],
                        ${column(artists, "sort_tagged")}::boolean[],
                        ${column(artists, "search_key")}::text[], ${column(artists, "search_words")}::text[],
                        ${column(artists, "search_fields")}::text[], ${column(artists, "mbid")}::text[])
                 AS a (name, name_key, sort_name, sort_key, sort_tagged, search_key, search_words, search_fields, mbid)
            ON CONFLICT (name_key) DO UPDATE SET
              search_words = EXCLUDED.search_words, search_fields = EXCLUDED.search_fields,
              mbid = COALESCE(EXCLUDED.mbid, indexed_artists.mbid), updated_at = EXCLUDED.updated_at,
              search_key = EXCLUDED.search_key,
              sort_name = CASE WHEN EXCLUDED.sort_tagged OR NOT indexed_artists.sort_tagged
                               THEN EXCLUDED.sort_name ELSE indexed_artists.sort_name END,
              sort_key = CASE WHEN EXCLUDED.sort_tagged OR NOT indexed_artists.sort_tagged
                              THEN EXCLUDED.sort_key ELSE indexed_artists.sort_key END,
              sort_tagged = EXCLUDED.sort_tagged OR indexed_artists.sort_tagged,
              missing_since = NULL
            RETURNING id, name_key`
          for (const row of written) {
            artistIds.set(row.name_key, row.id)
            input.keptArtists?.add(row.id)
          }
        }
        const albumIds = new Map<string, string>()
        const albums = [...rows.albums.values()]
        const tracks = rows.tracks
        if (albums.length > 0) {
          if (input.reindexed !== false) yield* keepAlbumIds(albums, tracks, input.keptAlbums)
          const written = yield* sql<{ id: string; album_key: string }>`
            INSERT INTO indexed_albums (album_key, title, artist_id, artist_display, search_key, search_words,
                                search_fields, sort_key, release_date, year, mbid, release_comment, compilation,
                                cover_art_source, cover_path, library_id, added_at, updated_at)
            SELECT a.album_key, a.title, a.artist_id, a.artist_display, a.search_key, a.search_words, a.search_fields,
                   a.sort_key, a.release_date, a.year, a.mbid, a.release_comment, a.compilation, a.cover_art_source,
                   a.cover_path, a.library_id, ${now}, ${now}
            FROM unnest(${column(albums, "album_key")}::text[], ${column(albums, "title")}::text[],
                        ${albums.map((album) => artistIds.get(album.artist_keys[0]!)!)}::uuid[],
                        ${column(albums, "artist_display")}::text[],
                        ${column(albums, "search_key")}::text[], ${column(albums, "search_words")}::text[],
                        ${column(albums, "search_fields")}::text[], ${column(albums, "sort_key")}::text[],
                        ${column(albums, "release_date")}::date[],
                        ${column(albums, "year")}::int[], ${column(albums, "mbid")}::text[],
                        ${column(albums, "release_comment")}::text[],
                        ${column(albums, "compilation")}::boolean[], ${column(albums, "cover_art_source")}::text[],
                        ${column(albums, "cover_path")}::text[],
                        ${column(albums, "library_id")}::int[])
                 AS a (album_key, title, artist_id, artist_display, search_key, search_words, search_fields, sort_key,
                       release_date, year, mbid, release_comment, compilation, cover_art_source, cover_path, library_id)
            ON CONFLICT (album_key) DO UPDATE SET
              title = EXCLUDED.title,
              artist_id = EXCLUDED.artist_id,
              artist_display = EXCLUDED.artist_display,
              search_key = EXCLUDED.search_key,
              search_words = EXCLUDED.search_words,
              search_fields = EXCLUDED.search_fields,
              sort_key = EXCLUDED.sort_key,
              release_date = EXCLUDED.release_date,
              year = EXCLUDED.year,
              mbid = COALESCE(EXCLUDED.mbid, indexed_albums.mbid),
              release_comment = EXCLUDED.release_comment,
              compilation = EXCLUDED.compilation,
              cover_art_source = COALESCE(EXCLUDED.cover_art_source, indexed_albums.cover_art_source),
              cover_path = CASE WHEN EXCLUDED.cover_art_source IS NULL THEN indexed_albums.cover_path ELSE EXCLUDED.cover_path END,
              updated_at = EXCLUDED.updated_at,
              missing_since = NULL
            RETURNING id, album_key`
          for (const row of written) {
            albumIds.set(row.album_key, row.id)
            input.keptAlbums?.add(row.id)
          }
          const creditAlbums: Array<string> = []
          const creditPositions: Array<number> = []
          const creditArtists: Array<string> = []
          for (const album of albums) {
            album.artist_keys.forEach((key, position) => {
              creditAlbums.push(albumIds.get(album.album_key)!)
              creditPositions.push(position)
              creditArtists.push(artistIds.get(key)!)
            })
          }
          yield* sql`DELETE FROM album_artists WHERE album_id = ANY(${[...albumIds.values()]}::uuid[])`
          yield* sql`
            INSERT INTO album_artists (album_id, position, artist_id)
            SELECT * FROM unnest(${creditAlbums}::uuid[], ${creditPositions}::smallint[], ${creditArtists}::uuid[])`
        }
        let insertedTracks = 0
        const updatedPaths: Array<string> = []
        const trackIds: Array<string> = []
        if (tracks.length > 0) {
          const written = yield* sql<{ id: string; path: string; inserted: boolean }>`
            INSERT INTO indexed_tracks (path, directory, size_bytes, mtime_ms, title, search_key, search_words,
                                search_fields, sort_title, album_id, artist_id, artist_display, track_number, disc_number, disc_subtitle, duration_ms, genre,
                                file_format, bitrate_kbps, mbid, has_embedded_cover, rg_track_gain, rg_track_peak,
                                rg_album_gain, rg_album_peak, library_id, added_at, updated_at)
            SELECT t.path, t.directory, t.size_bytes, t.mtime_ms, t.title, t.search_key, t.search_words,
                   t.search_fields, t.sort_title, t.album_id, t.artist_id, t.artist_display, t.track_number, t.disc_number, t.disc_subtitle, t.duration_ms, t.genre,
                   t.file_format, t.bitrate_kbps, t.mbid, t.has_embedded_cover, t.rg_track_gain, t.rg_track_peak,
                   t.rg_album_gain, t.rg_album_peak, t.library_id, ${now}, ${now}
            FROM unnest(${column(tracks, "path")}::text[], ${column(tracks, "directory")}::text[],
                        ${column(tracks, "size_bytes")}::bigint[], ${column(tracks, "mtime_ms")}::bigint[],
                        ${column(tracks, "title")}::text[], ${column(tracks, "search_key")}::text[],
                        ${column(tracks, "search_words")}::text[], ${column(tracks, "search_fields")}::text[],
                        ${column(tracks, "sort_title")}::text[],
                        ${tracks.map((track) => albumIds.get(track.album_key)!)}::uuid[],
                        ${tracks.map((track) => artistIds.get(leadArtistKey(track))!)}::uuid[],
                        ${column(tracks, "artist_display")}::text[],
                        ${column(tracks, "track_number")}::int[], ${column(tracks, "disc_number")}::int[],
                        ${column(tracks, "disc_subtitle")}::text[],
                        ${column(tracks, "duration_ms")}::int[], ${column(tracks, "genre")}::text[],
                        ${column(tracks, "file_format")}::text[], ${column(tracks, "bitrate_kbps")}::int[],
                        ${column(tracks, "mbid")}::text[], ${column(tracks, "has_embedded_cover")}::boolean[],
                        ${column(tracks, "rg_track_gain")}::float8[], ${column(tracks, "rg_track_peak")}::float8[],
                        ${column(tracks, "rg_album_gain")}::float8[], ${column(tracks, "rg_album_peak")}::float8[],
                        ${tracks.map((track) => libraryOfStoredPath(track.path))}::int[])
                 AS t (path, directory, size_bytes, mtime_ms, title, search_key, search_words, search_fields,
                       sort_title, album_id, artist_id,
                       artist_display, track_number, disc_number, disc_subtitle, duration_ms, genre, file_format,
                       bitrate_kbps, mbid, has_embedded_cover, rg_track_gain, rg_track_peak, rg_album_gain,
                       rg_album_peak, library_id)
            ON CONFLICT (path) DO UPDATE SET
              directory = EXCLUDED.directory, size_bytes = EXCLUDED.size_bytes, mtime_ms = EXCLUDED.mtime_ms,
              title = EXCLUDED.title, search_key = EXCLUDED.search_key, search_words = EXCLUDED.search_words,
              search_fields = EXCLUDED.search_fields, sort_title = EXCLUDED.sort_title,
              album_id = EXCLUDED.album_id, artist_id = EXCLUDED.artist_id, artist_display = EXCLUDED.artist_display,
              track_number = EXCLUDED.track_number, disc_number = EXCLUDED.disc_number,
              disc_subtitle = EXCLUDED.disc_subtitle, duration_ms = EXCLUDED.duration_ms, genre = EXCLUDED.genre,
              file_format = EXCLUDED.file_format, bitrate_kbps = EXCLUDED.bitrate_kbps, mbid = EXCLUDED.mbid,
              has_embedded_cover = EXCLUDED.has_embedded_cover, rg_track_gain = EXCLUDED.rg_track_gain,
              rg_track_peak = EXCLUDED.rg_track_peak, rg_album_gain = EXCLUDED.rg_album_gain,
              rg_album_peak = EXCLUDED.rg_album_peak, updated_at = EXCLUDED.updated_at,
              missing_since = NULL
            RETURNING id, path, (xmax = 0) AS inserted`
          const idByPath = new Map<string, string>()
          for (const row of written) {
            idByPath.set(row.path, row.id)
            trackIds.push(row.id)
            if (row.inserted) insertedTracks++
            else updatedPaths.push(row.path)
          }
          if (updatedPaths.length > 0) {
            const updatedIds = updatedPaths.map((p) => idByPath.get(p)!)
            yield* sql`DELETE FROM track_genres WHERE track_id = ANY(${updatedIds}::uuid[])`
            yield* sql`DELETE FROM track_artists WHERE track_id = ANY(${updatedIds}::uuid[])`
          }
          const genreTracks: Array<string> = []
          const genreNames: Array<string> = []
          const creditTracks: Array<string> = []
          const creditPositions: Array<number> = []
          const creditArtists: Array<string> = []
          const creditRoles: Array<string> = []
          for (const track of tracks) {
            const id = idByPath.get(track.path)!
            for (const genre of track.genres) {
              genreTracks.push(id)
              genreNames.push(genre)
            }
            track.credits.forEach((credit, position) => {
              creditTracks.push(id)
              creditPositions.push(position)
              creditArtists.push(artistIds.get(credit.artist_key)!)
              creditRoles.push(credit.role)
            })
          }
          if (genreTracks.length > 0) {
            yield* sql`
              INSERT INTO track_genres (track_id, genre)
              SELECT * FROM unnest(${genreTracks}::uuid[], ${genreNames}::text[]) ON CONFLICT DO NOTHING`
          }
          yield* sql`
            INSERT INTO track_artists (track_id, position, artist_id, role)
            SELECT * FROM unnest(${creditTracks}::uuid[], ${creditPositions}::smallint[], ${creditArtists}::uuid[],
                                 ${creditRoles}::text[])`
        }
        if (input.folders.length > 0) {
          yield* sql`
            INSERT INTO library_folders (path, sidecar, sidecar_mtime_ms, scanned_at)
            SELECT f.path, f.sidecar, f.sidecar_mtime_ms, ${now}
            FROM unnest(${column(input.folders, "path")}::text[], ${column(input.folders, "sidecar")}::text[],
                        ${column(input.folders, "sidecarMtimeMs")}::bigint[]) AS f (path, sidecar, sidecar_mtime_ms)
            ON CONFLICT (path) DO UPDATE SET
              sidecar = EXCLUDED.sidecar, sidecar_mtime_ms = EXCLUDED.sidecar_mtime_ms, scanned_at = EXCLUDED.scanned_at`
        }
        // Files that parse now are no longer errors; files that fail are (re)recorded with their size and mtime.
        if (input.clearErrors) yield* sql`DELETE FROM scan_errors WHERE path = ANY(${column(tracks, "path")}::text[])`
        if (input.errors.length > 0) {
          const errorPaths = column(input.errors, "path")
          yield* sql`
            INSERT INTO scan_errors (path, size_bytes, mtime_ms, message, seen_at)
            SELECT e.path, e.size_bytes, e.mtime_ms, e.message, ${now}
            FROM unnest(${errorPaths}::text[], ${column(input.errors, "sizeBytes")}::bigint[],
                        ${column(input.errors, "mtimeMs")}::bigint[],
                        ${input.errors.map((error) => error.message.slice(0, 1000))}::text[])
                 AS e (path, size_bytes, mtime_ms, message)
            ON CONFLICT (path) DO UPDATE SET
              size_bytes = EXCLUDED.size_bytes, mtime_ms = EXCLUDED.mtime_ms, message = EXCLUDED.message,
              seen_at = EXCLUDED.seen_at`
          // A file that turned unreadable keeps its track as it was (likes, playlists, plays): only the error is new.
        }
        return {
          inserted: insertedTracks,
          updatedPaths,
          artistIds: [...artistIds.values()],
          albumIds: [...albumIds.values()],
          trackIds,
        } satisfies BatchOutcome
      }).pipe(sql.withTransaction, orInternal("CatalogRepository.writeBatch"))

    /** Marks the present tracks at these paths missing (their files are gone); returns their ids. */
    const markMissing = (paths: ReadonlyArray<string>, now: Date) =>
      Effect.forEach(chunks(paths), (chunk) =>
        sql<{ id: string }>`
          UPDATE indexed_tracks SET missing_since = ${now}
          WHERE path = ANY(${chunk as Array<string>}) AND missing_since IS NULL
          RETURNING id`.pipe(Effect.map((rows) => rows.map((row) => row.id))),
      ).pipe(
        Effect.map((ids) => ids.flat()),
        orInternal("CatalogRepository.markMissing"),
      )

    /** A removed library (contract "Multiple libraries"): its present tracks become missing; returns their ids. */
    const markLibraryMissing = (libraryId: number, now: Date) =>
      Effect.gen(function* () {
        // After any batch of the library's scan that is writing (in its removal's transaction: a later batch sees
        // the library removed and stops).
        yield* lockCatalogWrites
        return yield* sql<{ id: string }>`
          UPDATE indexed_tracks SET missing_since = ${now}
          WHERE library_id = ${libraryId} AND missing_since IS NULL RETURNING id`
      }).pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        orInternal("CatalogRepository.markLibraryMissing"),
      )

    /** A removed library added again: the tracks its removal marked missing come back, under their ids. */
    const restoreLibrary = (libraryId: number, removedAt: Date) =>
      sql<{ id: string }>`
        UPDATE indexed_tracks SET missing_since = NULL
        WHERE library_id = ${libraryId} AND missing_since >= ${removedAt} RETURNING id`.pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        orInternal("CatalogRepository.restoreLibrary"),
      )

    /**
     * Deletes missing tracks for good (an admin's choice): the given ids, or every missing track when
     * `ids` is undefined. Present tracks are never touched. Returns the ids deleted.
     */
    const purgeMissing = (ids: ReadonlyArray<string> | undefined) =>
      (ids === undefined
        ? sql<{ id: string }>`DELETE FROM indexed_tracks WHERE missing_since IS NOT NULL RETURNING id`
        : sql<{ id: string }>`
            DELETE FROM indexed_tracks
            WHERE missing_since IS NOT NULL AND id = ANY(${ids as Array<string>}::uuid[])
            RETURNING id`
      ).pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        orInternal("CatalogRepository.purgeMissing"),
      )

    /** Deletes tracks for good, present or missing (a moderation `delete_file`). Returns the ids deleted. */
    const deleteTracks = (ids: ReadonlyArray<string>) =>
      sql<{ id: string }>`DELETE FROM indexed_tracks WHERE id = ANY(${ids as Array<string>}::uuid[]) RETURNING id`.pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        orInternal("CatalogRepository.deleteTracks"),
      )

    const forgetFolders = (paths: ReadonlyArray<string>) =>
      Effect.forEach(
        chunks(paths),
        (chunk) => sql`DELETE FROM library_folders WHERE path = ANY(${chunk as Array<string>})`,
        {
          discard: true,
        },
      ).pipe(orInternal("CatalogRepository.forgetFolders"))

    const forgetErrors = (paths: ReadonlyArray<string>) =>
      Effect.forEach(
        chunks(paths),
        (chunk) => sql`DELETE FROM scan_errors WHERE path = ANY(${chunk as Array<string>})`,
        {
          discard: true,
        },
      ).pipe(orInternal("CatalogRepository.forgetErrors"))

    /**
     * The derived indexes browse reads instead of aggregating per request (genres with their counts, each
     * album's genres, years), rebuilt from the present rows inside tidy's transaction: readers keep seeing the
     * previous index until it commits, on every replica.
     */
    const refreshDerived = Effect.gen(function* () {
      // One refresh at a time across replicas (a purge can tidy during a scan); reads are not blocked.
      yield* sql`LOCK TABLE album_genres, library_genres, library_years IN EXCLUSIVE MODE`
      yield* sql`DELETE FROM album_genres`
      yield* sql`
        INSERT INTO album_genres (genre, album_id)
        SELECT DISTINCT g.genre, t.album_id FROM track_genres g JOIN tracks t ON t.id = g.track_id`
      yield* sql`DELETE FROM library_genres`
      yield* sql`
        INSERT INTO library_genres (genre, track_count, album_count)
        SELECT g.genre, count(*)::int, count(DISTINCT t.album_id)::int
        FROM track_genres g JOIN tracks t ON t.id = g.track_id GROUP BY g.genre`
      yield* sql`DELETE FROM library_years`
      yield* sql`
        INSERT INTO library_years (year, album_count)
        SELECT year, count(*)::int FROM albums GROUP BY year`
    })

    /**
     * After a scan (or a purge) that changed anything: delete albums and artists left with no rows at all,
     * flag the ones left with nothing present missing (an album: no present track; an artist: no present
     * track nor album) and restore the others, drop covers whose source is gone, and refresh the stored
     * counts the browse queries read (present rows only; an album or artist with none counts 0).
     */
    const tidy = (now: Date) =>
      Effect.gen(function* () {
        yield* lockCatalogWrites
        const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id)
        const deletedAlbums = yield* sql<{ id: string }>`
          DELETE FROM indexed_albums a WHERE NOT EXISTS (SELECT 1 FROM indexed_tracks t WHERE t.album_id = a.id)
          RETURNING id`
        const deletedArtists = yield* sql<{ id: string }>`
          DELETE FROM indexed_artists ar
          WHERE NOT EXISTS (SELECT 1 FROM track_artists ta WHERE ta.artist_id = ar.id)
            AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.artist_id = ar.id)
            AND NOT EXISTS (SELECT 1 FROM indexed_tracks t WHERE t.artist_id = ar.id)
            AND NOT EXISTS (SELECT 1 FROM indexed_albums a WHERE a.artist_id = ar.id)
          RETURNING id`
        // `tracks` and `albums` are the views of present rows: they see the flags set just before.
        const missingAlbums = yield* sql<{ id: string }>`
          UPDATE indexed_albums a SET missing_since = ${now}
          WHERE a.missing_since IS NULL AND NOT EXISTS (SELECT 1 FROM tracks t WHERE t.album_id = a.id)
          RETURNING id`
        const restoredAlbums = yield* sql<{ id: string }>`
          UPDATE indexed_albums a SET missing_since = NULL
          WHERE a.missing_since IS NOT NULL AND EXISTS (SELECT 1 FROM tracks t WHERE t.album_id = a.id)
          RETURNING id`
        // An artist is present while a present track credits them or a present album has them as album artist.
        const missingArtists = yield* sql<{ id: string }>`
          UPDATE indexed_artists ar SET missing_since = ${now}
          WHERE ar.missing_since IS NULL
            AND NOT EXISTS (SELECT 1 FROM track_artists ta JOIN tracks t ON t.id = ta.track_id WHERE ta.artist_id = ar.id)
            AND NOT EXISTS (SELECT 1 FROM album_artists aa JOIN albums a ON a.id = aa.album_id WHERE aa.artist_id = ar.id)
          RETURNING id`
        const restoredArtists = yield* sql<{ id: string }>`
          UPDATE indexed_artists ar SET missing_since = NULL
          WHERE ar.missing_since IS NOT NULL
            AND (EXISTS (SELECT 1 FROM track_artists ta JOIN tracks t ON t.id = ta.track_id WHERE ta.artist_id = ar.id)
                 OR EXISTS (SELECT 1 FROM album_artists aa JOIN albums a ON a.id = aa.album_id WHERE aa.artist_id = ar.id))
          RETURNING id`
        const uncovered = yield* sql<{ id: string }>`
          UPDATE indexed_albums al SET cover_art_source = NULL, cover_path = NULL
          WHERE al.missing_since IS NULL
            AND ((al.cover_art_source = 'embedded'
                  AND NOT EXISTS (SELECT 1 FROM tracks t WHERE t.path = al.cover_path AND t.has_embedded_cover))
              OR (al.cover_art_source = 'sidecar'
                  AND NOT EXISTS (SELECT 1 FROM library_folders f WHERE f.sidecar = al.cover_path)))
          RETURNING id`
        // An album that lost its sidecar falls back to an embedded picture of its own tracks.
        const recovered = yield* sql<{ id: string }>`
          UPDATE indexed_albums a SET cover_art_source = 'embedded', cover_path = pick.path
          FROM (SELECT DISTINCT ON (album_id) album_id, path FROM tracks WHERE has_embedded_cover
                ORDER BY album_id, disc_number NULLS FIRST, track_number NULLS LAST, path) pick
          WHERE a.id = pick.album_id AND a.cover_art_source IS NULL AND a.missing_since IS NULL
          RETURNING a.id`
        const recounted = yield* sql<{ id: string; present: boolean }>`
          UPDATE indexed_albums a SET track_count = COALESCE(s.n, 0), duration_ms = COALESCE(s.ms, 0)
          FROM indexed_albums base
          LEFT JOIN (SELECT album_id, count(*)::int AS n, COALESCE(sum(duration_ms), 0)::bigint AS ms
                     FROM tracks GROUP BY album_id) s ON s.album_id = base.id
          WHERE a.id = base.id AND (a.track_count <> COALESCE(s.n, 0) OR a.duration_ms <> COALESCE(s.ms, 0))
          RETURNING a.id, a.missing_since IS NULL AS present`
        const artistsRecounted = yield* sql<{ id: string; present: boolean }>`
          UPDATE indexed_artists ar SET album_count = COALESCE(al.n, 0), track_count = COALESCE(tr.n, 0)
          FROM indexed_artists base
          LEFT JOIN (SELECT aa.artist_id, count(*)::int AS n FROM album_artists aa JOIN albums a ON a.id = aa.album_id
                     GROUP BY aa.artist_id) al ON al.artist_id = base.id
          LEFT JOIN (SELECT ta.artist_id, count(*)::int AS n FROM track_artists ta JOIN tracks t ON t.id = ta.track_id
                     GROUP BY ta.artist_id) tr ON tr.artist_id = base.id
          WHERE ar.id = base.id AND (ar.album_count <> COALESCE(al.n, 0) OR ar.track_count <> COALESCE(tr.n, 0))
          RETURNING ar.id, ar.missing_since IS NULL AS present`
        // Search ties are broken by popularity in the library (migration 0017): how many tracks credit the track's
        // artist, or the album's first album artist. Only rows whose figure moved are written.
        yield* sql`
          UPDATE indexed_tracks t SET popularity = ar.track_count
          FROM indexed_artists ar WHERE ar.id = t.artist_id AND t.popularity <> ar.track_count`
        yield* sql`
          UPDATE indexed_albums a SET popularity = ar.track_count
          FROM indexed_artists ar WHERE ar.id = a.artist_id AND a.popularity <> ar.track_count`
        // Editions: an album tells itself apart by its release comment, else (when another album has the same
        // artist and title) by its year.
        const versioned = yield* sql<{ id: string }>`
          UPDATE indexed_albums a SET version = v.version
          FROM (SELECT x.id,
                       COALESCE(x.release_comment,
                                CASE WHEN x.year > 0 AND EXISTS (
                                       SELECT 1 FROM albums y
                                       WHERE y.artist_id = x.artist_id AND y.search_key = x.search_key AND y.id <> x.id)
                                     THEN x.year::text END) AS version
                FROM albums x) v
          WHERE a.id = v.id AND a.version IS DISTINCT FROM v.version
          RETURNING a.id`
        yield* refreshDerived
        const present = (rows: ReadonlyArray<{ id: string; present: boolean }>) =>
          rows.filter((row) => row.present).map((row) => row.id)
        return {
          goneAlbums: [...ids(deletedAlbums), ...ids(missingAlbums)],
          goneArtists: [...ids(deletedArtists), ...ids(missingArtists)],
          changedAlbums: [
            ...new Set([
              ...ids(restoredAlbums),
              ...ids(uncovered),
              ...ids(recovered),
              ...present(recounted),
              ...ids(versioned),
            ]),
          ],
          changedArtists: [...new Set([...ids(restoredArtists), ...present(artistsRecounted)])],
        } satisfies TidyOutcome
      }).pipe(sql.withTransaction, orInternal("CatalogRepository.tidy"))

    /**
     * The search's indexes (migrations 0017, 0030): the tie-order walks and the trigram documents of tracks and albums.
     * Every row written keeps them up to date, which is most of a first scan's database time; a bulk load drops
     * them and builds them once at its end (`bulkLoadsSearch`).
     */
    const searchIndexes: ReadonlyArray<{ readonly name: string; readonly trigram: boolean; readonly create: string }> =
      (["indexed_tracks", "indexed_albums"] as const).flatMap((table) => [
        {
          name: `${table}_search_order_idx`,
          trigram: false,
          create: `CREATE INDEX IF NOT EXISTS ${table}_search_order_idx ON ${table}
                   (popularity DESC, search_key COLLATE "C", id) INCLUDE (search_words, search_fields, library_id)
                   WHERE missing_since IS NULL`,
        },
        {
          name: `${table}_search_document_idx`,
          trigram: true,
          create: `CREATE INDEX IF NOT EXISTS ${table}_search_document_idx ON ${table}
                   USING gin (search_words gin_trgm_ops, search_fields gin_trgm_ops) WHERE missing_since IS NULL`,
        },
      ])

    /** Every present track of every library (the search indexes span them all). */
    const presentTrackTotal = sql<{ n: number }>`SELECT count(*)::int AS n FROM tracks`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      orInternal("CatalogRepository.presentTrackTotal"),
    )

    /**
     * Drops the search indexes for a bulk load. Answers false (and drops nothing) when a reader holds the tables
     * longer than a moment: the load then keeps them up to date row by row.
     */
    const dropSearchIndexes = Effect.gen(function* () {
      yield* sql`SET LOCAL lock_timeout = '2s'`
      yield* lockCatalogWrites
      for (const index of searchIndexes) yield* sql.unsafe(`DROP INDEX IF EXISTS ${index.name}`)
      return true
    }).pipe(
      sql.withTransaction,
      Effect.catchTag("SqlError", () => Effect.succeed(false)),
    )

    /**
     * Builds the search indexes that are missing (after a bulk load, or one a killed process left dropped); a no-op
     * when they exist. The trigram ones only where pg_trgm is installed, as migration 0017 made them.
     */
    const ensureSearchIndexes = Effect.gen(function* () {
      yield* lockCatalogWrites
      const present = yield* sql<{ name: string }>`
        SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()
          AND indexname IN ${sql.in(searchIndexes.map((index) => index.name))}`
      const have = new Set(present.map((row) => row.name))
      const missing = searchIndexes.filter((index) => !have.has(index.name))
      if (missing.length === 0) return 0
      const [trgm] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`
      const built = missing.filter((index) => !index.trigram || (trgm?.n ?? 0) > 0)
      // One pass over the table per index; the sort of a 100k-track build fits in this much memory.
      yield* sql`SET LOCAL maintenance_work_mem = '128MB'`
      for (const index of built) yield* sql.unsafe(index.create)
      return built.length
    }).pipe(sql.withTransaction, orInternal("CatalogRepository.ensureSearchIndexes"))

    /**
     * Fresh planner statistics for the catalog tables. A first scan of a big library (or one that rewrote much of
     * it) leaves PostgreSQL planning with the empty tables' figures until autovacuum comes by, and browse and search
     * pick sequential scans meanwhile (search "the" at 100k tracks: 110 ms instead of 4 ms).
     */
    const analyze = sql`
      ANALYZE indexed_tracks, indexed_albums, indexed_artists, track_genres, album_genres, library_genres`.pipe(
      Effect.asVoid,
      orInternal("CatalogRepository.analyze"),
    )

    /** Enrichment found a MusicBrainz id for an artist or album that had none (a tagged one is never replaced). */
    const adoptMbid = (kind: "album" | "artist", id: string, mbid: string) =>
      (kind === "album"
        ? sql<{ id: string }>`UPDATE indexed_albums SET mbid = ${mbid} WHERE id = ${id} AND mbid IS NULL RETURNING id`
        : sql<{ id: string }>`UPDATE indexed_artists SET mbid = ${mbid} WHERE id = ${id} AND mbid IS NULL RETURNING id`
      ).pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("CatalogRepository.adoptMbid"),
      )

    /** An external provider's cover for an album without one (a local sidecar or embedded picture always wins). */
    const adoptExternalCover = (albumId: string, source: string, coverPath: string) =>
      sql<{ id: string }>`
        UPDATE indexed_albums SET cover_art_source = ${source}, cover_path = ${coverPath}
        WHERE id = ${albumId} AND cover_art_source IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("CatalogRepository.adoptExternalCover"),
      )

    /** An external provider's image for an artist without one. */
    const adoptArtistArt = (artistId: string, source: string) =>
      sql<{ id: string }>`
        UPDATE indexed_artists SET art_source = ${source} WHERE id = ${artistId} AND art_source IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("CatalogRepository.adoptArtistArt"),
      )

    /** Present tracks per album artist and track folder: where the artist images a scan found can apply. */
    const albumArtistFolders = sql<{ artist_id: string; directory: string; tracks: number }>`
      SELECT al.artist_id, t.directory, count(*)::int AS tracks
      FROM tracks t JOIN albums al ON al.id = t.album_id
      GROUP BY al.artist_id, t.directory`.pipe(orInternal("CatalogRepository.albumArtistFolders"))

    /**
     * The artists' local images (`artist.*`, library-relative paths), which win over any provider's: the given
     * artists take theirs (source `sidecar`); every other artist whose image was a sidecar loses it and is due for
     * enrichment again (`updated_at` moves), so a provider's image can take its place. Answers the artists changed.
     */
    const setArtistSidecars = (
      images: ReadonlyArray<{ readonly artistId: string; readonly path: string }>,
      now: Date,
      libraryId: number = PRIMARY_LIBRARY,
    ) =>
      Effect.gen(function* () {
        const ids = images.map((image) => image.artistId)
        const adopted = yield* sql<{ id: string }>`
          UPDATE indexed_artists ar SET art_source = 'sidecar', art_path = i.path
          FROM unnest(${ids}::uuid[], ${images.map((image) => image.path)}::text[]) AS i (id, path)
          WHERE ar.id = i.id AND (ar.art_source IS DISTINCT FROM 'sidecar' OR ar.art_path IS DISTINCT FROM i.path)
          RETURNING ar.id`
        const dropped = yield* sql<{ id: string }>`
          UPDATE indexed_artists SET art_source = NULL, art_path = NULL, updated_at = ${now}
          WHERE art_source = 'sidecar' AND NOT (id = ANY(${ids}::uuid[])) AND ${pathIn("art_path", libraryId)}
          RETURNING id`
        return [...adopted, ...dropped].map((row) => row.id)
      }).pipe(sql.withTransaction, orInternal("CatalogRepository.setArtistSidecars"))

    return {
      knownTracks,
      knownErrors,
      knownFolders,
      presentTrackCount,
      vanishedTracks,
      writeBatch,
      markMissing,
      markLibraryMissing,
      restoreLibrary,
      purgeMissing,
      deleteTracks,
      forgetFolders,
      forgetErrors,
      tidy,
      analyze,
      presentTrackTotal,
      dropSearchIndexes,
      ensureSearchIndexes,
      adoptMbid,
      adoptExternalCover,
      adoptArtistArt,
      albumArtistFolders,
      setArtistSidecars,
    } as const
  }),
}) {}
