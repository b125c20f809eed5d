import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Listening history imports (issue 26; contract "Listening history in and out"). An import is a durable job: its
 * uploaded file stays in the data directory until it is done, and `cursor` (how far it got, with the counters
 * committed in the same transaction as each batch of plays) lets a restart resume it without doubling anything.
 * `heartbeat_at` tells a live runner (on any replica) from a dead one.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE imports (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      -- Whose history it is; null for an admin's Navidrome import (it spans users).
      user_id uuid REFERENCES users (id) ON DELETE CASCADE,
      requested_by uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      source text NOT NULL CHECK (source IN ('listenbrainz_export', 'lastfm_api', 'spotify_extended', 'navidrome_db')),
      state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
      total integer NOT NULL DEFAULT 0,
      matched integer NOT NULL DEFAULT 0,
      unmatched integer NOT NULL DEFAULT 0,
      duplicates integer NOT NULL DEFAULT 0,
      -- Plays actually written (matched minus duplicates): an import that added some rebuilds the mixes.
      added integer NOT NULL DEFAULT 0,
      file_path text,
      file_name text,
      params jsonb NOT NULL DEFAULT '{}',
      cursor jsonb,
      message text,
      created_at timestamptz NOT NULL,
      started_at timestamptz,
      finished_at timestamptz,
      heartbeat_at timestamptz
    )`
  yield* sql`CREATE INDEX imports_user_idx ON imports (user_id, created_at DESC, id DESC)`
  yield* sql`CREATE INDEX imports_open_idx ON imports (created_at) WHERE state IN ('queued', 'running')`
  yield* sql`
    CREATE TABLE import_unmatched (
      import_id uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
      position integer NOT NULL,
      artist text NOT NULL,
      title text NOT NULL,
      album text,
      listened_at timestamptz NOT NULL,
      reason text NOT NULL CHECK (reason IN ('no_match', 'incomplete')),
      PRIMARY KEY (import_id, position)
    )`
  // Idempotence: one imported play per user, track and second. Two imports running at once cannot both add the
  // same listen; plays of other sources in that second are checked by the insert itself.
  yield* sql`
    CREATE UNIQUE INDEX play_events_import_second_idx
      ON play_events (user_id, track_id, (date_trunc('second', started_at AT TIME ZONE 'UTC')))
      WHERE client_id = 'import'`
})
