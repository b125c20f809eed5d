import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The library's version (the latest shared change) from an index of the shared changes alone. 0012's index on
 * (scope, seq) tied in cost with a backward walk of the `seq` index filtered on the scope, and the planner took the
 * walk whenever the statistics said (as right after a scan) that every change was shared: it then passed every
 * user's changes made since the last scan (a nightly run logs ~1,000 per user) on every search and album page.
 * The partial index has no filter to pay for, so it wins whatever the statistics say, and the per-user changes of
 * a nightly run are not written to it at all.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX IF NOT EXISTS library_changes_shared_seq_idx ON library_changes (seq)
    WHERE scope = '00000000-0000-0000-0000-000000000000'::uuid`
  yield* sql`DROP INDEX IF EXISTS library_changes_scope_seq_idx`
})
