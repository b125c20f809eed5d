import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Search that finds what people type (issue 31; contract "Library model", Search; docs/decisions.md "Library",
 * Search).
 *
 * - Every track, album and artist stores its search document (core `searchDocumentOf`, written by the scan):
 *   `search_words`, the folded words of its fields (a track: every credited artist, album title, title; an album:
 *   album artists and title; an artist: name) as `' word word … '`, and `search_fields`, each field's words between
 *   single spaces, between `|` (`'|muse|the resistance|uprising|'`), which the ranking compares the query with.
 * - `popularity` (tracks and albums; an artist's is its `track_count`): how many tracks of the library credit the
 *   track's artist (`artist_id`, the first main credit) or the album's first album artist. The scan's tidy phase
 *   keeps it, after the artists' counts (CatalogRepository.tidy); it breaks ties between equally ranked results.
 * - A trigram GIN index over both document columns per table (pg_trgm, created by 0010 when the server ships it)
 *   serves `LIKE '% word %'`, `LIKE '% prefix%'` and the typo fallback's `<%` (word similarity); without pg_trgm
 *   the same statements run on the order indexes below and scans of the tables, and the fallback finds nothing.
 *   The trigram indexes of the search keys (0010) served the old search only: dropped.
 * - An index per table in the search's tie order (popularity, then name, carrying both document columns) that a
 *   common word walks until the page is full, as 0010's title order did for the old search.
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
  // is not a letter or a digit a space; a field is that, NULL when empty. No joined forms (`acdc`) until the rescan.
  const words = (key: string) =>
    `nullif(btrim(regexp_replace(regexp_replace(${key}, '[''’‘ʼ\`´]', '', 'g'), '[^[:alnum:]]+', ' ', 'g')), '')`
  // Between separators, at most 120 characters (≤ 480 bytes: core's SEARCH_DOCUMENT_MAX_BYTES), '' when empty.
  const between = (separator: string, parts: string) =>
    `coalesce('${separator}' || nullif(left(concat_ws('${separator}', ${parts}), 120), '') || '${separator}', '')`
  const document = (parts: string, agg: string) => ({
    words: between(" ", `${parts}, ${agg}.words`),
    fields: between("|", `${parts}, ${agg}.fields`),
  })
  const credits = (table: string, on: string, position: string) => `
    SELECT b.id, string_agg(${words("ar.search_key")}, ' ' ORDER BY ${position}) AS words,
           string_agg(${words("ar.search_key")}, '|' ORDER BY ${position}) AS fields
    FROM ${table} b ${on}
    GROUP BY b.id`
  yield* sql.unsafe(`
    UPDATE indexed_artists SET
      search_words = ${between(" ", words("search_key"))},
      search_fields = ${between("|", words("search_key"))}`)
  const album = document(words("a.search_key"), "x")
  yield* sql.unsafe(`
    UPDATE indexed_albums a SET search_words = ${album.words}, search_fields = ${album.fields},
      popularity = coalesce(lead.track_count, 0)
    FROM (${credits(
      "indexed_albums",
      "LEFT JOIN album_artists aa ON aa.album_id = b.id LEFT JOIN indexed_artists ar ON ar.id = aa.artist_id",
      "aa.position",
    )}) x,
         indexed_artists lead
    WHERE x.id = a.id AND lead.id = a.artist_id`)
  const track = document(`${words("t.search_key")}, ${words("al.search_key")}`, "x")
  yield* sql.unsafe(`
    UPDATE indexed_tracks t SET search_words = ${track.words}, search_fields = ${track.fields},
      popularity = coalesce(lead.track_count, 0), mtime_ms = -1
    FROM indexed_albums al,
         (${credits(
           "indexed_tracks",
           "LEFT JOIN track_artists ta ON ta.track_id = b.id LEFT JOIN indexed_artists ar ON ar.id = ta.artist_id",
           "ta.position",
         )}) x,
         indexed_artists lead
    WHERE x.id = t.id AND al.id = t.album_id AND lead.id = t.artist_id`)

  // The search's tie order (popularity, then name), walked by a common word until the page is full; the documents
  // ride along (INCLUDE) so a walk tests them on the index entries and reads no table row (at 100k tracks a walk that
  // passed most of the table read each row from it: ~1.6 µs a row, against ~0.3 on the index alone). Core caps each
  // document column at SEARCH_DOCUMENT_MAX_BYTES so an entry stays under the btree's ~2.7 KB.
  yield* sql`
    CREATE INDEX indexed_tracks_search_order_idx ON indexed_tracks (popularity DESC, search_key COLLATE "C", id)
    INCLUDE (search_words, search_fields) WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_albums_search_order_idx ON indexed_albums (popularity DESC, search_key COLLATE "C", id)
    INCLUDE (search_words, search_fields) WHERE missing_since IS NULL`
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
