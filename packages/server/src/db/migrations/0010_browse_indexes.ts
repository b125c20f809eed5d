import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Browse, search and home at 100k tracks (issue 15).
 *
 * - Every album sort has an index in its own order (title came with 0007), partial on present rows like the
 *   `albums` view, so a page is a short index scan instead of a sort of every album.
 * - Tracks in title order (search's order): the prefix half of a search is a range of this index, and its
 *   word-inside half walks it in order and stops at the page's end.
 * - Trigrams on the search keys (pg_trgm, when the server ships it: the embedded PostgreSQL does) serve a rare
 *   word inside a name without reading every row; without the extension the btree orders still serve.
 * - Derived indexes the scan keeps current (CatalogRepository, the single writer, refreshes them in the tidy
 *   phase): the genre index with its counts, each album's genres (the genre filter, album chips) and the year
 *   index. Only present tracks count.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX indexed_albums_year_order_idx ON indexed_albums (year, search_key COLLATE "C", id)
    WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_albums_added_order_idx ON indexed_albums (added_at DESC, id)
    WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_albums_artist_order_idx ON indexed_albums (artist_id, year, search_key COLLATE "C", id)
    WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_artists_sort_order_idx ON indexed_artists (sort_key COLLATE "C", id)
    WHERE missing_since IS NULL`
  // Artist search: names starting with the key (a range), and the rest in search order (most tracks first).
  yield* sql`
    CREATE INDEX indexed_artists_search_key_idx ON indexed_artists (search_key COLLATE "C")
    WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_artists_search_order_idx ON indexed_artists (track_count DESC, sort_key COLLATE "C", id)
    WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_tracks_title_order_idx ON indexed_tracks (search_key COLLATE "C", id)
    WHERE missing_since IS NULL`
  yield* sql`
    CREATE INDEX indexed_tracks_artist_album_idx ON indexed_tracks (artist_id, album_id)
    WHERE missing_since IS NULL`

  const trgm = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'pg_trgm'`
  if ((trgm[0]?.n ?? 0) > 0) {
    yield* sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`
    for (const table of ["indexed_tracks", "indexed_albums", "indexed_artists"] as const) {
      yield* sql.unsafe(
        `CREATE INDEX ${table}_search_trgm_idx ON ${table} USING gin (search_key gin_trgm_ops) WHERE missing_since IS NULL`,
      )
    }
  }

  yield* sql`
    CREATE TABLE library_genres (
      genre text PRIMARY KEY,
      track_count integer NOT NULL,
      album_count integer NOT NULL
    )`
  yield* sql`
    CREATE TABLE album_genres (
      genre text NOT NULL,
      album_id uuid NOT NULL REFERENCES indexed_albums (id) ON DELETE CASCADE,
      PRIMARY KEY (genre, album_id)
    )`
  yield* sql`CREATE INDEX album_genres_album_idx ON album_genres (album_id)`
  yield* sql`
    CREATE TABLE library_years (
      year integer PRIMARY KEY,
      album_count integer NOT NULL
    )`
  yield* sql`
    INSERT INTO album_genres (genre, album_id)
    SELECT DISTINCT g.genre, t.album_id FROM track_genres g JOIN tracks t ON t.id = g.track_id`
  yield* sql`
    INSERT INTO library_genres (genre, track_count, album_count)
    SELECT g.genre, count(*)::int, count(DISTINCT t.album_id)::int
    FROM track_genres g JOIN tracks t ON t.id = g.track_id GROUP BY g.genre`
  yield* sql`
    INSERT INTO library_years (year, album_count)
    SELECT year, count(*)::int FROM albums WHERE year > 0 GROUP BY year`
})
