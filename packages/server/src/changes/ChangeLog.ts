import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

export type SyncEntity =
  | "artist"
  | "album"
  | "track"
  | "playlist"
  | "like_track"
  | "like_album"
  | "like_artist"
  | "playlist_track"

export interface Change {
  readonly entity: SyncEntity
  readonly entityId: string
  /** The user a change belongs to (likes, playlists); null for the shared library. */
  readonly scope: UserId | null
  readonly operation: "upsert" | "delete"
}

/** Scope of shared library entities (artists, albums, tracks). */
export const SHARED_SCOPE = "00000000-0000-0000-0000-000000000000"

/** Serialises change-log writers so sequence order is commit order: a sync cursor never skips a late commit. */
const CHANGE_LOCK = "tonearm.changes"

/**
 * The change log that library sync pages through: one row per entity holding its latest change and a
 * sequence number. Writing a change moves the entity to the end, so a client resuming from any cursor sees
 * every entity that changed after it exactly once, in its latest state.
 */
export class ChangeLog extends Effect.Service<ChangeLog>()("@tonearm/server/ChangeLog", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Joins the caller's transaction when there is one; the lock is held until that transaction ends. */
    const record = (changes: ReadonlyArray<Change>, now: Date) => {
      if (changes.length === 0) return Effect.void
      const unique = new Map<string, Change>()
      for (const change of changes) unique.set(`${change.entity}|${change.scope ?? ""}|${change.entityId}`, change)
      const rows = [...unique.values()]
      return Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${CHANGE_LOCK}))`
        yield* sql`
          INSERT INTO library_changes (entity, entity_id, scope, operation, seq, changed_at)
          SELECT entity, entity_id, scope::uuid, operation, nextval('library_change_seq'), ${now}
          FROM unnest(${rows.map((row) => row.entity)}::text[], ${rows.map((row) => row.entityId)}::text[],
                      ${rows.map((row) => row.scope ?? SHARED_SCOPE)}::text[], ${rows.map((row) => row.operation)}::text[])
               AS change (entity, entity_id, scope, operation)
          ON CONFLICT (entity, scope, entity_id) DO UPDATE SET
            operation = EXCLUDED.operation, seq = EXCLUDED.seq, changed_at = EXCLUDED.changed_at`
      }).pipe(sql.withTransaction, orInternal("ChangeLog.record"))
    }

    /** For changes whose log row must never fail the request that made them (likes): failures are logged. */
    const recordBestEffort = (changes: ReadonlyArray<Change>, now: Date) =>
      record(changes, now).pipe(
        Effect.catchAllCause((cause) => Effect.logError("could not write the library change log", cause)),
      )

    return { record, recordBestEffort } as const
  }),
}) {}
