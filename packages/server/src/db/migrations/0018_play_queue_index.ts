import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The play queue becomes shared by Subsonic apps and the web player (issue 25; docs/decisions.md "Web player: the
 * queue"). Subsonic names the current entry by its song id, which is ambiguous when a song is queued twice: the web
 * player also stores the entry's index, and the play source its plays report (`album:<id>`…), which Subsonic has not.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE subsonic_play_queues ADD COLUMN current_index integer, ADD COLUMN source text`
})
