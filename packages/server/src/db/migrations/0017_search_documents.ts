import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Search that finds what people type (issue 31; contract "Library model", Search; docs/decisions.md "Search
 * documents").
 *
 * - Every track, album and artist stores its search document (core `searchDocumentOf`, written by the scan):
 *   `search_words`, the folded words of its fields (a track: title, album title, every credited artist; an album:
 *   title and album artists; an artist: name) as `' word word … '`, and `search_fields`, each field folded with
 *   nothing between its words (`' uprising theresistance muse '`), which the ranking compares the query with.
 * - `popularity` (tracks and albums; an artist's is its `track_count`): how many tracks of the library credit the
 *   track's artist (`artist_id`, the first main credit) or the album's first album artist. The scan's tidy phase
 *   keeps it, after the artists' counts (CatalogRepository.tidy); it breaks ties between equally ranked results.
 * - A trigram GIN index over both document columns per table (pg_trgm, created by 0010 when the server ships it)
 *   serves `LIKE '% word %'`, `LIKE '% prefix%'` and the typo fallback's `<%` (word similarity); without pg_trgm
 *   the same statements run on the order indexes below and scans of the tables, and the fallback finds nothing.
 *   The trigram indexes of the search keys (0010) served the old search only: dropped.
 * - An index per table in the search's tie order (popularity, then name, carrying `search_words`) that a common
 *   word walks until the page is full, as 0010's title order did for the old search.
 *
 * Existing rows get an approximate document built here from their search keys (words cut at punctuation, no joined
 * forms such as `acdc`), and every track's mtime is cleared, as 0015 did, so the next scan re-reads every file and
 * writes the exact documents in place (same paths, same ids).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["indexed_tracks", "indexed_albums", "indexed_artists"] as const) {
    yield* sql.unsafe(`
      ALTER TABLE ${table}
        ADD COLUMN search_words text NOT NULL DEFAULT '',
        ADD COLUMN search_fields text NOT NULL DEFAULT ''`)
  }
  yield* sql`ALTER TABLE indexed_tracks ADD COLUMN popularity integer NOT NULL DEFAULT 0`
  yield* sql`ALTER TABLE indexed_albums ADD COLUMN popularity integer NOT NULL DEFAULT 0`

  // The approximate fold of a search key (already lower case and accent-free): apostrophes out, the rest of what
  // is not a letter or a digit a space.
  const words = (key: string) =>
    `btrim(regexp_replace(regexp_replace(${key}, '[''’‘ʼ\`´]', '', 'g'), '[^[:alnum:]]+', ' ', 'g'))`
  const field = (key: string) => `replace(${words(key)}, ' ', '')`
  // At most 200 characters (≤ 800 bytes), as core's SEARCH_DOCUMENT_MAX_BYTES keeps the scan's documents.
  const spaced = (text: string) =>
    `CASE WHEN btrim(${text}) = '' THEN '' ELSE ' ' || left(btrim(${text}), 200) || ' ' END`
  yield* sql.unsafe(`
    UPDATE indexed_artists SET
      search_words = ${spaced(words("search_key"))},
      search_fields = ${spaced(field("search_key"))}`)
  yield* sql.unsafe(`
    UPDATE indexed_albums a SET
      search_words = ${spaced(`concat_ws(' ', ${words("a.search_key")}, x.words)`)},
      search_fields = ${spaced(`concat_ws(' ', ${field("a.search_key")}, x.fields)`)},
      popularity = x.popularity
    FROM (SELECT b.id, string_agg(${words("ar.search_key")}, ' ' ORDER BY aa.position) AS words,
                 string_agg(${field("ar.search_key")}, ' ' ORDER BY aa.position) AS fields,
                 coalesce(max(ar.track_count) FILTER (WHERE ar.id = b.artist_id), 0) AS popularity
          FROM indexed_albums b
          LEFT JOIN album_artists aa ON aa.album_id = b.id
          LEFT JOIN indexed_artists ar ON ar.id = aa.artist_id
          GROUP BY b.id) x
    WHERE x.id = a.id`)
  yield* sql.unsafe(`
    UPDATE indexed_tracks t SET
      search_words = ${spaced(`concat_ws(' ', ${words("t.search_key")}, ${words("al.search_key")}, x.words)`)},
      search_fields = ${spaced(`concat_ws(' ', ${field("t.search_key")}, ${field("al.search_key")}, x.fields)`)},
      popularity = coalesce(lead.track_count, 0),
      mtime_ms = -1
    FROM indexed_albums al,
         (SELECT b.id, string_agg(${words("ar.search_key")}, ' ' ORDER BY ta.position) AS words,
                 string_agg(${field("ar.search_key")}, ' ' ORDER BY ta.position) AS fields
          FROM indexed_tracks b
          LEFT JOIN track_artists ta ON ta.track_id = b.id
          LEFT JOIN indexed_artists ar ON ar.id = ta.artist_id
          GROUP BY b.id) x,
         indexed_artists lead
    WHERE x.id = t.id AND al.id = t.album_id AND lead.id = t.artist_id`)

  // The search's tie order (popularity, then name), walked by a common word until the page is full; the words ride
  // along (INCLUDE) so a walk tests them on the index entries and reads no table row (at 100k tracks a walk that
  // passed most of the table read each row from it: ~1.6 µs a row, against ~0.3 on the index alone). Core caps a
  // document at SEARCH_DOCUMENT_MAX_BYTES so an entry stays under the btree's ~2.7 KB.
  yield* sql`
    CREATE INDEX indexed_tracks_search_order_idx ON indexed_tracks (popularity DESC, search_key COLLATE "C", id)
    INCLUDE (search_words) WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_albums_search_order_idx ON indexed_albums (popularity DESC, search_key COLLATE "C", id)
    INCLUDE (search_words) WHERE missing_since IS NULL`
  // Artists (a few thousand rows): 0010's indexed_artists_search_order_idx (track_count DESC, sort_key, id) is
  // that order already.

  const trgm = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`
  if ((trgm[0]?.n ?? 0) > 0) {
    for (const table of ["indexed_tracks", "indexed_albums", "indexed_artists"] as const) {
      yield* sql.unsafe(`DROP INDEX IF EXISTS ${table}_search_trgm_idx`)
      yield* sql.unsafe(
        `CREATE INDEX ${table}_search_document_idx ON ${table}
         USING gin (search_words gin_trgm_ops, search_fields gin_trgm_ops) WHERE missing_since IS NULL`,
      )
    }
  }

  // The views of present rows were expanded at creation (0006): re-create them to see the new columns.
  for (const table of ["tracks", "albums", "artists"] as const) {
    yield* sql.unsafe(`CREATE OR REPLACE VIEW ${table} AS SELECT * FROM indexed_${table} WHERE missing_since IS NULL`)
  }
})
