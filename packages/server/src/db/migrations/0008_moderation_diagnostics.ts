import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Moderation, diagnostics and the installer (issue 13): quarantine flags, playback errors, device
 * diagnostics and the per-user installer download window.
 *
 * The enumerated values (quarantine action, playback-error kind and resolution, diagnostic kind) are
 * named CHECK constraints with their lists written out here, not read from code, so this migration stays
 * what it was: a later kind is added by a later migration that drops and re-creates the named constraint
 * (spec "Versioning": enum widening by migration).
 *
 * A deleted track (quarantine `delete_file`, a purge) keeps its flags and error reports for the record:
 * `track_id` becomes NULL and the names reported at the time remain.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE quarantine (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      track_id uuid REFERENCES indexed_tracks (id) ON DELETE SET NULL,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      reason text NOT NULL DEFAULT '',
      track_title text NOT NULL,
      album_title text NOT NULL,
      artist_name text NOT NULL,
      created_at timestamptz NOT NULL,
      resolved_at timestamptz,
      resolved_by uuid REFERENCES users (id) ON DELETE SET NULL,
      action text CONSTRAINT quarantine_action_check
        CHECK (action IS NULL OR action IN ('keep', 'delete_file', 'delete_via_manager')),
      CONSTRAINT quarantine_resolution_check CHECK ((resolved_at IS NULL) = (action IS NULL))
    )`
  // One open flag per user and track; the quarantine filter reads the open flags of one user.
  yield* sql`CREATE UNIQUE INDEX quarantine_open_idx ON quarantine (user_id, track_id) WHERE resolved_at IS NULL`
  yield* sql`CREATE INDEX quarantine_track_idx ON quarantine (track_id) WHERE resolved_at IS NULL`
  yield* sql`CREATE INDEX quarantine_created_idx ON quarantine (created_at DESC, id DESC)`

  yield* sql`
    CREATE TABLE playback_errors (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      track_id uuid REFERENCES indexed_tracks (id) ON DELETE SET NULL,
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      client_id text NOT NULL CHECK (client_id <> ''),
      kind text NOT NULL CONSTRAINT playback_errors_kind_check
        CHECK (kind IN ('load_failed', 'stalled', 'zero_duration')),
      message text,
      track_title text NOT NULL,
      album_title text NOT NULL,
      artist_name text NOT NULL,
      created_at timestamptz NOT NULL,
      resolved_at timestamptz,
      resolved_by uuid REFERENCES users (id) ON DELETE SET NULL,
      resolution text CONSTRAINT playback_errors_resolution_check
        CHECK (resolution IS NULL OR resolution IN ('fixed', 'ignored', 'hidden', 'deleted', 're_requested')),
      CONSTRAINT playback_errors_resolved_check CHECK ((resolved_at IS NULL) = (resolution IS NULL))
    )`
  yield* sql`CREATE INDEX playback_errors_created_idx ON playback_errors (created_at DESC, id DESC)`
  yield* sql`CREATE INDEX playback_errors_open_idx ON playback_errors (created_at DESC, id DESC) WHERE resolved_at IS NULL`

  yield* sql`
    CREATE TABLE diagnostic_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      device_id text NOT NULL,
      kind text NOT NULL CONSTRAINT diagnostic_events_kind_check
        CHECK (kind IN ('playback', 'upnp_sync', 'connectivity', 'power', 'lifecycle')),
      occurred_at timestamptz NOT NULL,
      received_at timestamptz NOT NULL,
      data jsonb NOT NULL DEFAULT '{}'::jsonb
    )`
  // The timeline (keyset on occurred_at, id), per account/device, and the retention sweep (received_at).
  yield* sql`CREATE INDEX diagnostic_events_time_idx ON diagnostic_events (occurred_at, id)`
  yield* sql`CREATE INDEX diagnostic_events_device_idx ON diagnostic_events (user_id, device_id, occurred_at)`
  yield* sql`CREATE INDEX diagnostic_events_received_idx ON diagnostic_events (received_at)`

  yield* sql`
    CREATE TABLE client_downloads (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      started_at timestamptz NOT NULL
    )`
})
