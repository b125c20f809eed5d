import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Pick reasons (issue 28 item 3): every system snapshot entry stores why its track is there, as the engine
 * built it: `{kind, text, seed_id?, score_parts}` (core `PickReason`). Entries written before this migration,
 * and every user playlist entry, have none (NULL; the API says `reason: null`): an old snapshot is replaced by
 * the next daily rebuild, so no generic reason is invented for it. Written only by
 * `playlists/PlaylistRepository.ts`.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE playlist_tracks ADD COLUMN reason jsonb`
})
