import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Missing, not deleted (issue 14): a track whose file vanished keeps its row, its id and everything that
 * points at it (likes, playlist entries, plays), flagged by `missing_since` (NULL = present).
 *
 * The base tables become `indexed_tracks`, `indexed_albums` and `indexed_artists`, each with `missing_since`;
 * `tracks`, `albums` and `artists` are now simple views of their present rows, so every reading query is
 * filtered in one place. Renaming keeps the constraints and indexes (their names stay `tracks_pkey`,
 * `tracks_album_idx`, …) and the foreign keys that point at the tables (track_genres → indexed_tracks,
 * indexed_tracks → indexed_albums / indexed_artists, indexed_albums → indexed_artists).
 *
 * Rules for later migrations:
 *   - the views were created with `SELECT *`, which PostgreSQL expands once, at creation: a migration that
 *     adds a column to an `indexed_*` table must re-create its view (`CREATE OR REPLACE VIEW tracks AS
 *     SELECT * FROM indexed_tracks WHERE missing_since IS NULL`) or the column stays invisible through it;
 *   - a new foreign key references `indexed_tracks (id)` (or `indexed_albums`, `indexed_artists`): a view
 *     cannot be referenced;
 *   - only the catalogue (CatalogRepository) writes, and it writes the `indexed_*` tables: upserts
 *     (ON CONFLICT), `xmax` and missing flags need the base table.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["tracks", "albums", "artists"] as const) {
    yield* sql.unsafe(`ALTER TABLE ${table} RENAME TO indexed_${table}`)
    yield* sql.unsafe(`ALTER TABLE indexed_${table} ADD COLUMN missing_since timestamptz`)
    yield* sql.unsafe(`CREATE VIEW ${table} AS SELECT * FROM indexed_${table} WHERE missing_since IS NULL`)
  }
  // The admin's list of missing tracks, newest first; small, since most rows are present.
  yield* sql`CREATE INDEX indexed_tracks_missing_idx ON indexed_tracks (missing_since DESC, id) WHERE missing_since IS NOT NULL`
})
