import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Subsonic compatibility: each user's app password for token auth (encrypted at rest with a key from the data
 * directory: token auth needs it recoverable), OpenSubsonic API keys (only their SHA-256), and the play queue
 * a Subsonic app saves to resume on another device.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE subsonic_passwords (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      ciphertext bytea NOT NULL,
      created_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE subsonic_api_keys (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      name text NOT NULL,
      key_hash bytea NOT NULL UNIQUE,
      created_at timestamptz NOT NULL,
      last_used_at timestamptz
    )`
  yield* sql`CREATE INDEX subsonic_api_keys_user_idx ON subsonic_api_keys (user_id, created_at)`
  yield* sql`
    CREATE TABLE subsonic_play_queues (
      user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
      track_ids uuid[] NOT NULL,
      current_id uuid,
      position_ms bigint NOT NULL DEFAULT 0,
      changed_at timestamptz NOT NULL,
      changed_by text NOT NULL
    )`
  // Subsonic apps page through the albums by name (getAlbumList2 alphabeticalByName, an empty search3): the
  // library's title order as an index, so a page is a short index scan instead of a sort of every album.
  yield* sql`
    CREATE INDEX indexed_albums_title_order_idx ON indexed_albums (search_key COLLATE "C", title COLLATE "C", id)
    WHERE missing_since IS NULL`
})
