import { SqlClient } from "@effect/sql"
import { type AlbumId, AlbumRefFields, type AlbumSort, Artist, type ArtistId, Track, type TrackId } from "@tonearm/core"
import { Effect, Schema, Struct } from "effect"
import { PLANNED_PER_EXECUTION } from "../db/Database.js"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"
import { isCatalogText } from "./catalogColumns.js"

/** Instants come back from pg as `Date`; everything else is the wire schema itself. */
const FromDb = { added_at: Schema.DateTimeUtcFromDate }

/** An album row: the wire AlbumRef less its derived cover_url. */
export const AlbumRecord = Schema.Struct({ ...Struct.omit(AlbumRefFields, "cover_url"), ...FromDb })
export type AlbumRecord = typeof AlbumRecord.Type

export const TrackFileRecord = Schema.Struct({
  path: Schema.String,
  file_format: Schema.String,
  title: Schema.String,
  bitrate_kbps: Schema.NullOr(Schema.Number),
})

export const AlbumCoverRecord = Schema.Struct({
  cover_art_source: Schema.NullOr(Schema.String),
  cover_path: Schema.NullOr(Schema.String),
})

/** The catalog aggregate: its field types checked here, its values where it is decoded (`catalogColumns.ts`). */
const CatalogTextRow = Schema.declare(isCatalogText, { identifier: "CatalogText" })

export const TrackRecord = Schema.Struct({ ...Track.fields, ...FromDb })
export type TrackRecord = typeof TrackRecord.Type

/** An artist row: the wire Artist less its derived cover_url. */
export const ArtistRecord = Schema.Struct(Struct.omit(Artist.fields, "cover_url"))
export type ArtistRecord = typeof ArtistRecord.Type

const ALBUM_COLUMNS = `a.id, a.title, a.artist_id, ar.name AS artist_name, a.year,
  to_char(a.release_date, 'YYYY-MM-DD') AS release_date, a.track_count, a.duration_ms::float8 AS duration_ms,
  a.cover_art_source, a.mbid, a.added_at`
const TRACK_COLUMNS = `t.id, t.title, t.album_id, al.title AS album_title, t.artist_id, ar.name AS artist_name,
  t.track_number, t.disc_number, t.duration_ms, t.genre, t.file_format, t.bitrate_kbps,
  t.size_bytes::float8 AS size_bytes, t.mbid, t.added_at`
const ARTIST_COLUMNS = "ar.id, ar.name, ar.sort_name, ar.mbid, ar.album_count, ar.track_count, ar.art_source"

/** The contract's album sorts, plus newest year first (Subsonic `byYear` with fromYear > toYear). */
export type BrowseSort = AlbumSort | "year_desc"

/** Sorted on accent-free lower-case keys in code-point order: "Über" files under U, the same on every server. */
const ORDER: Record<BrowseSort, string> = {
  title: `a.search_key COLLATE "C", a.title COLLATE "C", a.id`,
  year: `a.year, a.search_key COLLATE "C", a.id`,
  year_desc: `a.year DESC, a.search_key COLLATE "C", a.id`,
  added: "a.added_at DESC, a.id",
  artist: `ar.sort_key COLLATE "C", a.year, a.search_key COLLATE "C", a.id`,
}

/** `LIKE` pattern text with its wildcards escaped. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (match) => `\\${match}`)

export interface AlbumFilter {
  readonly genre?: string | undefined
  readonly yearFrom?: number | undefined
  readonly yearTo?: number | undefined
}

/** Read-side SQL of the library: what browsing, search and home show. */
export class BrowseRepository extends Effect.Service<BrowseRepository>()("@tonearm/server/BrowseRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const albumColumns = sql.literal(ALBUM_COLUMNS)
    const trackColumns = sql.literal(TRACK_COLUMNS)
    const artistColumns = sql.literal(ARTIST_COLUMNS)
    // Statements whose best plan depends on the values: a common word or genre and a rare one (Database.ts).
    const perExecution = sql.literal(PLANNED_PER_EXECUTION)
    const trackFrom = sql.literal(
      "tracks t JOIN albums al ON al.id = t.album_id JOIN artists ar ON ar.id = t.artist_id",
    )

    /**
     * Genre index: the genre rule was applied once per track at scan time (track_genres); the scan's tidy phase
     * keeps the counts of present tracks in library_genres, so a request reads ~200 rows instead of grouping them all.
     */
    const genres = sql<{ genre: string; track_count: number }>`
      SELECT genre, track_count FROM library_genres
      ORDER BY lower(genre) COLLATE "C", genre COLLATE "C"`.pipe(orInternal("BrowseRepository.genres"))

    /**
     * Albums per year (library_years, kept by the scan's tidy phase). Undated albums (year 0) are counted there for
     * the album list's total but have no bucket in the index.
     */
    const years = sql<{ year: number; album_count: number }>`
      SELECT year, album_count FROM library_years WHERE year > 0 ORDER BY year DESC`.pipe(
      orInternal("BrowseRepository.years"),
    )

    /** The same predicate serves the page and its total, so a listed genre always has a non-empty page. */
    const albumWhere = (filter: AlbumFilter) => {
      const clauses = [sql`TRUE`]
      if (filter.genre !== undefined) {
        clauses.push(sql`a.id IN (SELECT ag.album_id FROM album_genres ag WHERE ag.genre = ${filter.genre})`)
      }
      if (filter.yearFrom !== undefined || filter.yearTo !== undefined) clauses.push(sql`a.year > 0`)
      if (filter.yearFrom !== undefined) clauses.push(sql`a.year >= ${filter.yearFrom}`)
      if (filter.yearTo !== undefined) clauses.push(sql`a.year <= ${filter.yearTo}`)
      return sql.and(clauses)
    }

    /**
     * How many albums the filter matches, from the derived indexes the scan keeps (a genre's album count, the
     * albums per year) instead of counting the albums on every page: the same present rows as `albumWhere`.
     */
    const albumTotal = (filter: AlbumFilter) =>
      filter.genre !== undefined
        ? sql`SELECT album_count FROM library_genres WHERE genre = ${filter.genre}`
        : filter.yearFrom !== undefined || filter.yearTo !== undefined
          ? sql`SELECT COALESCE(sum(album_count), 0)::int FROM library_years
                WHERE year > 0 AND year >= ${filter.yearFrom ?? 0} AND year <= ${filter.yearTo ?? 2_147_483_647}`
          : sql`SELECT COALESCE(sum(album_count), 0)::int FROM library_years`

    /**
     * A page of albums and their total in one statement (one round trip: on this kind of machine each costs more
     * than the query); a page past the end has no row to carry the total, so it is read on its own then.
     */
    const albumPage = (filter: AlbumFilter, sort: BrowseSort, offset: number, limit: number) =>
      Effect.gen(function* () {
        const total = sql`COALESCE((${albumTotal(filter)}), 0)`
        const filtered = filter.genre !== undefined || filter.yearFrom !== undefined || filter.yearTo !== undefined
        const rows = yield* sql<{ readonly page_total: number }>`${filtered ? perExecution : sql.literal("")}
          SELECT ${albumColumns}, ${total} AS page_total
          FROM albums a JOIN artists ar ON ar.id = a.artist_id
          WHERE ${albumWhere(filter)} ORDER BY ${sql.literal(ORDER[sort])} OFFSET ${offset} LIMIT ${limit}`
        const items = yield* decodeRows(AlbumRecord)(rows)
        const [counted] =
          rows.length > 0 ? rows : yield* sql<{ readonly page_total: number }>`SELECT ${total} AS page_total`
        return { items, total: counted?.page_total ?? 0 }
      }).pipe(orInternal("BrowseRepository.albumPage"))

    const album = (id: AlbumId) =>
      sql`SELECT ${albumColumns} FROM albums a JOIN artists ar ON ar.id = a.artist_id WHERE a.id = ${id}`.pipe(
        Effect.flatMap(decodeFirst(AlbumRecord)),
        orInternal("BrowseRepository.album"),
      )

    const albumTracks = (id: AlbumId) =>
      sql`SELECT ${trackColumns} FROM ${trackFrom} WHERE t.album_id = ${id}
          ORDER BY t.disc_number NULLS FIRST, t.track_number NULLS LAST, t.search_key COLLATE "C", t.id`.pipe(
        Effect.flatMap(decodeRows(TrackRecord)),
        orInternal("BrowseRepository.albumTracks"),
      )

    /** The distinct genres of an album's tracks (chips); fails rather than degrade, the service decides. */
    const albumGenres = (id: AlbumId) =>
      sql<{ genre: string }>`
        SELECT genre FROM album_genres WHERE album_id = ${id} ORDER BY genre`.pipe(
        Effect.map((rows) => rows.map((row) => row.genre)),
      )

    const artist = (id: ArtistId) =>
      sql`SELECT ${artistColumns} FROM artists ar WHERE ar.id = ${id}`.pipe(
        Effect.flatMap(decodeFirst(ArtistRecord)),
        orInternal("BrowseRepository.artist"),
      )

    /** An artist's genres come from the tracks where they are the track artist. */
    const artistGenres = (id: ArtistId) =>
      sql<{ genre: string }>`
        SELECT DISTINCT g.genre FROM track_genres g JOIN tracks t ON t.id = g.track_id
        WHERE t.artist_id = ${id} ORDER BY g.genre`.pipe(Effect.map((rows) => rows.map((row) => row.genre)))

    const WithGenres = Schema.Struct({ genres: Schema.Array(Schema.String) })
    const AlbumWithGenres = Schema.extend(AlbumRecord, WithGenres)
    const ArtistWithGenres = Schema.extend(ArtistRecord, WithGenres)

    /** An album and its genre chips in one round trip (the detail page's row; `album` + `albumGenres` apart). */
    const albumWithGenres = (id: AlbumId) =>
      sql`SELECT ${albumColumns},
                 ARRAY(SELECT genre FROM album_genres WHERE album_id = a.id ORDER BY genre) AS genres
          FROM albums a JOIN artists ar ON ar.id = a.artist_id WHERE a.id = ${id}`.pipe(
        Effect.flatMap(decodeFirst(AlbumWithGenres)),
      )

    /** An artist and their genre chips in one round trip (`artist` + `artistGenres` apart). */
    const artistWithGenres = (id: ArtistId) =>
      sql`SELECT ${artistColumns},
                 ARRAY(SELECT DISTINCT g.genre FROM track_genres g JOIN tracks t ON t.id = g.track_id
                       WHERE t.artist_id = ar.id ORDER BY g.genre) AS genres
          FROM artists ar WHERE ar.id = ${id}`.pipe(Effect.flatMap(decodeFirst(ArtistWithGenres)))

    /** The first `limit` rows (all when undefined) and how many match in all. */
    const withTotal = (rows: ReadonlyArray<{ readonly total?: unknown }>) => Number(rows[0]?.total ?? 0)

    const albumsBy = (id: ArtistId, limit?: number) =>
      sql`SELECT ${albumColumns}, count(*) OVER () AS total FROM albums a JOIN artists ar ON ar.id = a.artist_id
          WHERE a.artist_id = ${id} ORDER BY a.year, a.search_key COLLATE "C", a.id LIMIT ${limit ?? null}`.pipe(
        Effect.flatMap((rows) =>
          Effect.map(decodeRows(AlbumRecord)(rows), (items) => ({ items, total: withTotal(rows) })),
        ),
        orInternal("BrowseRepository.albumsBy"),
      )

    /** Albums of other album artists (compilations first of all) that hold tracks by this artist. */
    const appearsOn = (id: ArtistId, limit?: number) =>
      sql`SELECT ${albumColumns}, count(*) OVER () AS total FROM albums a JOIN artists ar ON ar.id = a.artist_id
          WHERE a.artist_id <> ${id} AND a.id IN (SELECT t.album_id FROM tracks t WHERE t.artist_id = ${id})
          ORDER BY a.year, a.search_key COLLATE "C", a.id LIMIT ${limit ?? null}`.pipe(
        Effect.flatMap((rows) =>
          Effect.map(decodeRows(AlbumRecord)(rows), (items) => ({ items, total: withTotal(rows) })),
        ),
        orInternal("BrowseRepository.appearsOn"),
      )

    /**
     * Word-prefix match on accent-free lower-case keys: names that start with the key first, then names with a
     * word inside that starts with it, each in key order (artists: most tracks first). Each kind runs as two
     * halves that each stop at the page's end: the first a range of the key index, the second a walk of the
     * order's index (a common word fills the page in a few rows; a rare one is found through the trigram index).
     */
    const search = (key: string, limit: number) =>
      Effect.gen(function* () {
        const inner = `% ${likeEscape(key)}%`
        // Above every key that starts with `key` in code-point order ("C").
        const upper = `${key}\u{10FFFF}`
        const [artists, albums, tracks] = yield* Effect.all(
          [
            sql`${perExecution}SELECT * FROM (
                  (SELECT 0 AS half, ar.sort_key AS key, ${artistColumns} FROM artists ar
                   WHERE ar.search_key COLLATE "C" >= ${key} AND ar.search_key COLLATE "C" < ${upper}
                     AND starts_with(ar.search_key, ${key})
                   ORDER BY ar.track_count DESC, ar.sort_key COLLATE "C", ar.id LIMIT ${limit})
                  UNION ALL
                  (SELECT 1 AS half, ar.sort_key AS key, ${artistColumns} FROM artists ar
                   WHERE ar.search_key LIKE ${inner} AND NOT starts_with(ar.search_key, ${key})
                   ORDER BY ar.track_count DESC, ar.sort_key COLLATE "C", ar.id LIMIT ${limit})
                ) found ORDER BY half, track_count DESC, key COLLATE "C", id LIMIT ${limit}`.pipe(
              Effect.flatMap(decodeRows(ArtistRecord)),
            ),
            sql`${perExecution}SELECT * FROM (
                  (SELECT 0 AS half, a.search_key AS key, ${albumColumns} FROM albums a JOIN artists ar ON ar.id = a.artist_id
                   WHERE a.search_key COLLATE "C" >= ${key} AND a.search_key COLLATE "C" < ${upper}
                     AND starts_with(a.search_key, ${key})
                   ORDER BY a.search_key COLLATE "C", a.year LIMIT ${limit})
                  UNION ALL
                  (SELECT 1 AS half, a.search_key AS key, ${albumColumns} FROM albums a JOIN artists ar ON ar.id = a.artist_id
                   WHERE a.search_key LIKE ${inner} AND NOT starts_with(a.search_key, ${key})
                   ORDER BY a.search_key COLLATE "C", a.year LIMIT ${limit})
                ) found ORDER BY half, key COLLATE "C", year LIMIT ${limit}`.pipe(
              Effect.flatMap(decodeRows(AlbumRecord)),
            ),
            // Each half finds its page of ids on the title-order index alone (an index-only walk that tests the
            // word on the index entry), then reads those rows: walked with every column, a common two-letter word
            // fetched each of the ~2,000 rows it passed over from the table (about twice the time at 100k tracks).
            sql`${perExecution}SELECT * FROM (
                  (SELECT 0 AS half, hit.key, ${trackColumns}
                   FROM (SELECT t.search_key AS key, t.id FROM tracks t
                         WHERE t.search_key COLLATE "C" >= ${key} AND t.search_key COLLATE "C" < ${upper}
                           AND starts_with(t.search_key, ${key})
                         ORDER BY t.search_key COLLATE "C", t.id LIMIT ${limit}) hit
                   JOIN (${trackFrom}) ON t.id = hit.id)
                  UNION ALL
                  (SELECT 1 AS half, hit.key, ${trackColumns}
                   FROM (SELECT t.search_key AS key, t.id FROM tracks t
                         WHERE t.search_key LIKE ${inner} AND NOT starts_with(t.search_key, ${key})
                         ORDER BY t.search_key COLLATE "C", t.id LIMIT ${limit}) hit
                   JOIN (${trackFrom}) ON t.id = hit.id)
                ) found ORDER BY half, key COLLATE "C", id LIMIT ${limit}`.pipe(
              Effect.flatMap(decodeRows(TrackRecord)),
            ),
          ],
          { concurrency: 3 },
        )
        return { artists, albums, tracks }
      }).pipe(orInternal("BrowseRepository.search"))

    /** A seeded shuffle: the same seed gives the same order, so tests can pin it. */
    /** Quarantine (moderation's table, read here only to filter): the tracks a listener flagged stay out. */
    const notFlaggedBy = (userId: string | undefined) =>
      userId === undefined
        ? sql`TRUE`
        : sql`NOT EXISTS (SELECT 1 FROM quarantine q
                          WHERE q.track_id = t.id AND q.user_id = ${userId} AND q.resolved_at IS NULL)`

    const shuffle = (seed: string, limit: number, userId?: string) =>
      sql`SELECT ${trackColumns} FROM ${trackFrom} WHERE ${notFlaggedBy(userId)}
          ORDER BY md5(t.id::text || ${seed}) LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(TrackRecord)),
        orInternal("BrowseRepository.shuffle"),
      )

    const recentlyAdded = (limit: number) =>
      sql`SELECT ${albumColumns} FROM albums a JOIN artists ar ON ar.id = a.artist_id
          ORDER BY a.added_at DESC, a.search_key COLLATE "C", a.id LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(AlbumRecord)),
        orInternal("BrowseRepository.recentlyAdded"),
      )

    /** Albums per cover source (NULL: uncovered). */
    const coverCounts = sql<{ source: string | null; albums: number }>`
      SELECT cover_art_source AS source, count(*)::int AS albums FROM albums GROUP BY cover_art_source`.pipe(
      orInternal("BrowseRepository.coverCounts"),
    )

    /** Where a track's file is, and what to call it (stream and cast routes). */
    const trackFile = (id: TrackId) =>
      sql`SELECT path, file_format, title, bitrate_kbps FROM tracks WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeFirst(TrackFileRecord)),
        orInternal("BrowseRepository.trackFile"),
      )

    /** Where an album's cover comes from and which file holds it. */
    const albumCover = (id: AlbumId) =>
      sql`SELECT cover_art_source, cover_path FROM albums WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeFirst(AlbumCoverRecord)),
        orInternal("BrowseRepository.albumCover"),
      )

    /**
     * Every track as the recommendation engine reads it (the album year and the artist's MusicBrainz id beside
     * the track's own fields), as one aggregate row the engine's thread decodes (`catalogColumns.ts`): it is the
     * largest read the server makes, and row objects would be built and collected on the event loop.
     */
    const catalogText = sql`
      SELECT count(*)::int AS tracks,
             coalesce(json_agg(id)::text, '[]') AS ids,
             coalesce(json_agg(artist_id)::text, '[]') AS artist_ids,
             coalesce(json_agg(album_id)::text, '[]') AS album_ids,
             coalesce(json_agg(album_artist_id)::text, '[]') AS album_artist_ids,
             coalesce(json_agg(genre)::text, '[]') AS genres,
             coalesce(json_agg(artist_mbid)::text, '[]') AS artist_mbids,
             coalesce(string_agg(float8send(duration_ms), ''::bytea), ''::bytea) AS duration_ms,
             coalesce(string_agg(float8send(year), ''::bytea), ''::bytea) AS year,
             coalesce(string_agg(float8send(added_at_ms), ''::bytea), ''::bytea) AS added_at_ms
      FROM (
        SELECT t.id, t.artist_id, t.album_id, al.artist_id AS album_artist_id, t.genre, ar.mbid AS artist_mbid,
               t.duration_ms::float8 AS duration_ms, coalesce(al.year::float8, 'NaN') AS year,
               (extract(epoch FROM t.added_at) * 1000)::float8 AS added_at_ms
        FROM tracks t JOIN albums al ON al.id = t.album_id JOIN artists ar ON ar.id = t.artist_id
        ORDER BY t.id
      ) c`.pipe(
      Effect.flatMap((rows) => Schema.decodeUnknown(CatalogTextRow)(rows[0])),
      orInternal("BrowseRepository.catalogText"),
    )

    /** Rows for these ids (any order; missing ids are simply absent). */
    const tracksByIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : sql`SELECT ${trackColumns} FROM ${trackFrom} WHERE t.id = ANY(${ids as Array<string>}::uuid[])`.pipe(
            Effect.flatMap(decodeRows(TrackRecord)),
            orInternal("BrowseRepository.tracksByIds"),
          )
    const albumsByIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : sql`SELECT ${albumColumns} FROM albums a JOIN artists ar ON ar.id = a.artist_id
              WHERE a.id = ANY(${ids as Array<string>}::uuid[])`.pipe(
            Effect.flatMap(decodeRows(AlbumRecord)),
            orInternal("BrowseRepository.albumsByIds"),
          )
    const artistsByIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : sql`SELECT ${artistColumns} FROM artists ar WHERE ar.id = ANY(${ids as Array<string>}::uuid[])`.pipe(
            Effect.flatMap(decodeRows(ArtistRecord)),
            orInternal("BrowseRepository.artistsByIds"),
          )

    /** Genre index with album counts (Subsonic getGenres): the same track_genres rows as `genres`. */
    const genreCounts = sql<{ genre: string; track_count: number; album_count: number }>`
      SELECT genre, track_count, album_count FROM library_genres
      ORDER BY lower(genre) COLLATE "C", genre COLLATE "C"`.pipe(orInternal("BrowseRepository.genreCounts"))

    /** Every artist, in index order. */
    const allArtists = sql`SELECT ${artistColumns} FROM artists ar ORDER BY ar.sort_key COLLATE "C", ar.id`.pipe(
      Effect.flatMap(decodeRows(ArtistRecord)),
      orInternal("BrowseRepository.allArtists"),
    )

    /** A seeded random page of albums. */
    const randomAlbums = (seed: string, limit: number) =>
      sql`SELECT ${albumColumns} FROM albums a JOIN artists ar ON ar.id = a.artist_id
          ORDER BY md5(a.id::text || ${seed}) LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(AlbumRecord)),
        orInternal("BrowseRepository.randomAlbums"),
      )

    /** A seeded shuffle within a genre (the genre rule's index) and an album-year range (undated never match). */
    const shuffleWhere = (seed: string, limit: number, filter: AlbumFilter, userId?: string) => {
      const clauses = [notFlaggedBy(userId)]
      if (filter.genre !== undefined) {
        clauses.push(sql`t.id IN (SELECT g.track_id FROM track_genres g WHERE g.genre = ${filter.genre})`)
      }
      if (filter.yearFrom !== undefined || filter.yearTo !== undefined) clauses.push(sql`al.year > 0`)
      if (filter.yearFrom !== undefined) clauses.push(sql`al.year >= ${filter.yearFrom}`)
      if (filter.yearTo !== undefined) clauses.push(sql`al.year <= ${filter.yearTo}`)
      return sql`${filter.genre === undefined ? sql.literal("") : perExecution}SELECT ${trackColumns} FROM ${trackFrom}
                 WHERE ${sql.and(clauses)} ORDER BY md5(t.id::text || ${seed}) LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(TrackRecord)),
        orInternal("BrowseRepository.shuffleWhere"),
      )
    }

    /** Tracks of one genre (the genre rule's index), in title order. */
    const tracksByGenre = (genre: string, offset: number, limit: number) =>
      sql`${perExecution}SELECT ${trackColumns} FROM ${trackFrom} JOIN track_genres g ON g.track_id = t.id
          WHERE g.genre = ${genre} ORDER BY t.search_key COLLATE "C", t.id OFFSET ${offset} LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(TrackRecord)),
        orInternal("BrowseRepository.tracksByGenre"),
      )

    /** Every track, a page at a time (a Subsonic app's full-library sync is an empty search). */
    const trackPage = (offset: number, limit: number) =>
      sql`SELECT ${trackColumns} FROM ${trackFrom} ORDER BY t.search_key COLLATE "C", t.id OFFSET ${offset} LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(TrackRecord)),
        orInternal("BrowseRepository.trackPage"),
      )

    return {
      genreCounts,
      allArtists,
      randomAlbums,
      shuffleWhere,
      tracksByGenre,
      trackPage,
      catalogText,
      trackFile,
      albumCover,
      tracksByIds,
      albumsByIds,
      artistsByIds,
      coverCounts,
      genres,
      years,
      albumPage,
      album,
      albumTracks,
      albumGenres,
      albumWithGenres,
      artist,
      artistGenres,
      artistWithGenres,
      albumsBy,
      appearsOn,
      search,
      shuffle,
      recentlyAdded,
    } as const
  }),
}) {}
