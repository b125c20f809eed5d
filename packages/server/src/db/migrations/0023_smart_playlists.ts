import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Smart playlists (issue 28 item 5): the rules (core `SmartRules`, as JSON) of a playlist whose entries the server
 * fills. The playlist is an ordinary row of `playlists` (so lists, sync and Subsonic see it), this table only marks
 * it smart and keeps its rules and when they were last evaluated; deleting the playlist deletes its rules. Written
 * only by `smartPlaylists/SmartPlaylistRepository.ts`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE smart_playlists (
      playlist_id uuid PRIMARY KEY REFERENCES playlists (id) ON DELETE CASCADE,
      owner_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      rules jsonb NOT NULL,
      refreshed_at timestamptz NOT NULL
    )`
  // The nightly refresh walks them oldest first.
  yield* sql`CREATE INDEX smart_playlists_refreshed_idx ON smart_playlists (refreshed_at, playlist_id)`
})
