import { SqlClient } from "@effect/sql"
import type { Rating, RatingEntity, UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/** One rating to keep, with when it was given. */
export interface RatingRecord {
  readonly entity: RatingEntity
  readonly entityId: string
  readonly rating: Rating
  readonly ratedAt: Date
}

/** The only writer of `ratings` (migration 0021). */
export class RatingRepository extends Effect.Service<RatingRepository>()("@tonearm/server/RatingRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Sets (or changes) one rating. */
    const set = (userId: UserId, record: RatingRecord) =>
      sql`
        INSERT INTO ratings (user_id, entity, entity_id, rating, rated_at)
        VALUES (${userId}, ${record.entity}, ${record.entityId}, ${record.rating}, ${record.ratedAt})
        ON CONFLICT (user_id, entity, entity_id) DO UPDATE SET rating = EXCLUDED.rating, rated_at = EXCLUDED.rated_at`.pipe(
        Effect.asVoid,
        orInternal("RatingRepository.set"),
      )

    /** True when a rating was removed. */
    const remove = (userId: UserId, entity: RatingEntity, entityId: string) =>
      sql`DELETE FROM ratings WHERE user_id = ${userId} AND entity = ${entity} AND entity_id = ${entityId} RETURNING entity_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("RatingRepository.remove"),
      )

    /**
     * Keeps ratings the user has not given yet (an import): a rating already there stays as the user set it.
     * Returns how many were added.
     */
    const addMissing = (userId: UserId, records: ReadonlyArray<RatingRecord>) =>
      records.length === 0
        ? Effect.succeed(0)
        : sql`
            INSERT INTO ratings (user_id, entity, entity_id, rating, rated_at)
            SELECT ${userId}, r.entity, r.entity_id, r.rating, r.rated_at
            FROM unnest(${records.map((r) => r.entity)}::text[], ${records.map((r) => r.entityId)}::uuid[],
                        ${records.map((r) => r.rating)}::smallint[], ${records.map((r) => r.ratedAt)}::timestamptz[])
                 AS r (entity, entity_id, rating, rated_at)
            ON CONFLICT DO NOTHING RETURNING entity_id`.pipe(
            Effect.map((rows) => rows.length),
            orInternal("RatingRepository.addMissing"),
          )

    /** The user's ratings among these ids (of any kind), with their kind: one query for a mixed answer. */
    const among = (userId: UserId, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([])
        : sql<{ entity: RatingEntity; entity_id: string; rating: number }>`
            SELECT entity, entity_id, rating FROM ratings
            WHERE user_id = ${userId} AND entity_id = ANY(${[...ids]}::uuid[])`.pipe(
            orInternal("RatingRepository.among"),
          )

    return { set, remove, addMissing, among } as const
  }),
}) {}
