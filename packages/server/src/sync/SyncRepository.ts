import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { SHARED_SCOPE, type SyncEntity } from "../changes/ChangeLog.js"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

const ChangeRow = Schema.Struct({
  entity: Schema.Literal(
    "artist",
    "album",
    "track",
    "playlist",
    "like_track",
    "like_album",
    "like_artist",
    "playlist_track",
  ),
  entity_id: Schema.String,
  operation: Schema.Literal("upsert", "delete"),
  seq: Schema.NumberFromString,
})
export type ChangeRow = typeof ChangeRow.Type & { readonly entity: SyncEntity }

export class SyncRepository extends Effect.Service<SyncRepository>()("@tonearm/server/SyncRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The next changes a user may see (the shared library and their own), in commit order. */
    const changesAfter = (user: UserId, seq: number, limit: number) =>
      sql`
        SELECT entity, entity_id, operation, seq FROM library_changes
        WHERE seq > ${seq} AND scope IN (${SHARED_SCOPE}::uuid, ${user}::uuid)
        ORDER BY seq LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(ChangeRow)),
        orInternal("SyncRepository.changesAfter"),
      )

    const lastSeq = sql<{ seq: string | null }>`SELECT max(seq)::text AS seq FROM library_changes`.pipe(
      Effect.map((rows) => Number(rows[0]?.seq ?? 0)),
      orInternal("SyncRepository.lastSeq"),
    )

    return { changesAfter, lastSeq } as const
  }),
}) {}
