import { SqlClient, type Statement } from "@effect/sql"
import {
  type AlbumArtistRole,
  type AlbumId,
  AlbumRefFields,
  type AlbumSort,
  Artist,
  type ArtistId,
  type SearchQueryText,
  type SearchWindow,
  type SearchWindows,
  Track,
  type TrackId,
} from "@tonearm/core"
import { Effect, Schema, Struct } from "effect"
import { PLANNED_PER_EXECUTION } from "../db/Database.js"
import { type Catalogue, catalogueIn } from "../db/libraryScope.js"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"
import { isCatalogText } from "./catalogColumns.js"
import { LibraryAccess } from "./LibraryAccess.js"

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

/** The Subsonic adapter's extra facts of some tracks and albums (`subsonicFacts`). */
export const SubsonicFactsRecord = Schema.Struct({
  tracks: Schema.Array(Schema.Struct({ id: Schema.String, sort_title: Schema.String })),
  albums: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      sort_key: Schema.String,
      compilation: Schema.Boolean,
      discs: Schema.Array(Schema.Struct({ disc: Schema.Int, title: Schema.String })),
    }),
  ),
})
export type SubsonicFactsRecord = typeof SubsonicFactsRecord.Type
const decodeSubsonicFacts = Schema.decodeUnknown(SubsonicFactsRecord)

/** An artist row: the wire Artist less its derived cover_url. */
export const ArtistRecord = Schema.Struct(Struct.omit(Artist.fields, "cover_url"))
export type ArtistRecord = typeof ArtistRecord.Type

const ALBUM_COLUMNS = `a.id, a.title, a.artist_id, a.artist_display AS artist_name,
  (SELECT coalesce(json_agg(json_build_object('id', x.id, 'name', x.name) ORDER BY aa.position), '[]')
   FROM album_artists aa JOIN indexed_artists x ON x.id = aa.artist_id WHERE aa.album_id = a.id) AS artists,
  a.version, a.year,
  to_char(a.release_date, 'YYYY-MM-DD') AS release_date, a.track_count, a.duration_ms::float8 AS duration_ms,
  a.cover_art_source, a.mbid, a.added_at`
/** A Track row's columns over `t` (tracks) and `al` (albums); the credits and gains read per row. */
export const TRACK_COLUMNS = `t.id, t.title, t.album_id, al.title AS album_title, t.artist_id, t.artist_display AS artist_name,
  (SELECT coalesce(json_agg(json_build_object('id', x.id, 'name', x.name, 'role', ta.role) ORDER BY ta.position), '[]')
   FROM track_artists ta JOIN indexed_artists x ON x.id = ta.artist_id WHERE ta.track_id = t.id) AS artists,
  t.track_number, t.disc_number, t.duration_ms, t.genre, t.file_format, t.bitrate_kbps,
  t.size_bytes::float8 AS size_bytes, t.mbid,
  json_build_object('track_gain_db', t.rg_track_gain, 'track_peak', t.rg_track_peak,
                    'album_gain_db', t.rg_album_gain, 'album_peak', t.rg_album_peak) AS replay_gain,
  t.added_at`
const ARTIST_COLUMNS = "ar.id, ar.name, ar.sort_name, ar.mbid, ar.album_count, ar.track_count, ar.art_source"

/** The contract's album sorts, plus newest year first (Subsonic `byYear` with fromYear > toYear). */
export type BrowseSort = AlbumSort | "year_desc"

/** Sorted on accent-free lower-case keys in code-point order: "Über" files under U, the same on every server. */
const ORDER: Record<BrowseSort, string> = {
  title: `a.sort_key COLLATE "C", a.title COLLATE "C", a.id`,
  year: `a.year, a.search_key COLLATE "C", a.id`,
  year_desc: `a.year DESC, a.search_key COLLATE "C", a.id`,
  added: "a.added_at DESC, a.id",
  artist: `ar.sort_key COLLATE "C", a.year, a.search_key COLLATE "C", a.id`,
}

/** `LIKE` pattern text with its wildcards escaped. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (match) => `\\${match}`)

/**
 * The word similarity (pg_trgm) a document needs to the query's words to be among the closest items when nothing
 * matches: `beyonse` is 0.63 to `beyonce`, `hysterai` 0.67 to `hysteria`, `beatels` 0.5 to `beatles`. Lower, any
 * word sharing a first letter and the next counts (`thxy` is 0.4 to `the`): tens of thousands of candidates, each
 * compared, at 100k tracks.
 */
export const SIMILARITY_THRESHOLD = 0.5

export interface AlbumFilter {
  readonly genre?: string | undefined
  readonly yearFrom?: number | undefined
  readonly yearTo?: number | undefined
  /** One artist's albums: where they are an album artist, or the other albums crediting them. */
  readonly artist?: { readonly id: ArtistId; readonly role: AlbumArtistRole } | undefined
}

/**
 * Read-side SQL of the library: what browsing, search and home show. Every read for a caller goes through the
 * catalogue of the caller's libraries (`inScope`, `db/libraryScope.ts`): the `tracks`, `albums` and `artists` it
 * names are those the caller may hear. A row reached by id from one of them (a track's album and artist) is read
 * from `indexed_*`: present with it. Only the catalogue-wide reads (the engine's catalogue, admin roll-ups) name
 * the views.
 */
export class BrowseRepository extends Effect.Service<BrowseRepository>()("@tonearm/server/BrowseRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const access = yield* LibraryAccess
    /** Runs a read over the catalogue of the current caller's libraries. */
    const inScope = <A, E, R>(read: (c: Catalogue) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(access.current, (scope) => read(catalogueIn(sql, scope)))
    const albumColumns = sql.literal(ALBUM_COLUMNS)
    const trackColumns = sql.literal(TRACK_COLUMNS)
    const artistColumns = sql.literal(ARTIST_COLUMNS)
    // Statements whose best plan depends on the values: a common word or genre and a rare one (Database.ts).
    const perExecution = sql.literal(PLANNED_PER_EXECUTION)
    const trackFrom = (c: Catalogue) =>
      sql`${c.tracks} t JOIN indexed_albums al ON al.id = t.album_id JOIN indexed_artists ar ON ar.id = t.artist_id`

    /**
     * Genre index: the genre rule was applied once per track at scan time (track_genres); the scan's tidy phase
     * keeps the counts of present tracks in library_genres, so a request reads ~200 rows instead of grouping them all.
     */
    const genres = inScope((c) =>
      c.whole
        ? sql<{ genre: string; track_count: number }>`
            SELECT genre, track_count FROM library_genres
            ORDER BY lower(genre) COLLATE "C", genre COLLATE "C"`
        : // Some libraries: counted from their tracks (the index counts the whole catalogue).
          sql<{ genre: string; track_count: number }>`
            SELECT g.genre, count(*)::int AS track_count FROM track_genres g JOIN ${c.tracks} t ON t.id = g.track_id
            GROUP BY g.genre ORDER BY lower(g.genre) COLLATE "C", g.genre COLLATE "C"`,
    ).pipe(orInternal("BrowseRepository.genres"))

    /**
     * Albums per year (library_years, kept by the scan's tidy phase). Undated albums (year 0) are counted there for
     * the album list's total but have no bucket in the index.
     */
    const years = inScope((c) =>
      c.whole
        ? sql<{ year: number; album_count: number }>`
            SELECT year, album_count FROM library_years WHERE year > 0 ORDER BY year DESC`
        : sql<{ year: number; album_count: number }>`
            SELECT a.year, count(*)::int AS album_count FROM ${c.albums} a WHERE a.year > 0
            GROUP BY a.year ORDER BY a.year DESC`,
    ).pipe(orInternal("BrowseRepository.years"))

    /** The same predicate serves the page and its total, so a listed genre always has a non-empty page. */
    const albumWhere = (filter: AlbumFilter, c: Catalogue) => {
      const clauses = [sql`TRUE`]
      if (filter.genre !== undefined) {
        clauses.push(sql`a.id IN (SELECT ag.album_id FROM album_genres ag WHERE ag.genre = ${filter.genre})`)
      }
      if (filter.yearFrom !== undefined || filter.yearTo !== undefined) clauses.push(sql`a.year > 0`)
      if (filter.yearFrom !== undefined) clauses.push(sql`a.year >= ${filter.yearFrom}`)
      if (filter.yearTo !== undefined) clauses.push(sql`a.year <= ${filter.yearTo}`)
      if (filter.artist !== undefined) clauses.push(byArtist(filter.artist.id, filter.artist.role, c))
      return sql.and(clauses)
    }

    /** Albums where the artist is an album artist, or (appears on) the other albums crediting them on a track. */
    const byArtist = (id: ArtistId, role: AlbumArtistRole, c: Catalogue) =>
      role === "album_artist"
        ? sql`a.id IN (SELECT aa.album_id FROM album_artists aa WHERE aa.artist_id = ${id})`
        : sql`a.id IN (SELECT t.album_id FROM track_artists ta JOIN ${c.tracks} t ON t.id = ta.track_id
                       WHERE ta.artist_id = ${id})
              AND a.id NOT IN (SELECT aa.album_id FROM album_artists aa WHERE aa.artist_id = ${id})`

    /**
     * How many albums the filter matches, from the derived indexes the scan keeps (a genre's album count, the
     * albums per year) instead of counting the albums on every page: the same present rows as `albumWhere`.
     */
    const albumTotal = (filter: AlbumFilter, c: Catalogue) =>
      filter.artist !== undefined || !c.whole
        ? sql`SELECT count(*)::int FROM ${c.albums} a WHERE ${albumWhere(filter, c)}`
        : filter.genre !== undefined
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
      inScope((c) =>
        Effect.gen(function* () {
          const total = sql`COALESCE((${albumTotal(filter, c)}), 0)`
          const filtered =
            filter.genre !== undefined ||
            filter.yearFrom !== undefined ||
            filter.yearTo !== undefined ||
            filter.artist !== undefined
          const rows = yield* sql<{ readonly page_total: number }>`${filtered ? perExecution : sql.literal("")}
          SELECT ${albumColumns}, ${total} AS page_total
          FROM ${c.albums} a JOIN indexed_artists ar ON ar.id = a.artist_id
          WHERE ${albumWhere(filter, c)} ORDER BY ${sql.literal(ORDER[sort])} OFFSET ${offset} LIMIT ${limit}`
          const items = yield* decodeRows(AlbumRecord)(rows)
          const [counted] =
            rows.length > 0 ? rows : yield* sql<{ readonly page_total: number }>`SELECT ${total} AS page_total`
          return { items, total: counted?.page_total ?? 0 }
        }),
      ).pipe(orInternal("BrowseRepository.albumPage"))

    const album = (id: AlbumId) =>
      inScope(
        (c) =>
          sql`SELECT ${albumColumns} FROM ${c.albums} a JOIN indexed_artists ar ON ar.id = a.artist_id WHERE a.id = ${id}`,
      ).pipe(Effect.flatMap(decodeFirst(AlbumRecord)), orInternal("BrowseRepository.album"))

    const albumTracks = (id: AlbumId) =>
      inScope(
        (c) => sql`SELECT ${trackColumns} FROM ${trackFrom(c)} WHERE t.album_id = ${id}
          ORDER BY t.disc_number NULLS FIRST, t.track_number NULLS LAST, t.search_key COLLATE "C", t.id`,
      ).pipe(Effect.flatMap(decodeRows(TrackRecord)), orInternal("BrowseRepository.albumTracks"))

    /** An album's discs in order, each with the subtitle one of its tracks carries (TSST / DISCSUBTITLE). */
    const albumDiscs = (id: AlbumId) =>
      inScope(
        (c) => sql<{ number: number; subtitle: string | null }>`
        SELECT coalesce(t.disc_number, 1) AS number, max(t.disc_subtitle) AS subtitle FROM ${c.tracks} t
        WHERE t.album_id = ${id} GROUP BY 1 ORDER BY 1`,
      ).pipe(orInternal("BrowseRepository.albumDiscs"))

    /** The distinct genres of an album's tracks (chips); fails rather than degrade, the service decides. */
    const albumGenres = (id: AlbumId) =>
      sql<{ genre: string }>`
        SELECT genre FROM album_genres WHERE album_id = ${id} ORDER BY genre`.pipe(
        Effect.map((rows) => rows.map((row) => row.genre)),
      )

    const artist = (id: ArtistId) =>
      inScope((c) => sql`SELECT ${artistColumns} FROM ${c.artists} ar WHERE ar.id = ${id}`).pipe(
        Effect.flatMap(decodeFirst(ArtistRecord)),
        orInternal("BrowseRepository.artist"),
      )

    /** An artist's genres come from the tracks where they are the track artist. */
    const artistGenres = (id: ArtistId) =>
      inScope(
        (c) => sql<{ genre: string }>`
        SELECT DISTINCT g.genre FROM track_genres g JOIN track_artists ta ON ta.track_id = g.track_id
        JOIN ${c.tracks} t ON t.id = g.track_id
        WHERE ta.artist_id = ${id} ORDER BY g.genre`,
      ).pipe(Effect.map((rows) => rows.map((row) => row.genre)))

    const WithGenres = Schema.Struct({ genres: Schema.Array(Schema.String) })
    const AlbumWithGenres = Schema.extend(AlbumRecord, WithGenres)
    const ArtistWithGenres = Schema.extend(ArtistRecord, WithGenres)

    /** An album and its genre chips in one round trip (the detail page's row; `album` + `albumGenres` apart). */
    const albumWithGenres = (id: AlbumId) =>
      inScope(
        (c) => sql`SELECT ${albumColumns},
                 ARRAY(SELECT genre FROM album_genres WHERE album_id = a.id ORDER BY genre) AS genres
          FROM ${c.albums} a JOIN indexed_artists ar ON ar.id = a.artist_id WHERE a.id = ${id}`,
      ).pipe(Effect.flatMap(decodeFirst(AlbumWithGenres)))

    /** An artist and their genre chips in one round trip (`artist` + `artistGenres` apart). */
    const artistWithGenres = (id: ArtistId) =>
      inScope(
        (c) => sql`SELECT ${artistColumns},
                 ARRAY(SELECT DISTINCT g.genre FROM track_genres g JOIN track_artists ta ON ta.track_id = g.track_id
                       JOIN ${c.tracks} t ON t.id = g.track_id
                       WHERE ta.artist_id = ar.id ORDER BY g.genre) AS genres
          FROM ${c.artists} ar WHERE ar.id = ${id}`,
      ).pipe(Effect.flatMap(decodeFirst(ArtistWithGenres)))

    /** The first `limit` rows (all when undefined) and how many match in all. */
    const withTotal = (rows: ReadonlyArray<{ readonly total?: unknown }>) => Number(rows[0]?.total ?? 0)

    /** Albums where the artist is an album artist (the first `limit`, all when undefined), in year order. */
    const albumsBy = (id: ArtistId, limit?: number) =>
      inScope(
        (c) => sql`SELECT ${albumColumns}, count(*) OVER () AS total FROM ${c.albums} a
          WHERE ${byArtist(id, "album_artist", c)}
          ORDER BY a.year, a.sort_key COLLATE "C", a.id LIMIT ${limit ?? null}`,
      ).pipe(
        Effect.flatMap((rows) =>
          Effect.map(decodeRows(AlbumRecord)(rows), (items) => ({ items, total: withTotal(rows) })),
        ),
        orInternal("BrowseRepository.albumsBy"),
      )

    /** Other albums (compilations first of all) where a track credits this artist, main or featured. */
    const appearsOn = (id: ArtistId, limit?: number) =>
      inScope(
        (c) => sql`SELECT ${albumColumns}, count(*) OVER () AS total FROM ${c.albums} a
          WHERE ${byArtist(id, "appears_on", c)}
          ORDER BY a.year, a.sort_key COLLATE "C", a.id LIMIT ${limit ?? null}`,
      ).pipe(
        Effect.flatMap((rows) =>
          Effect.map(decodeRows(AlbumRecord)(rows), (items) => ({ items, total: withTotal(rows) })),
        ),
        orInternal("BrowseRepository.appearsOn"),
      )

    /** A page of artists A–Z by sort name, and how many there are. */
    const artistPage = (offset: number, limit: number) =>
      inScope((c) =>
        Effect.gen(function* () {
          const rows = yield* sql`
          SELECT ${artistColumns}, (SELECT count(*)::int FROM ${c.artists} x) AS total FROM ${c.artists} ar
          ORDER BY ar.sort_key COLLATE "C", ar.id OFFSET ${offset} LIMIT ${limit}`
          const items = yield* decodeRows(ArtistRecord)(rows)
          const total =
            rows.length > 0
              ? withTotal(rows)
              : ((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${c.artists} x`)[0]?.n ?? 0)
          return { items, total }
        }),
      ).pipe(orInternal("BrowseRepository.artistPage"))

    /**
     * The search (contract "Library model", Search; migration 0017; docs/decisions.md "Library", Search) over the
     * documents the scan stores: every word of the query is a whole word of `search_words`, the last a word prefix
     * (`LIKE '% word %'`, `LIKE '% pre%'`). Ranked in three tiers on `search_fields`: the query's words equal a whole
     * field (`LIKE '%|the resistance|%'`), they start one (`LIKE '%|the res%'`), the rest; ties by popularity in the
     * library, then by name, then id. A query that starts a field matches (core `searchFieldsOf`: a field's words
     * are words of the document), so tiers 0 and 1 ask one pattern each and the planner estimates them from that
     * column alone. One statement per kind, planned for its values:
     * - tiers 0 and 1, each ordered and cut at the window's end (the trigram index finds a rare one, a common one
     *   walks the tie-order index);
     * - tier 2 only when tiers 0 and 1 hold less than the window's end (so both are whole): the first `end` matches
     *   of any tier in tie order hold every tier-2 row the window needs, and those that start a field are dropped.
     *   Asking for the matches alone, not "matches that start no field", keeps the planner's estimate true: the two
     *   are strongly correlated (a word that starts a name usually starts its field), and the estimate of the
     *   negated form sent a rare word down a walk of the whole table.
     * The tie-order indexes carry both document columns (INCLUDE), so a walk reads no table row: at 100k tracks a
     * word whose matches all sit low in the tie order (an artist's name) walked most of the index, ~0.3 µs an entry
     * there against ~1.6 µs a table row. Without pg_trgm the same statements run on those walks and on scans.
     */
    const matchOf = (query: SearchQueryText, alias: string) => {
      const words = sql.literal(`${alias}.search_words`)
      const last = query.words.length - 1
      return sql.and(
        query.words.map(
          (word, index) => sql`${words} LIKE ${index === last ? `% ${likeEscape(word)}%` : `% ${likeEscape(word)} %`}`,
        ),
      )
    }

    const ranked = (
      query: SearchQueryText,
      window: SearchWindow,
      kind: { readonly from: Statement.Fragment; readonly popularity: string; readonly key: string },
    ) => {
      const end = window.offset + window.limit
      const from = kind.from
      const popularity = sql.literal(`x.${kind.popularity}`)
      const key = sql.literal(`x.${kind.key}`)
      const match = matchOf(query, "x")
      const equal = sql`x.search_fields LIKE ${`%|${likeEscape(query.field)}|%`}`
      const starts = sql`x.search_fields LIKE ${`%|${likeEscape(query.field)}%`}`
      const tieOrder = sql`ORDER BY ${popularity} DESC, ${key} COLLATE "C", x.id LIMIT ${end}`
      return sql`WITH
          tier0 AS MATERIALIZED (SELECT x.id, ${popularity} AS popularity, ${key} AS key FROM ${from} x
                                 WHERE ${equal} ${tieOrder}),
          tier1 AS MATERIALIZED (SELECT x.id, ${popularity} AS popularity, ${key} AS key FROM ${from} x
                                 WHERE ${starts} AND NOT ${equal} ${tieOrder})
        SELECT * FROM (
          SELECT 0 AS tier, * FROM tier0
          UNION ALL SELECT 1, * FROM tier1
          UNION ALL SELECT 2, x.id, x.popularity, x.key
                    FROM (SELECT x.id, ${popularity} AS popularity, ${key} AS key, x.search_fields FROM ${from} x
                          WHERE ${match} AND (SELECT count(*) FROM tier0) + (SELECT count(*) FROM tier1) < ${end}
                          ${tieOrder}) x
                    WHERE NOT ${starts}
        ) found ORDER BY tier, popularity DESC, key COLLATE "C", id OFFSET ${window.offset} LIMIT ${window.limit}`
    }

    const none = Effect.succeed([])

    const searchArtists = (query: SearchQueryText, window: SearchWindow, c: Catalogue) =>
      window.limit === 0
        ? none
        : sql`${perExecution}SELECT ${artistColumns}
              FROM (${ranked(query, window, { from: c.artists, popularity: "track_count", key: "sort_key" })}) hit
              JOIN indexed_artists ar ON ar.id = hit.id
              ORDER BY hit.tier, hit.popularity DESC, hit.key COLLATE "C", hit.id`.pipe(
            Effect.flatMap(decodeRows(ArtistRecord)),
          )

    const searchAlbums = (query: SearchQueryText, window: SearchWindow, c: Catalogue) =>
      window.limit === 0
        ? none
        : sql`${perExecution}SELECT ${albumColumns}
              FROM (${ranked(query, window, { from: c.albums, popularity: "popularity", key: "search_key" })}) hit
              JOIN indexed_albums a ON a.id = hit.id
              ORDER BY hit.tier, hit.popularity DESC, hit.key COLLATE "C", hit.id`.pipe(
            Effect.flatMap(decodeRows(AlbumRecord)),
          )

    // The page of ids first, then those rows with their album and artists: a walk that read every column of each row
    // it passed over would pay for the joins of rows it drops.
    const searchTracks = (query: SearchQueryText, window: SearchWindow, c: Catalogue) =>
      window.limit === 0
        ? none
        : sql`${perExecution}SELECT ${trackColumns}
              FROM (${ranked(query, window, { from: c.tracks, popularity: "popularity", key: "search_key" })}) hit
              JOIN (${trackFrom(c)}) ON t.id = hit.id
              ORDER BY hit.tier, hit.popularity DESC, hit.key COLLATE "C", hit.id`.pipe(
            Effect.flatMap(decodeRows(TrackRecord)),
          )

    /** One window of each kind of match (an empty window asks nothing). */
    const search = (query: SearchQueryText, windows: SearchWindows) =>
      inScope((c) =>
        Effect.all(
          {
            artists: searchArtists(query, windows.artists, c),
            albums: searchAlbums(query, windows.albums, c),
            tracks: searchTracks(query, windows.tracks, c),
          },
          { concurrency: 3 },
        ),
      ).pipe(orInternal("BrowseRepository.search"))

    /**
     * Short prefixes answered ahead (LibraryService): every word prefix of at most `letters` letters that occurs in
     * a kind's documents, with how many items it matches and, when that is at least `minMatches`, the ids of its
     * first `keep` matches in the search's order (the same tiers and ties as `ranked`, for a one-word query). One
     * pass over each table: at 100k tracks a common two-letter prefix costs a walk of many index entries per query,
     * and search-as-you-type sends hundreds of different ones.
     */
    const shortPrefixesOf = (
      from: Statement.Fragment,
      kind: { readonly popularity: string; readonly key: string },
      limits: { readonly letters: number; readonly keep: number; readonly minMatches: number },
    ) => {
      const popularity = sql.literal(`x.${kind.popularity}`)
      const key = sql.literal(`x.${kind.key}`)
      return sql<{ prefix: string; matches: number; ids: ReadonlyArray<string> | null }>`
        SELECT prefix, matches,
               CASE WHEN matches >= ${limits.minMatches}
                    THEN array_agg(id ORDER BY rn) FILTER (WHERE rn <= ${limits.keep}) END AS ids
        FROM (SELECT p.prefix, x.id,
                     row_number() OVER (PARTITION BY p.prefix ORDER BY
                       CASE WHEN x.search_fields LIKE '%|' || p.prefix || '|%' THEN 0
                            WHEN x.search_fields LIKE '%|' || p.prefix || '%' THEN 1 ELSE 2 END,
                       ${popularity} DESC, ${key} COLLATE "C", x.id) AS rn,
                     (count(*) OVER (PARTITION BY p.prefix))::int AS matches
              FROM ${from} x
              CROSS JOIN LATERAL (SELECT DISTINCT left(w, n) AS prefix
                                  FROM unnest(string_to_array(btrim(x.search_words), ' ')) w,
                                       generate_series(1, ${limits.letters}) n
                                  WHERE w <> '') p) ranked
        GROUP BY prefix, matches`
    }

    const shortPrefixes = (limits: { readonly letters: number; readonly keep: number; readonly minMatches: number }) =>
      inScope((c) =>
        Effect.all(
          {
            artists: shortPrefixesOf(c.artists, { popularity: "track_count", key: "sort_key" }, limits),
            albums: shortPrefixesOf(c.albums, { popularity: "popularity", key: "search_key" }, limits),
            tracks: shortPrefixesOf(c.tracks, { popularity: "popularity", key: "search_key" }, limits),
          },
          // One after another: this is background work, and each pass sorts a large set.
          { concurrency: 1 },
        ),
      ).pipe(orInternal("BrowseRepository.shortPrefixes"))

    /** Rows of one kind by id, in the order given; `from` names the kind's rows `alias`. */
    const rowsByIds = <A, I>(
      ids: ReadonlyArray<string>,
      columns: Statement.Fragment,
      from: Statement.Fragment,
      alias: string,
      schema: Schema.Schema<A, I>,
    ) =>
      ids.length === 0
        ? Effect.succeed<ReadonlyArray<A>>([])
        : sql`SELECT ${columns} FROM unnest(${ids}::uuid[]) WITH ORDINALITY hit(id, ord)
              JOIN ${from} ON ${sql.literal(alias)}.id = hit.id ORDER BY hit.ord`.pipe(
            Effect.flatMap(decodeRows(schema)),
          )

    /** Search hits by id, in the order given (the items of the short prefixes answered ahead). */
    const searchHitsByIds = (ids: {
      readonly artists: ReadonlyArray<string>
      readonly albums: ReadonlyArray<string>
      readonly tracks: ReadonlyArray<string>
    }) =>
      inScope((c) =>
        Effect.all(
          {
            artists: rowsByIds(ids.artists, artistColumns, sql`${c.artists} ar`, "ar", ArtistRecord),
            albums: rowsByIds(ids.albums, albumColumns, sql`${c.albums} a`, "a", AlbumRecord),
            tracks: rowsByIds(ids.tracks, trackColumns, sql`(${trackFrom(c)})`, "t", TrackRecord),
          },
          { concurrency: 3 },
        ),
      ).pipe(orInternal("BrowseRepository.searchHitsByIds"))

    /** Whether anything at all matches (a window past the end is empty though matches exist). */
    const searchHasMatches = (query: SearchQueryText) =>
      inScope(
        (c) => sql<{ found: boolean }>`${perExecution}
        SELECT EXISTS (SELECT 1 FROM ${c.artists} ar WHERE ${matchOf(query, "ar")})
            OR EXISTS (SELECT 1 FROM ${c.albums} a WHERE ${matchOf(query, "a")})
            OR EXISTS (SELECT 1 FROM ${c.tracks} t WHERE ${matchOf(query, "t")}) AS found`,
      ).pipe(
        Effect.map((rows) => rows[0]?.found === true),
        orInternal("BrowseRepository.searchHasMatches"),
      )

    /**
     * The closest items by trigram similarity (pg_trgm's word similarity of the query's words to a document: the
     * best-matching extent of it), when nothing matches: most similar first, then by popularity and name. The
     * threshold is lowered for this transaction only (`SIMILARITY_THRESHOLD`; pg_trgm's default, 0.6, misses
     * `beatels` for `beatles`). Without pg_trgm: nothing.
     */
    const searchSimilar = (query: SearchQueryText, windows: SearchWindows) =>
      inScope((c) =>
        Effect.gen(function* () {
          const empty = { artists: [], albums: [], tracks: [] }
          const [trgm] = yield* sql<{ present: boolean }>`
          SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS present`
          if (trgm?.present !== true) return empty
          const text = query.words.join(" ")
          // For this transaction only: the threshold, and the trigram index as the one way to the rows (the planner
          // takes word_similarity for cheap and, at 100k tracks, filtered every entry of a walk with it: 650 ms).
          yield* sql`SELECT word_similarity('', ''),
                          set_config('pg_trgm.word_similarity_threshold', ${String(SIMILARITY_THRESHOLD)}, true),
                          set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true),
                          set_config('enable_indexonlyscan', 'off', true)`
          // One after another: the transaction holds one connection.
          const artists =
            windows.artists.limit === 0
              ? []
              : yield* sql`${perExecution}SELECT ${artistColumns} FROM ${c.artists} ar WHERE ${text} <% ar.search_words
                ORDER BY word_similarity(${text}, ar.search_words) DESC, ar.track_count DESC, ar.sort_key COLLATE "C", ar.id
                OFFSET ${windows.artists.offset} LIMIT ${windows.artists.limit}`.pipe(
                  Effect.flatMap(decodeRows(ArtistRecord)),
                )
          const albums =
            windows.albums.limit === 0
              ? []
              : yield* sql`${perExecution}SELECT ${albumColumns} FROM ${c.albums} a WHERE ${text} <% a.search_words
                ORDER BY word_similarity(${text}, a.search_words) DESC, a.popularity DESC, a.search_key COLLATE "C", a.id
                OFFSET ${windows.albums.offset} LIMIT ${windows.albums.limit}`.pipe(
                  Effect.flatMap(decodeRows(AlbumRecord)),
                )
          const tracks =
            windows.tracks.limit === 0
              ? []
              : yield* sql`${perExecution}SELECT ${trackColumns}
                FROM (SELECT t.id, word_similarity(${text}, t.search_words) AS similarity, t.popularity,
                             t.search_key AS key
                      FROM ${c.tracks} t WHERE ${text} <% t.search_words
                      ORDER BY 2 DESC, t.popularity DESC, t.search_key COLLATE "C", t.id
                      OFFSET ${windows.tracks.offset} LIMIT ${windows.tracks.limit}) hit
                JOIN (${trackFrom(c)}) ON t.id = hit.id
                ORDER BY hit.similarity DESC, hit.popularity DESC, hit.key COLLATE "C", hit.id`.pipe(
                  Effect.flatMap(decodeRows(TrackRecord)),
                )
          return { artists, albums, tracks }
        }).pipe(sql.withTransaction),
      ).pipe(orInternal("BrowseRepository.searchSimilar"))

    /** A seeded shuffle: the same seed gives the same order, so tests can pin it. */
    /** Quarantine (moderation's table, read here only to filter): the tracks a listener flagged stay out. */
    const notFlaggedBy = (userId: string | undefined) =>
      userId === undefined
        ? sql`TRUE`
        : sql`NOT EXISTS (SELECT 1 FROM quarantine q
                          WHERE q.track_id = t.id AND q.user_id = ${userId} AND q.resolved_at IS NULL)`

    const shuffle = (seed: string, limit: number, userId?: string) =>
      inScope(
        (c) => sql`SELECT ${trackColumns} FROM ${trackFrom(c)} WHERE ${notFlaggedBy(userId)}
          ORDER BY md5(t.id::text || ${seed}) LIMIT ${limit}`,
      ).pipe(Effect.flatMap(decodeRows(TrackRecord)), orInternal("BrowseRepository.shuffle"))

    const recentlyAdded = (limit: number) =>
      inScope(
        (c) => sql`SELECT ${albumColumns} FROM ${c.albums} a JOIN indexed_artists ar ON ar.id = a.artist_id
          ORDER BY a.added_at DESC, a.search_key COLLATE "C", a.id LIMIT ${limit}`,
      ).pipe(Effect.flatMap(decodeRows(AlbumRecord)), orInternal("BrowseRepository.recentlyAdded"))

    /** Albums per cover source (NULL: uncovered). */
    const coverCounts = sql<{ source: string | null; albums: number }>`
      SELECT cover_art_source AS source, count(*)::int AS albums FROM albums GROUP BY cover_art_source`.pipe(
      orInternal("BrowseRepository.coverCounts"),
    )

    /** Where a track's file is, and what to call it (stream and cast routes). */
    const trackFile = (id: TrackId) =>
      inScope(
        (c) => sql`SELECT t.path, t.file_format, t.title, t.bitrate_kbps FROM ${c.tracks} t WHERE t.id = ${id}`,
      ).pipe(Effect.flatMap(decodeFirst(TrackFileRecord)), orInternal("BrowseRepository.trackFile"))

    /** Where an album's cover comes from and which file holds it. */
    const albumCover = (id: AlbumId) =>
      inScope((c) => sql`SELECT a.cover_art_source, a.cover_path FROM ${c.albums} a WHERE a.id = ${id}`).pipe(
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
             coalesce(json_agg(credits)::text, '[]') AS credits,
             coalesce(string_agg(float8send(duration_ms), ''::bytea), ''::bytea) AS duration_ms,
             coalesce(string_agg(float8send(year), ''::bytea), ''::bytea) AS year,
             coalesce(string_agg(float8send(added_at_ms), ''::bytea), ''::bytea) AS added_at_ms
      FROM (
        SELECT t.id, t.artist_id, t.album_id, al.artist_id AS album_artist_id, t.genre, ar.mbid AS artist_mbid,
               oc.credits,
               t.duration_ms::float8 AS duration_ms, coalesce(al.year::float8, 'NaN') AS year,
               (extract(epoch FROM t.added_at) * 1000)::float8 AS added_at_ms
        FROM tracks t JOIN albums al ON al.id = t.album_id JOIN artists ar ON ar.id = t.artist_id
        -- The few tracks credited to more than their first main artist (guests, duets).
        LEFT JOIN (SELECT ta.track_id, json_agg(json_build_array(ta.artist_id, ta.role) ORDER BY ta.position) AS credits
                   FROM track_artists ta JOIN indexed_tracks x ON x.id = ta.track_id
                   WHERE ta.artist_id <> x.artist_id GROUP BY ta.track_id) oc ON oc.track_id = t.id
        ORDER BY t.id
      ) c`.pipe(
      Effect.flatMap((rows) => Schema.decodeUnknown(CatalogTextRow)(rows[0])),
      orInternal("BrowseRepository.catalogText"),
    )

    /** Rows for these ids (any order; missing ids are simply absent). */
    const tracksByIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : inScope(
            (c) => sql`SELECT ${trackColumns} FROM ${trackFrom(c)} WHERE t.id = ANY(${ids as Array<string>}::uuid[])`,
          ).pipe(Effect.flatMap(decodeRows(TrackRecord)), orInternal("BrowseRepository.tracksByIds"))
    const albumsByIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : inScope(
            (c) => sql`SELECT ${albumColumns} FROM ${c.albums} a JOIN indexed_artists ar ON ar.id = a.artist_id
              WHERE a.id = ANY(${ids as Array<string>}::uuid[])`,
          ).pipe(Effect.flatMap(decodeRows(AlbumRecord)), orInternal("BrowseRepository.albumsByIds"))
    const artistsByIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : inScope(
            (c) => sql`SELECT ${artistColumns} FROM ${c.artists} ar WHERE ar.id = ANY(${ids as Array<string>}::uuid[])`,
          ).pipe(Effect.flatMap(decodeRows(ArtistRecord)), orInternal("BrowseRepository.artistsByIds"))

    /**
     * What only the Subsonic adapter shows (OpenSubsonic `sortName`, `isCompilation`, `discTitles`), kept off the
     * wire classes: the tagged TITLESORT of these tracks (those that have one), and these albums' sort key,
     * compilation flag and disc subtitles; one round trip.
     */
    const subsonicFacts = (trackIds: ReadonlyArray<string>, albumIds: ReadonlyArray<string>) =>
      inScope(
        (c) => sql`
        SELECT
          (SELECT coalesce(json_agg(json_build_object('id', t.id, 'sort_title', t.sort_title)), '[]')
           FROM ${c.tracks} t WHERE t.id = ANY(${trackIds as Array<string>}::uuid[]) AND t.sort_title IS NOT NULL) AS tracks,
          (SELECT coalesce(json_agg(json_build_object(
                    'id', a.id, 'sort_key', a.sort_key, 'compilation', a.compilation,
                    'discs', (SELECT coalesce(json_agg(json_build_object('disc', d.disc, 'title', d.title) ORDER BY d.disc), '[]')
                              FROM (SELECT coalesce(t.disc_number, 1) AS disc, max(t.disc_subtitle) AS title FROM ${c.tracks} t
                                    WHERE t.album_id = a.id AND t.disc_subtitle IS NOT NULL GROUP BY 1) d))), '[]')
           FROM ${c.albums} a WHERE a.id = ANY(${albumIds as Array<string>}::uuid[])) AS albums`,
      ).pipe(
        Effect.flatMap((rows) => decodeSubsonicFacts(rows[0])),
        orInternal("BrowseRepository.subsonicFacts"),
      )

    /** Genre index with album counts (Subsonic getGenres): the same track_genres rows as `genres`. */
    const genreCounts = inScope((c) =>
      c.whole
        ? sql<{ genre: string; track_count: number; album_count: number }>`
            SELECT genre, track_count, album_count FROM library_genres
            ORDER BY lower(genre) COLLATE "C", genre COLLATE "C"`
        : sql<{ genre: string; track_count: number; album_count: number }>`
            SELECT g.genre, count(*)::int AS track_count, count(DISTINCT t.album_id)::int AS album_count
            FROM track_genres g JOIN ${c.tracks} t ON t.id = g.track_id
            GROUP BY g.genre ORDER BY lower(g.genre) COLLATE "C", g.genre COLLATE "C"`,
    ).pipe(orInternal("BrowseRepository.genreCounts"))

    /** Every artist, in index order. */
    const allArtists = inScope(
      (c) => sql`SELECT ${artistColumns} FROM ${c.artists} ar ORDER BY ar.sort_key COLLATE "C", ar.id`,
    ).pipe(Effect.flatMap(decodeRows(ArtistRecord)), orInternal("BrowseRepository.allArtists"))

    /** A seeded random page of albums. */
    const randomAlbums = (seed: string, limit: number) =>
      inScope(
        (c) => sql`SELECT ${albumColumns} FROM ${c.albums} a JOIN indexed_artists ar ON ar.id = a.artist_id
          ORDER BY md5(a.id::text || ${seed}) LIMIT ${limit}`,
      ).pipe(Effect.flatMap(decodeRows(AlbumRecord)), orInternal("BrowseRepository.randomAlbums"))

    /** A seeded shuffle within a genre (the genre rule's index) and an album-year range (undated never match). */
    const shuffleWhere = (seed: string, limit: number, filter: AlbumFilter, userId?: string) => {
      const clauses = [notFlaggedBy(userId)]
      if (filter.genre !== undefined) {
        clauses.push(sql`t.id IN (SELECT g.track_id FROM track_genres g WHERE g.genre = ${filter.genre})`)
      }
      if (filter.yearFrom !== undefined || filter.yearTo !== undefined) clauses.push(sql`al.year > 0`)
      if (filter.yearFrom !== undefined) clauses.push(sql`al.year >= ${filter.yearFrom}`)
      if (filter.yearTo !== undefined) clauses.push(sql`al.year <= ${filter.yearTo}`)
      return inScope(
        (
          c,
        ) => sql`${filter.genre === undefined ? sql.literal("") : perExecution}SELECT ${trackColumns} FROM ${trackFrom(c)}
                 WHERE ${sql.and(clauses)} ORDER BY md5(t.id::text || ${seed}) LIMIT ${limit}`,
      ).pipe(Effect.flatMap(decodeRows(TrackRecord)), orInternal("BrowseRepository.shuffleWhere"))
    }

    /** Tracks of one genre (the genre rule's index), in title order. */
    const tracksByGenre = (genre: string, offset: number, limit: number) =>
      inScope(
        (c) => sql`${perExecution}SELECT ${trackColumns} FROM ${trackFrom(c)} JOIN track_genres g ON g.track_id = t.id
          WHERE g.genre = ${genre} ORDER BY t.search_key COLLATE "C", t.id OFFSET ${offset} LIMIT ${limit}`,
      ).pipe(Effect.flatMap(decodeRows(TrackRecord)), orInternal("BrowseRepository.tracksByGenre"))

    /** Every track, a page at a time (a Subsonic app's full-library sync is an empty search). */
    const trackPage = (offset: number, limit: number) =>
      inScope(
        (c) =>
          sql`SELECT ${trackColumns} FROM ${trackFrom(c)} ORDER BY t.search_key COLLATE "C", t.id OFFSET ${offset} LIMIT ${limit}`,
      ).pipe(Effect.flatMap(decodeRows(TrackRecord)), orInternal("BrowseRepository.trackPage"))

    /** Where a present artist's image comes from and, for a local `artist.*`, its library-relative path. */
    const artistArt = (id: ArtistId) =>
      inScope((c) => sql`SELECT ar.art_source, ar.art_path FROM ${c.artists} ar WHERE ar.id = ${id}`).pipe(
        Effect.flatMap(
          decodeFirst(
            Schema.Struct({ art_source: Schema.NullOr(Schema.String), art_path: Schema.NullOr(Schema.String) }),
          ),
        ),
        orInternal("BrowseRepository.artistArt"),
      )

    /** Present artists per image source (NULL: no image): the artist half of the cover roll-up. */
    const artistArtCounts = sql<{ source: string | null; artists: number }>`
      SELECT art_source AS source, count(*)::int AS artists FROM artists GROUP BY art_source`.pipe(
      orInternal("BrowseRepository.artistArtCounts"),
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
      subsonicFacts,
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
      albumDiscs,
      artistPage,
      search,
      shortPrefixes,
      searchHitsByIds,
      searchHasMatches,
      searchSimilar,
      shuffle,
      recentlyAdded,
      artistArt,
      artistArtCounts,
    } as const
  }),
  dependencies: [LibraryAccess.Default],
}) {}
