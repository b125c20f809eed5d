import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Scrobbling out (issue 26). `scrobblers`: per listener and provider, whether plays are sent, the secret that sends
 * them (a ListenBrainz user token or a Last.fm session key: stored to be used, never logged nor answered back) and
 * how sending stands. `scrobble_queue`: the durable queue, one row per (play, provider, kind), so a play is submitted
 * at most once per provider however often it is reported; a row is claimed by one sender on any replica (`FOR UPDATE
 * SKIP LOCKED`, leased through `next_attempt_at`) and survives restarts. Both written only by
 * `scrobbling/ScrobbleRepository.ts`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE scrobblers (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      provider text NOT NULL CHECK (provider IN ('listenbrainz', 'lastfm')),
      enabled boolean NOT NULL DEFAULT false,
      token text,
      -- The provider account of the session (Last.fm's user name), shown on the settings page.
      account text,
      -- Set when the provider refused the token: sending stops (the queue is kept) until a new token clears it.
      auth_error text,
      last_sent_at timestamptz,
      last_error text,
      last_error_at timestamptz,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, provider)
    )`
  yield* sql`
    CREATE TABLE scrobble_queue (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      provider text NOT NULL CHECK (provider IN ('listenbrainz', 'lastfm')),
      kind text NOT NULL CHECK (kind IN ('listen', 'now_playing')),
      play_event_id uuid NOT NULL REFERENCES play_events (id) ON DELETE CASCADE,
      state text NOT NULL CHECK (state IN ('pending', 'sent', 'rejected', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      -- A now-playing notice is worth nothing once the track would have ended.
      expires_at timestamptz,
      last_error text,
      created_at timestamptz NOT NULL,
      sent_at timestamptz,
      UNIQUE (play_event_id, provider, kind)
    )`
  yield* sql`CREATE INDEX scrobble_queue_due_idx ON scrobble_queue (provider, next_attempt_at) WHERE state = 'pending'`
  yield* sql`CREATE INDEX scrobble_queue_user_idx ON scrobble_queue (user_id, provider, state)`
})
