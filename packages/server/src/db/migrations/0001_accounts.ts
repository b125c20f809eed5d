import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Accounts, sessions, password resets, the login throttle and operator settings. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      username text NOT NULL,
      display_name text,
      email text,
      password_hash text NOT NULL,
      is_admin boolean NOT NULL DEFAULT false,
      timezone text NOT NULL DEFAULT 'UTC',
      timezone_updated_at timestamptz,
      debug_mode_enabled boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX users_username_key ON users (lower(username))`
  yield* sql`CREATE UNIQUE INDEX users_email_key ON users (lower(email)) WHERE email IS NOT NULL`
  yield* sql`
    CREATE TABLE sessions (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      token_hash bytea NOT NULL UNIQUE,
      user_agent text NOT NULL DEFAULT '',
      created_ip text NOT NULL,
      last_ip text NOT NULL,
      created_at timestamptz NOT NULL,
      last_seen_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX sessions_user_idx ON sessions (user_id, last_seen_at DESC)`
  yield* sql`
    CREATE TABLE password_resets (
      token_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`
  yield* sql`
    CREATE TABLE login_failures (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      throttle_key text NOT NULL,
      failed_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX login_failures_key_idx ON login_failures (throttle_key, failed_at)`
  yield* sql`
    CREATE TABLE settings (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      updated_at timestamptz NOT NULL
    )`
})
