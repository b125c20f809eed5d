import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The daily rebuild's schedule: one job per user, due at the next 03:00 in the user's zone. Replicas claim
 * due jobs with FOR UPDATE SKIP LOCKED and move `next_run_at` on in the same statement, so each due job runs
 * once. `timezone` is the zone the job was scheduled in (reconciliation reschedules a job whose zone lags
 * behind the user's). Existing users get their jobs from the scheduler's first reconciliation.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE rebuild_jobs (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      timezone text NOT NULL,
      next_run_at timestamptz NOT NULL,
      last_started_at timestamptz,
      last_finished_at timestamptz,
      last_error text,
      runs integer NOT NULL DEFAULT 0
    )`
  yield* sql`CREATE INDEX rebuild_jobs_due_idx ON rebuild_jobs (next_run_at)`
})
