import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Interrupted rebuilds (issue 29 item 4): `rebuild_jobs.heartbeat_at` is set while a replica runs the user's daily
 * rebuild and renewed by it, null otherwise. A row whose heartbeat stopped (its process was killed) is found by any
 * replica, marked interrupted and made due again. Written only by `recommendations/RebuildJobRepository.ts`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE rebuild_jobs ADD COLUMN heartbeat_at timestamptz`
  yield* sql`CREATE INDEX rebuild_jobs_running_idx ON rebuild_jobs (heartbeat_at) WHERE heartbeat_at IS NOT NULL`
})
