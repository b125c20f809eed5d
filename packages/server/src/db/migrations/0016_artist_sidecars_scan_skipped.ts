import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Local artist images and what scans skip (issue 31):
 * - `indexed_artists.art_path`: the library-relative path of the artist's `artist.*` image when `art_source` is
 *   `sidecar` (null otherwise: an external provider's image is kept under the data directory, named by the id);
 * - `scans.skipped`: files and folders a scan skipped as hidden metadata or by the operator's ignore list.
 * The view of present artists was expanded at creation (0006): it is re-created to see the new column.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE indexed_artists ADD COLUMN art_path text`
  yield* sql`ALTER TABLE scans ADD COLUMN skipped integer NOT NULL DEFAULT 0`
  yield* sql.unsafe(`CREATE OR REPLACE VIEW artists AS SELECT * FROM indexed_artists WHERE missing_since IS NULL`)
})
