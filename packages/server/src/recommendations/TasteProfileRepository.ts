import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { type TasteProfileRow, tasteProfileFromRows } from "@tonearm/recommend"
import { Effect, Option, Schema } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/** The stored weights: the rows the rebuild wrote, as one JSON text. */
const StoredWeights = Schema.parseJson(
  Schema.Array(Schema.Struct({ dimension: Schema.String, key: Schema.String, weight: Schema.Number })),
)

/** `taste_profiles`: one row per user with its weights, replaced by every rebuild. */
export class TasteProfileRepository extends Effect.Service<TasteProfileRepository>()(
  "@tonearm/server/TasteProfileRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /**
       * Replaces the user's profile (inside the caller's transaction). The weights travel and are kept as one
       * JSON text: a profile holds ~1,000 weights, which as rows would cost an index entry each per rebuild, and
       * as array parameters would be escaped one by one on the event loop. (A weight is finite: JSON has no NaN.)
       */
      const save = (user: UserId, rows: ReadonlyArray<TasteProfileRow>, builtAt: Date) =>
        sql`
          INSERT INTO taste_profiles (user_id, built_at, weights) VALUES (${user}, ${builtAt}, ${JSON.stringify(rows)}::json)
          ON CONFLICT (user_id) DO UPDATE SET built_at = EXCLUDED.built_at, weights = EXCLUDED.weights`.pipe(
          Effect.asVoid,
          orInternal("TasteProfileRepository.save"),
        )

      /** The user's stored profile, None when it was never built. */
      const load = (user: UserId) =>
        sql<{ built_at: Date; weights: string }>`
          SELECT built_at, weights::text AS weights FROM taste_profiles WHERE user_id = ${user}`.pipe(
          Effect.flatMap((rows) =>
            Effect.transposeOption(
              Option.map(Option.fromNullable(rows[0]), (row) =>
                Effect.map(Schema.decodeUnknown(StoredWeights)(row.weights), (weights) => ({
                  builtAt: row.built_at,
                  profile: tasteProfileFromRows(weights),
                })),
              ),
            ),
          ),
          orInternal("TasteProfileRepository.load"),
        )

      /** Every user's artist weights (trends judge taste hits against the current profiles). */
      const artistWeightsOfAll = sql<{ user_id: string; key: string; weight: number }>`
        SELECT user_id, key, weight FROM taste_profile_weights WHERE dimension = 'artist'`.pipe(
        orInternal("TasteProfileRepository.artistWeightsOfAll"),
      )

      return { save, load, artistWeightsOfAll } as const
    }),
  },
) {}
