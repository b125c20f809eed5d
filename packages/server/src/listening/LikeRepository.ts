import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

export type LikeEntity = "track" | "album" | "artist"

const TABLE: Record<LikeEntity, string> = { track: "tracks", album: "albums", artist: "artists" }

export class LikeRepository extends Effect.Service<LikeRepository>()("@tonearm/server/LikeRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const exists = (entity: LikeEntity, id: string) =>
      sql`SELECT 1 FROM ${sql(TABLE[entity])} WHERE id = ${id}`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("LikeRepository.exists"),
      )

    /**
     * Serialises toggles of one like until the transaction ends (a transaction-scoped advisory lock: the row may
     * not exist yet, so a row lock cannot be taken).
     */
    const lockOne = (userId: UserId, entity: LikeEntity, id: string) =>
      sql`SELECT pg_advisory_xact_lock(hashtext(${`tonearm.like|${userId}|${entity}|${id}`}))`.pipe(
        Effect.asVoid,
        orInternal("LikeRepository.lockOne"),
      )

    /** True when the like is new (an existing like keeps its time: likes are idempotent). */
    const add = (userId: UserId, entity: LikeEntity, id: string, now: Date) =>
      sql`
        INSERT INTO likes (user_id, entity, entity_id, liked_at) VALUES (${userId}, ${entity}, ${id}, ${now})
        ON CONFLICT DO NOTHING RETURNING entity_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("LikeRepository.add"),
      )

    /**
     * Likes with their original times (an import): a like already there keeps its own time. Returns the ids
     * newly liked, per kind.
     */
    const addMissing = (
      userId: UserId,
      records: ReadonlyArray<{ readonly entity: LikeEntity; readonly entityId: string; readonly likedAt: Date }>,
    ) =>
      records.length === 0
        ? Effect.succeed([])
        : sql<{ entity: LikeEntity; entity_id: string }>`
            INSERT INTO likes (user_id, entity, entity_id, liked_at)
            SELECT ${userId}, l.entity, l.entity_id, l.liked_at
            FROM unnest(${records.map((r) => r.entity)}::text[], ${records.map((r) => r.entityId)}::uuid[],
                        ${records.map((r) => r.likedAt)}::timestamptz[]) AS l (entity, entity_id, liked_at)
            ON CONFLICT DO NOTHING RETURNING entity, entity_id`.pipe(orInternal("LikeRepository.addMissing"))

    /** True when a like was removed. */
    const remove = (userId: UserId, entity: LikeEntity, id: string) =>
      sql`DELETE FROM likes WHERE user_id = ${userId} AND entity = ${entity} AND entity_id = ${id} RETURNING entity_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("LikeRepository.remove"),
      )

    /** The user's liked ids of one kind, newest first. */
    const ids = (userId: UserId, entity: LikeEntity) =>
      sql<{ entity_id: string }>`
        SELECT entity_id FROM likes WHERE user_id = ${userId} AND entity = ${entity} ORDER BY liked_at DESC, entity_id`.pipe(
        Effect.map((rows) => rows.map((row) => row.entity_id)),
        orInternal("LikeRepository.ids"),
      )

    /** Which of these ids the user likes, with when (library sync). */
    const likedAmong = (userId: UserId, entity: LikeEntity, ids: ReadonlyArray<string>) =>
      sql<{ entity_id: string; liked_at: Date }>`
        SELECT entity_id, liked_at FROM likes
        WHERE user_id = ${userId} AND entity = ${entity} AND entity_id = ANY(${[...ids]}::uuid[])`.pipe(
        orInternal("LikeRepository.likedAmong"),
      )

    /** Which of these ids (of any kind) the user likes, with their kind and when: one query for a mixed answer. */
    const likedAmongAny = (userId: UserId, ids: ReadonlyArray<string>) =>
      sql<{ entity: LikeEntity; entity_id: string; liked_at: Date }>`
        SELECT entity, entity_id, liked_at FROM likes
        WHERE user_id = ${userId} AND entity_id = ANY(${[...ids]}::uuid[])`.pipe(
        orInternal("LikeRepository.likedAmongAny"),
      )

    return { exists, lockOne, add, addMissing, remove, ids, likedAmong, likedAmongAny } as const
  }),
}) {}
