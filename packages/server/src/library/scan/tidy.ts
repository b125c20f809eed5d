import { SqlClient } from "@effect/sql"
import { Context, Effect } from "effect"
import { ChangeLog, changesOf } from "../../changes/index.js"
import { currentDate } from "../../clock.js"
import { orInternal } from "../../db/sqlErrors.js"
import { CatalogRepository } from "../CatalogRepository.js"
import { libraryFolderStillThere } from "../walk.js"
import type { ScanPlan } from "./plan.js"

/**
 * After the writes: marks the tracks whose files are gone missing (never deletes them), forgets folders and
 * errors no longer on disk, and (when anything changed) flags albums and artists left with nothing present,
 * drops what was left with no rows and refreshes the stored counts, logging each change (a track gone
 * missing is a delete to sync; its return, an upsert). The library folder is checked once more first: one
 * that vanished or emptied since the walk (an unmounted disk) fails the scan and marks nothing missing.
 * Answers how many tracks were marked missing.
 */
export const tidy = (planned: ScanPlan, root: string) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    if (planned.removedPaths.length > 0) yield* libraryFolderStillThere(root)
    const sql = yield* SqlClient.SqlClient
    const now = yield* currentDate
    const missingIds = yield* catalog.markMissing(planned.removedPaths, now).pipe(
      Effect.tap((ids) => changes.record(changesOf("track", "delete", ids), now)),
      sql.withTransaction,
      orInternal("Scanner.markMissing"),
    )
    yield* catalog.forgetFolders(planned.foldersToForget)
    yield* catalog.forgetErrors(planned.errorsToForget)
    if (planned.dirty.length > 0 || missingIds.length > 0) yield* tidyCatalog(now)
    return { removed: missingIds.length }
  }).pipe(Effect.withSpan("Scanner.tidy"))

/** Albums and artists after tracks went missing, came back or were purged, with their change-log rows. */
export const tidyCatalog = (now: Date) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    const tidied = yield* catalog.tidy(now)
    yield* changes.record(
      [
        ...changesOf("album", "upsert", tidied.changedAlbums),
        ...changesOf("artist", "upsert", tidied.changedArtists),
        ...changesOf("album", "delete", tidied.goneAlbums),
        ...changesOf("artist", "delete", tidied.goneArtists),
      ],
      now,
    )
  })

/** A scan that wrote at least this many tracks refreshes the planner statistics… */
export const ANALYZE_MIN_CHANGES = 1_000
/** …when they are also this share of the tracks indexed before it (autovacuum's own default is 10%). */
export const ANALYZE_MIN_SHARE = 0.1

/** Whether a scan changed enough of the catalog that the planner's statistics are stale (autovacuum is slow). */
export const statisticsStale = (changedTracks: number, tracksBefore: number): boolean =>
  changedTracks >= ANALYZE_MIN_CHANGES && changedTracks >= tracksBefore * ANALYZE_MIN_SHARE

/** A scan that reads at least this many files may load them in bulk… */
export const BULK_LOAD_MIN_FILES = 2_000

/**
 * …when they are at least as many as the tracks indexed in every library: the search indexes are then dropped and
 * built once at the end, cheaper than keeping them up to date row by row (a first scan, a new large library).
 */
export const bulkLoadsSearch = (filesToRead: number, tracksIndexed: number, minFiles = BULK_LOAD_MIN_FILES): boolean =>
  filesToRead >= minFiles && filesToRead >= tracksIndexed

/** The scanner's bulk-load threshold (tests load a small library in bulk). */
export class BulkLoadMinFiles extends Context.Reference<BulkLoadMinFiles>()("@tonearm/server/BulkLoadMinFiles", {
  defaultValue: () => BULK_LOAD_MIN_FILES,
}) {}
