import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { type TasteProfileRow, tasteProfileFromRows } from "@tonearm/recommend"
import { Effect, Option } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/** `taste_profiles` and their weights: one row per (user, dimension, key), replaced by every rebuild. */
export class TasteProfileRepository extends Effect.Service<TasteProfileRepository>()(
  "@tonearm/server/TasteProfileRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /** Replaces the user's profile (inside the caller's transaction). */
      const save = (user: UserId, rows: ReadonlyArray<TasteProfileRow>, builtAt: Date) =>
        Effect.gen(function* () {
          yield* sql`
            INSERT INTO taste_profiles (user_id, built_at) VALUES (${user}, ${builtAt})
            ON CONFLICT (user_id) DO UPDATE SET built_at = EXCLUDED.built_at`
          yield* sql`DELETE FROM taste_profile_weights WHERE user_id = ${user}`
          if (rows.length === 0) return
          // One JSON text rather than three array parameters: a profile holds ~1,000 weights, which the
          // driver would escape one by one on the event loop. (A weight is finite: JSON has no NaN.)
          yield* sql`
            INSERT INTO taste_profile_weights (user_id, dimension, key, weight)
            SELECT ${user}, w.dimension, w.key, w.weight
            FROM json_to_recordset(${JSON.stringify(rows)}::json)
                 AS w (dimension text, key text, weight float8)`
        }).pipe(orInternal("TasteProfileRepository.save"))

      /** The user's stored profile, None when it was never built. */
      const load = (user: UserId) =>
        Effect.gen(function* () {
          const built = yield* sql<{ built_at: Date }>`SELECT built_at FROM taste_profiles WHERE user_id = ${user}`
          if (built.length === 0) return Option.none()
          const rows = yield* sql<{ dimension: string; key: string; weight: number }>`
            SELECT dimension, key, weight FROM taste_profile_weights WHERE user_id = ${user}`
          return Option.some({ builtAt: built[0]!.built_at, profile: tasteProfileFromRows(rows) })
        }).pipe(orInternal("TasteProfileRepository.load"))

      /** Every user's artist weights (trends judge taste hits against the current profiles). */
      const artistWeightsOfAll = sql<{ user_id: string; key: string; weight: number }>`
        SELECT user_id, key, weight FROM taste_profile_weights WHERE dimension = 'artist'`.pipe(
        orInternal("TasteProfileRepository.artistWeightsOfAll"),
      )

      return { save, load, artistWeightsOfAll } as const
    }),
  },
) {}
