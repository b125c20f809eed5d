import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import m0013 from "../../src/db/migrations/0013_taste_profile_json.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

layer(TestDatabaseLive)("migration 0013: taste profiles keep their weights in one row", (it) => {
  it.effect("profiles stored as weight rows before 0013 keep every weight, read through taste_profile_weights", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // Back to the shape 0004 created, with two users' profiles stored as rows and one profile without weights.
      yield* sql`DROP VIEW taste_profile_weights`
      yield* sql`ALTER TABLE taste_profiles DROP COLUMN weights`
      yield* sql`
        CREATE TABLE taste_profile_weights (
          user_id uuid NOT NULL REFERENCES taste_profiles (user_id) ON DELETE CASCADE,
          dimension text NOT NULL CHECK (dimension IN ('artist', 'tag', 'era', 'mood')),
          key text NOT NULL,
          weight double precision NOT NULL,
          PRIMARY KEY (user_id, dimension, key)
        )`
      const now = new Date()
      const users = yield* sql<{ id: string }>`
        INSERT INTO users (username, password_hash, created_at, updated_at)
        SELECT 'user' || g, 'x', ${now}, ${now} FROM generate_series(1, 3) AS g RETURNING id`
      const [a, b, c] = users.map((user) => user.id)
      yield* sql`INSERT INTO taste_profiles (user_id, built_at) VALUES (${a}, ${now}), (${b}, ${now}), (${c}, ${now})`
      yield* sql`
        INSERT INTO taste_profile_weights (user_id, dimension, key, weight) VALUES
          (${a}, 'artist', '6d2bbb2e-1f0e-4a56-9a3e-3b1f5f0b7a11', 0.75), (${a}, 'tag', 'Jazz', 1),
          (${a}, 'era', '1990s', 0.25), (${a}, 'mood', 'calm', 0.5), (${b}, 'tag', 'Rock', 0.125)`
      const before = yield* sql`SELECT user_id, dimension, key, weight FROM taste_profile_weights ORDER BY 1, 2, 3`
      yield* m0013
      expect(yield* sql`SELECT user_id, dimension, key, weight FROM taste_profile_weights ORDER BY 1, 2, 3`).toEqual(
        before,
      )
      expect(yield* sql`SELECT weights::text AS weights FROM taste_profiles WHERE user_id = ${c}`).toEqual([
        { weights: "[]" },
      ])
    }),
  )
})
