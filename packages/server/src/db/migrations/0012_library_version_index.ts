import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The library's version (the latest shared change) is read by every search and every rebuild: an index on
 * (scope, seq) answers it from one index entry, where the `seq` index alone walks back past every user's likes
 * and playlist edits made since the last scan.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS library_changes_scope_seq_idx ON library_changes (scope, seq)`
})
