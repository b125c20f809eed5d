import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Scans per library (issue 27, second half): each scan row names the library it indexed, so the scan status
 * reports each library's latest scan. Every scan so far indexed library 1 (migration 0024).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE scans ADD COLUMN library_id integer NOT NULL DEFAULT 1 REFERENCES libraries (id)`
  yield* sql`CREATE INDEX scans_library_idx ON scans (library_id, id)`
})
