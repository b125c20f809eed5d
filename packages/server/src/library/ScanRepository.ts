import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export const ScanRecord = Schema.Struct({
  id: Schema.NumberFromString,
  library_id: Schema.Int,
  state: Schema.Literal("running", "completed", "failed"),
  full_scan: Schema.Boolean,
  started_at: Schema.DateTimeUtcFromDate,
  finished_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  files_seen: Schema.Number,
  added: Schema.Number,
  updated: Schema.Number,
  removed: Schema.Number,
  errors: Schema.Number,
  message: Schema.NullOr(Schema.String),
  skipped: Schema.Number,
})
export type ScanRecord = typeof ScanRecord.Type

/** A file scans could not index (scan_errors, written by the catalogue during a scan). */
export const ScanErrorRecord = Schema.Struct({
  path: Schema.String,
  message: Schema.String,
  size_bytes: Schema.NumberFromString,
  seen_at: Schema.DateTimeUtcFromDate,
})
export type ScanErrorRecord = typeof ScanErrorRecord.Type

export interface ScanCounters {
  readonly filesSeen: number
  readonly added: number
  readonly updated: number
  readonly removed: number
  readonly errors: number
  /** Files and folders the walk skipped (hidden metadata, the ignore list). */
  readonly skipped: number
}

export class ScanRepository extends Effect.Service<ScanRepository>()("@tonearm/server/ScanRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const start = (full: boolean, now: Date, libraryId = 1) =>
      sql<{ id: string }>`
        INSERT INTO scans (state, full_scan, started_at, library_id)
        VALUES ('running', ${full}, ${now}, ${libraryId}) RETURNING id`.pipe(
        Effect.map((rows) => Number(rows[0]!.id)),
        orInternal("ScanRepository.start"),
      )

    const progress = (id: number, counters: ScanCounters) =>
      sql`
        UPDATE scans SET files_seen = ${counters.filesSeen}, added = ${counters.added}, updated = ${counters.updated},
          removed = ${counters.removed}, errors = ${counters.errors}, skipped = ${counters.skipped}
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("ScanRepository.progress"))

    const finish = (
      id: number,
      state: "completed" | "failed",
      counters: ScanCounters,
      now: Date,
      message: string | null,
    ) =>
      sql`
        UPDATE scans SET state = ${state}, finished_at = ${now}, files_seen = ${counters.filesSeen},
          added = ${counters.added}, updated = ${counters.updated}, removed = ${counters.removed},
          errors = ${counters.errors}, skipped = ${counters.skipped}, message = ${message}
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("ScanRepository.finish"))

    /**
     * Rows a dead process left `running` become `failed` with the reason (call it holding the scan lock: then no
     * scan is running anywhere). Answers how many.
     */
    const closeInterrupted = (now: Date, message: string, libraryId = 1) =>
      sql<{ id: string }>`
        UPDATE scans SET state = 'failed', finished_at = ${now}, message = ${message}
        WHERE state = 'running' AND library_id = ${libraryId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        orInternal("ScanRepository.closeInterrupted"),
      )

    const latest = sql`SELECT * FROM scans ORDER BY id DESC LIMIT 1`.pipe(
      Effect.flatMap(decodeFirst(ScanRecord)),
      orInternal("ScanRepository.latest"),
    )

    /** One library's latest scan. */
    const latestOf = (libraryId: number) =>
      sql`SELECT * FROM scans WHERE library_id = ${libraryId} ORDER BY id DESC LIMIT 1`.pipe(
        Effect.flatMap(decodeFirst(ScanRecord)),
        orInternal("ScanRepository.latestOf"),
      )

    const everCompleted = (libraryId = 1) =>
      sql<{
        done: boolean
      }>`SELECT EXISTS (SELECT 1 FROM scans WHERE state = 'completed' AND library_id = ${libraryId}) AS done`.pipe(
        Effect.map((rows) => rows[0]?.done === true),
        orInternal("ScanRepository.everCompleted"),
      )

    /** A page of scan errors by path, and how many there are. */
    const errorPage = (offset: number, limit: number) =>
      Effect.all(
        [
          sql`
            SELECT path, message, size_bytes, seen_at FROM scan_errors
            ORDER BY path LIMIT ${limit} OFFSET ${offset}`.pipe(Effect.flatMap(decodeRows(ScanErrorRecord))),
          sql<{ n: number }>`SELECT count(*)::int AS n FROM scan_errors`.pipe(Effect.map((rows) => rows[0]?.n ?? 0)),
        ],
        { concurrency: 2 },
      ).pipe(
        Effect.map(([items, total]) => ({ items, total })),
        orInternal("ScanRepository.errorPage"),
      )

    return {
      start,
      progress,
      finish,
      closeInterrupted,
      latest,
      latestOf,
      everCompleted,
      errorPage,
    } as const
  }),
}) {}
