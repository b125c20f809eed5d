import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import { decodeFirst } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export const PlayQueueRecord = Schema.Struct({
  track_ids: Schema.Array(Schema.String),
  current_id: Schema.NullOr(Schema.String),
  current_index: Schema.NullOr(Schema.Number),
  position_ms: Schema.Number,
  source: Schema.NullOr(Schema.String),
  changed_at: Schema.DateTimeUtcFromDate,
  changed_by: Schema.String,
})
export type PlayQueueRecord = typeof PlayQueueRecord.Type

export interface PlayQueueWrite {
  readonly trackIds: ReadonlyArray<string>
  readonly currentId: string | null
  readonly currentIndex: number | null
  readonly positionMs: number
  readonly source: string | null
  readonly changedBy: string
}

/** The play queue a player saves to resume elsewhere (Subsonic savePlayQueue, the web player): one per user. */
export class PlayQueueRepository extends Effect.Service<PlayQueueRepository>()("@tonearm/server/PlayQueueRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const find = (userId: UserId) =>
      sql`SELECT track_ids::text[] AS track_ids, current_id::text AS current_id, current_index,
                 position_ms::float8 AS position_ms, source, changed_at, changed_by
          FROM subsonic_play_queues WHERE user_id = ${userId}`.pipe(
        Effect.flatMap(decodeFirst(PlayQueueRecord)),
        orInternal("PlayQueueRepository.find"),
      )

    /**
     * One statement, so concurrent saves never mix: the last to commit is the queue. Answers the row this save
     * wrote (RETURNING), never one another save wrote in between (issue 29).
     */
    const save = (userId: UserId, queue: PlayQueueWrite, now: Date) =>
      sql`INSERT INTO subsonic_play_queues
            (user_id, track_ids, current_id, current_index, position_ms, source, changed_at, changed_by)
          VALUES (${userId}, ${[...queue.trackIds]}::uuid[], ${queue.currentId}, ${queue.currentIndex},
                  ${queue.positionMs}, ${queue.source}, ${now}, ${queue.changedBy})
          ON CONFLICT (user_id) DO UPDATE SET track_ids = EXCLUDED.track_ids, current_id = EXCLUDED.current_id,
            current_index = EXCLUDED.current_index, position_ms = EXCLUDED.position_ms, source = EXCLUDED.source,
            changed_at = EXCLUDED.changed_at, changed_by = EXCLUDED.changed_by
          RETURNING track_ids::text[] AS track_ids, current_id::text AS current_id, current_index,
                    position_ms::float8 AS position_ms, source, changed_at, changed_by`.pipe(
        Effect.flatMap(decodeFirst(PlayQueueRecord)),
        Effect.map(Option.getOrThrow),
        orInternal("PlayQueueRepository.save"),
      )

    const clear = (userId: UserId) =>
      sql`DELETE FROM subsonic_play_queues WHERE user_id = ${userId}`.pipe(
        Effect.asVoid,
        orInternal("PlayQueueRepository.clear"),
      )

    return { find, save, clear } as const
  }),
}) {}
