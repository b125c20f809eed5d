import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import m0011 from "../../src/db/migrations/0011_undated_album_count.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

layer(TestDatabaseLive)("migration 0011: library_years counts undated albums", (it) => {
  it.effect("a library indexed before 0011 gets its undated albums' count in library_years' year 0 row", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const now = new Date()
      const [artist] = yield* sql<{ id: string }>`
        INSERT INTO indexed_artists (name, name_key, sort_name, sort_key, search_key, created_at, updated_at)
        VALUES ('A', 'a', 'A', 'a', 'a', ${now}, ${now}) RETURNING id`
      yield* sql`
        INSERT INTO indexed_albums (album_key, title, artist_id, search_key, year, added_at, updated_at, missing_since)
        VALUES ('u1', 'Undated 1', ${artist!.id}, 'undated 1', 0, ${now}, ${now}, NULL),
               ('u2', 'Undated 2', ${artist!.id}, 'undated 2', 0, ${now}, ${now}, NULL),
               ('u3', 'Undated gone', ${artist!.id}, 'undated gone', 0, ${now}, ${now}, ${now}),
               ('d1', 'Dated', ${artist!.id}, 'dated', 1999, ${now}, ${now}, NULL)`
      // As 0010 left it: dated buckets only.
      yield* sql`DELETE FROM library_years`
      yield* sql`INSERT INTO library_years (year, album_count) VALUES (1999, 1)`
      yield* m0011
      expect(yield* sql`SELECT year, album_count FROM library_years ORDER BY year`).toEqual([
        { year: 0, album_count: 2 },
        { year: 1999, album_count: 1 },
      ])
    }),
  )
})
