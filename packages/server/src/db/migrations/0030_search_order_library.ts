import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The search's tie-order walks (migration 0017) for a listener who hears some libraries (issue 27): `library_id`
 * rides along in the index entries too, so the access rule (`visible_tracks(ids)`, migration 0024) is tested on
 * the entry and a walk still reads no table row. Without it every entry walked cost a table row (~1.6 µs against
 * ~0.3 µs an entry at 100k tracks). The scan's bulk load builds them from the same definition
 * (`CatalogRepository.searchIndexes`).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["indexed_tracks", "indexed_albums"]) {
    yield* sql.unsafe(`DROP INDEX IF EXISTS ${table}_search_order_idx`)
    yield* sql.unsafe(`
      CREATE INDEX ${table}_search_order_idx ON ${table} (popularity DESC, search_key COLLATE "C", id)
      INCLUDE (search_words, search_fields, library_id) WHERE missing_since IS NULL`)
  }
})
