import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * `library_years` also counts the undated albums (year 0) from now on, so the album list's total is read from
 * it instead of counting every album per page; the years index still shows only dated buckets. The scan's
 * tidy keeps the row current; this fills it in for a library indexed before.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    INSERT INTO library_years (year, album_count)
    SELECT 0, count(*)::int FROM albums WHERE year = 0 HAVING count(*) > 0
    ON CONFLICT (year) DO UPDATE SET album_count = EXCLUDED.album_count`
})
