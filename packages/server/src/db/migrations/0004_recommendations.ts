import { SqlClient } from "@effect/sql"
import { TUNING_SCOPES } from "@tonearm/core"
import { Effect } from "effect"

/**
 * Recommendations: stored taste profiles, the withheld state of system mixes, Discover snoozes, and the
 * live tuning with its audit. Tuning scopes are an enumerated value, widened by a migration.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const scopes = sql.literal(TUNING_SCOPES.map((scope) => `'${scope}'`).join(", "))
  // A system mix below its minimum size is listed but withheld: the reason is what a client shows.
  yield* sql`ALTER TABLE playlists ADD COLUMN locked_reason text`
  yield* sql`
    CREATE TABLE taste_profiles (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      built_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE taste_profile_weights (
      user_id uuid NOT NULL REFERENCES taste_profiles (user_id) ON DELETE CASCADE,
      dimension text NOT NULL CHECK (dimension IN ('artist', 'tag', 'era', 'mood')),
      key text NOT NULL,
      weight double precision NOT NULL,
      PRIMARY KEY (user_id, dimension, key)
    )`
  yield* sql`
    CREATE TABLE discover_snoozes (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      candidate_mbid text NOT NULL,
      candidate_name text NOT NULL,
      snoozed_until timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, candidate_mbid)
    )`
  yield* sql`
    CREATE TABLE recommendation_tuning (
      scope text PRIMARY KEY CHECK (scope IN (${scopes})),
      current jsonb NOT NULL,
      updated_at timestamptz NOT NULL,
      updated_by uuid REFERENCES users (id) ON DELETE SET NULL
    )`
  yield* sql`
    CREATE TABLE tuning_audit (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      scope text NOT NULL CHECK (scope IN (${scopes})),
      changed_by uuid REFERENCES users (id) ON DELETE SET NULL,
      changed_at timestamptz NOT NULL,
      diff jsonb NOT NULL
    )`
  yield* sql`CREATE INDEX tuning_audit_changed_idx ON tuning_audit (changed_at DESC, id)`
})
