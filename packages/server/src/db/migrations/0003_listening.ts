import { SqlClient } from "@effect/sql"
import { PICK_KINDS } from "@tonearm/core"
import { Effect } from "effect"

/**
 * Listening data: play events, likes, playlists (user and system), rotation state, and the change log
 * library sync reads. Pick kinds are an enumerated value, widened by a migration when a kind is added.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const pickKinds = sql.literal(PICK_KINDS.map((kind) => `'${kind}'`).join(", "))
  yield* sql`CREATE SEQUENCE library_change_seq`
  yield* sql`
    CREATE TABLE library_changes (
      entity text NOT NULL CHECK (entity IN ('artist', 'album', 'track', 'playlist', 'like_track', 'like_album',
                                             'like_artist', 'playlist_track')),
      entity_id text NOT NULL,
      scope uuid NOT NULL,
      operation text NOT NULL CHECK (operation IN ('upsert', 'delete')),
      seq bigint NOT NULL UNIQUE,
      changed_at timestamptz NOT NULL,
      PRIMARY KEY (entity, scope, entity_id)
    )`
  yield* sql`
    CREATE TABLE likes (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      entity text NOT NULL CHECK (entity IN ('track', 'album', 'artist')),
      entity_id uuid NOT NULL,
      liked_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, entity, entity_id)
    )`
  yield* sql`
    CREATE TABLE playlists (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      owner_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      description text,
      system_variant text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX playlists_system_idx ON playlists (owner_id, system_variant) WHERE system_variant IS NOT NULL`
  yield* sql`CREATE INDEX playlists_owner_idx ON playlists (owner_id, updated_at DESC)`
  yield* sql`
    CREATE TABLE playlist_tracks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      playlist_id uuid NOT NULL REFERENCES playlists (id) ON DELETE CASCADE,
      track_id uuid NOT NULL,
      position integer NOT NULL,
      pick_kind text CHECK (pick_kind IS NULL OR pick_kind IN (${pickKinds})),
      added_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX playlist_tracks_playlist_idx ON playlist_tracks (playlist_id, position)`
  yield* sql`CREATE INDEX playlist_tracks_track_idx ON playlist_tracks (track_id)`
  yield* sql`
    CREATE TABLE play_events (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      track_id uuid NOT NULL,
      artist_id uuid,
      album_id uuid,
      client_id text NOT NULL,
      started_at timestamptz NOT NULL,
      ended_at timestamptz,
      duration_played_ms integer,
      track_duration_ms integer NOT NULL,
      skipped boolean NOT NULL DEFAULT false,
      completion real,
      source text,
      pick_kind text CHECK (pick_kind IS NULL OR pick_kind IN (${pickKinds})),
      device_class text,
      created_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX play_events_user_started_idx ON play_events (user_id, started_at DESC, id DESC)`
  yield* sql`CREATE INDEX play_events_user_track_idx ON play_events (user_id, track_id)`
  // At most one open (unfinished) play per user: opening a new play closes the previous one.
  yield* sql`CREATE UNIQUE INDEX play_events_open_idx ON play_events (user_id) WHERE ended_at IS NULL`
  // The You-might-like rows of the latest system snapshot, replaced with it; read through the home rules.
  yield* sql`
    CREATE TABLE you_might_like (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('album', 'artist')),
      entity_id uuid NOT NULL,
      rank integer NOT NULL,
      PRIMARY KEY (user_id, kind, entity_id)
    )`
  yield* sql`
    CREATE TABLE rotation_states (
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      playlist_kind text NOT NULL,
      played_track_ids uuid[] NOT NULL DEFAULT '{}',
      rotation_started_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, playlist_kind)
    )`
})
