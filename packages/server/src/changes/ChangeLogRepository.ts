import { SqlClient } from "@effect/sql"
import { ChangeOperation, SyncEntity, type UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** One entity's latest change. `scope` is the user it belongs to (likes, playlists); null for the shared library. */
export interface Change {
  readonly entity: SyncEntity
  readonly entityId: string
  readonly scope: UserId | null
  readonly operation: ChangeOperation
}

/** Scope of shared library entities (artists, albums, tracks). */
const SHARED_SCOPE = "00000000-0000-0000-0000-000000000000"

/** The shared scope as a literal, so that migration 0014's partial index of shared changes matches the statement. */
const SHARED_SCOPE_LITERAL = `'${SHARED_SCOPE}'`

/** Serialises change-log writers so sequence order is commit order: a sync cursor never skips a late commit. */
const CHANGE_LOCK = "tonearm.changes"

const ChangeRow = Schema.Struct({
  entity: SyncEntity,
  entity_id: Schema.String,
  operation: ChangeOperation,
  seq: Schema.NumberFromString,
})
export type ChangeRow = typeof ChangeRow.Type

/**
 * `library_changes`: one row per entity holding its latest change and a sequence number. Writing a change
 * moves the entity to the end, so a client resuming from any cursor sees every entity that changed after
 * it exactly once, in its latest state.
 */
export class ChangeLogRepository extends Effect.Service<ChangeLogRepository>()("@tonearm/server/ChangeLogRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Joins the caller's transaction when there is one; the lock is held until that transaction ends. The rows
     * travel as one JSON text (a nightly rebuild logs ~1,000 playlist entries per user; array parameters
     * would be escaped element by element on the event loop). `changed_at` is at least a millisecond after the
     * latest shared change's, taken under the lock: `now` is read before it, and a writer that waited on the lock
     * commits after a later `now`, so without this the library's modification time (libraryModifiedAt) could
     * stand still or go back while the library changes.
     */
    const record = (rows: ReadonlyArray<Change>, now: Date) =>
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${CHANGE_LOCK}))`
        yield* sql`
            INSERT INTO library_changes (entity, entity_id, scope, operation, seq, changed_at)
            SELECT entity, entity_id, scope::uuid, operation, nextval('library_change_seq'),
              GREATEST(${now}::timestamptz, (
                SELECT changed_at + interval '1 millisecond' FROM library_changes
                WHERE scope = ${sql.literal(SHARED_SCOPE_LITERAL)}::uuid ORDER BY seq DESC LIMIT 1))
            FROM json_to_recordset(${JSON.stringify(
              rows.map((row) => ({
                entity: row.entity,
                entity_id: row.entityId,
                scope: row.scope ?? SHARED_SCOPE,
                operation: row.operation,
              })),
            )}::json) AS change (entity text, entity_id text, scope text, operation text)
            ON CONFLICT (entity, scope, entity_id) DO UPDATE SET
              operation = EXCLUDED.operation, seq = EXCLUDED.seq, changed_at = EXCLUDED.changed_at`
      }).pipe(sql.withTransaction, orInternal("ChangeLogRepository.record"))

    /** The next changes a user may see (the shared library and their own), in commit order. */
    const changesAfter = (user: UserId, seq: number, limit: number) =>
      sql`
          SELECT entity, entity_id, operation, seq FROM library_changes
          WHERE seq > ${seq} AND scope IN (${SHARED_SCOPE}::uuid, ${user}::uuid)
          ORDER BY seq LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(ChangeRow)),
        orInternal("ChangeLogRepository.changesAfter"),
      )

    /**
     * The latest change to the shared library: a version that moves whenever a track, album or artist does. The
     * scope is written into the statement so that migration 0014's partial index of shared changes matches it.
     */
    const libraryVersion = sql<{ seq: string | null }>`
      SELECT max(seq)::text AS seq FROM library_changes WHERE scope = ${sql.literal(`'${SHARED_SCOPE}'`)}::uuid`.pipe(
      Effect.map((rows) => rows[0]?.seq ?? "0"),
      orInternal("ChangeLogRepository.libraryVersion"),
    )

    /**
     * When the shared library last changed, in epoch milliseconds (0 before any change): the latest shared change's
     * time, read from the same partial index. It moves with every change (record keeps the times increasing) and
     * holds still otherwise (Subsonic's `lastModified`).
     */
    const libraryModifiedAt = sql<{ ms: string }>`
      SELECT floor(extract(epoch FROM changed_at) * 1000)::bigint::text AS ms FROM library_changes
      WHERE scope = ${sql.literal(SHARED_SCOPE_LITERAL)}::uuid ORDER BY seq DESC LIMIT 1`.pipe(
      Effect.map((rows) => (rows[0] === undefined ? 0 : Number(rows[0].ms))),
      orInternal("ChangeLogRepository.libraryModifiedAt"),
    )

    return { record, changesAfter, libraryVersion, libraryModifiedAt } as const
  }),
}) {}
