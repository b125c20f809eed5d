import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rows.js"

const Snapshot = Schema.Struct({
  scan_running: Schema.Number,
  scan_files_seen: Schema.Number,
  scan_errors: Schema.Number,
  scan_last_seconds: Schema.NullOr(Schema.Number),
  enrichment_pending: Schema.Number,
  enrichment_due: Schema.Number,
  scrobbles_pending: Schema.Number,
  imports_waiting: Schema.Number,
  rebuilds_due: Schema.Number,
})
export type DatabaseSnapshot = typeof Snapshot.Type

/** What `/metrics` reads from the database at scrape time: one statement, each count over a partial index. */
export class MetricsRepository extends Effect.Service<MetricsRepository>()("@tonearm/server/MetricsRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const snapshot = sql`
      WITH last_scan AS (SELECT state, files_seen, errors, started_at, finished_at FROM scans ORDER BY id DESC LIMIT 1)
      SELECT
        (SELECT count(*) FROM scans WHERE state = 'running')::int AS scan_running,
        coalesce((SELECT files_seen FROM last_scan), 0)::int AS scan_files_seen,
        coalesce((SELECT errors FROM last_scan), 0)::int AS scan_errors,
        (SELECT extract(epoch FROM finished_at - started_at)::float8 FROM last_scan WHERE finished_at IS NOT NULL)
          AS scan_last_seconds,
        (SELECT count(*) FROM enrichment_state WHERE status = 'pending')::int AS enrichment_pending,
        (SELECT count(*) FROM enrichment_state WHERE status = 'pending' AND due_at <= now())::int AS enrichment_due,
        (SELECT count(*) FROM scrobble_queue WHERE state = 'pending')::int AS scrobbles_pending,
        (SELECT count(*) FROM imports WHERE state IN ('queued', 'running'))::int AS imports_waiting,
        (SELECT count(*) FROM rebuild_jobs WHERE next_run_at <= now())::int AS rebuilds_due`.pipe(
      Effect.flatMap(decodeRows(Snapshot)),
      Effect.map((rows) => rows[0]!),
    )
    return { snapshot } as const
  }),
}) {}
