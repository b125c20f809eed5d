import type { SqlClient } from "@effect/sql"
import { scanIgnoreRule } from "@tonearm/core"
import { Cause, Chunk, Clock, Effect, Option, Ref, Stream } from "effect"
import { ChangeLog } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { scanIgnoreOf, TonearmConfig } from "../config/TonearmConfig.js"
import { collectGarbageBeyond } from "../idleGc.js"
import { Leases, scanLeaseOf } from "../leases/index.js"
import { CatalogRepository } from "./CatalogRepository.js"
import { LibrariesRepository } from "./LibrariesRepository.js"
import { PRIMARY_LIBRARY } from "./libraryPaths.js"
import type { ParsePool } from "./ParsePool.js"
import { type ScanCounters, ScanRepository } from "./ScanRepository.js"
import { ScanSignals } from "./ScanSignals.js"
import { artistImages } from "./scan/artistImages.js"
import { MoveCandidates } from "./scan/moves.js"
import { plan } from "./scan/plan.js"
import { inBatches, type ParsedFolder, readFolders } from "./scan/read.js"
import { BulkLoadMinFiles, bulkLoadsSearch, statisticsStale, tidy } from "./scan/tidy.js"
import { walk } from "./scan/walk.js"
import { writeBatch } from "./scan/write.js"
import { LibraryFolderUnreadable, libraryFolderEmpty, libraryFolderUnreadableIn, withIndexKept } from "./walk.js"

export interface ScanProgress extends ScanCounters {
  readonly phase: "walking" | "reading" | "tidying" | "done"
  /** Files that must be (re)read this scan, and how many have been. */
  readonly filesToRead: number
  readonly filesRead: number
}

/** Which library a scan indexes, and its folder. */
export interface ScannedLibrary {
  readonly id: number
  readonly root: string
}

export interface ScanOptions {
  readonly full: boolean
  readonly onProgress?: (progress: ScanProgress) => Effect.Effect<void>
  /** The library to index; default library 1 at the first configured folder. */
  readonly library?: ScannedLibrary
}

export interface ScanSummary extends ScanCounters {
  readonly seconds: number
}

type Tally = Omit<ScanProgress, "phase">

/** One warning line per file that could not be read, naming it and why (also kept in scan_errors). */
/** Garbage a scan may leave on the main heap before a collection (see `collectGarbageBeyond`). */
const SCAN_GARBAGE_BUDGET_BYTES = 64 * 1024 * 1024

const logFailures = (batch: ReadonlyArray<ParsedFolder>) =>
  Effect.forEach(
    batch.flatMap(({ outcomes }) => outcomes),
    (outcome) =>
      outcome._tag === "Failed"
        ? Effect.logWarning(`scan: could not index ${JSON.stringify(outcome.error.path)}: ${outcome.error.message}`)
        : Effect.void,
    { discard: true },
  )

const noCounts: Tally = {
  filesSeen: 0,
  added: 0,
  updated: 0,
  removed: 0,
  errors: 0,
  skipped: 0,
  filesToRead: 0,
  filesRead: 0,
}

/**
 * Indexes the library folder in phases: walk (disk and index at once) → plan (what changed, decided
 * purely) → read (dirty files on the parse pool, as a stream of finished folders, batched by size and
 * time) → write (one transaction per batch) → tidy → artist images (`artist.*`). Incremental by default;
 * `full` re-reads everything. Hidden metadata (`.DS_Store`, `._*`, `@eaDir`, …) and what `TONEARM_SCAN_IGNORE`
 * names are skipped, and counted; a name that merely starts with a dot is scanned like any other.
 * Each batch commits on its own, so a scan that is killed loses nothing already indexed and the next one
 * continues from there. A file that cannot be read is recorded as a scan error and never stops the scan.
 *
 * Missing, not deleted: a track whose file vanished is marked missing (kept with its id and everything
 * pointing at it) and returns under the same id, at the same path or moved (same size and tags). A library
 * folder that is absent, unreadable or holds no audio files while the index holds tracks fails the scan
 * before anything is marked missing, and so does one that vanishes or empties before the tidy phase.
 */
export class Scanner extends Effect.Service<Scanner>()("@tonearm/server/Scanner", {
  effect: Effect.gen(function* () {
    const scans = yield* ScanRepository
    const leases = yield* Leases
    const libraries = yield* LibrariesRepository
    const signals = yield* ScanSignals
    const config = yield* TonearmConfig
    // The phases ask for their services; they run with the ones this scanner was built with.
    const phases = yield* Effect.context<CatalogRepository | ChangeLog | ParsePool | SqlClient.SqlClient>()
    const primary: ScannedLibrary = { id: PRIMARY_LIBRARY, root: config.libraryDir }
    const ignored = scanIgnoreRule(scanIgnoreOf(config))
    const bulkMinFiles = yield* BulkLoadMinFiles

    const run = (options: ScanOptions, scanId: number) =>
      Effect.gen(function* () {
        const { id: libraryId, root } = options.library ?? primary
        const started = yield* Clock.currentTimeMillis
        const tally = yield* Ref.make(noCounts)
        const report = (phase: ScanProgress["phase"]) =>
          options.onProgress === undefined
            ? Effect.void
            : Effect.flatMap(Ref.get(tally), (counts) => options.onProgress!({ ...counts, phase }))
        yield* report("walking")

        const catalog = yield* CatalogRepository
        const { walked, known } = yield* walk(root, ignored, libraryId).pipe(
          Effect.catchIf(
            (error): error is LibraryFolderUnreadable => error instanceof LibraryFolderUnreadable,
            (error) =>
              Effect.flatMap(catalog.presentTrackCount(libraryId), (indexed) =>
                Effect.fail(withIndexKept(error, indexed)),
              ),
          ),
        )
        if (walked.folders.size === 0 && known.tracks.size > 0) {
          return yield* Effect.fail(libraryFolderEmpty(root, known.tracks.size))
        }
        const planned = plan(walked, known, options.full)
        // A bulk load builds the search indexes once at its end; a failed one builds them at once, a killed one at
        // the next boot (`ScanService.closeInterrupted`).
        const bulk =
          bulkLoadsSearch(planned.filesToRead, yield* catalog.presentTrackTotal, bulkMinFiles) &&
          (yield* catalog.dropSearchIndexes)
        if (bulk) yield* Effect.logWarning(`library ${libraryId}: loading ${planned.filesToRead} files in bulk`)
        const candidates = new MoveCandidates(yield* catalog.vanishedTracks(planned.removedPaths, libraryId))
        yield* Ref.update(tally, (counts) => ({
          ...counts,
          filesSeen: planned.filesSeen,
          skipped: walked.skipped ?? 0,
          filesToRead: planned.filesToRead,
        }))
        yield* report("reading")

        yield* readFolders(root, planned.dirty).pipe(
          inBatches(),
          Stream.runForEach((chunk) =>
            Effect.gen(function* () {
              collectGarbageBeyond(SCAN_GARBAGE_BUDGET_BYTES)
              const batch = Chunk.toReadonlyArray(chunk)
              const read = batch.reduce((files, { outcomes }) => files + outcomes.length, 0)
              yield* Ref.update(tally, (counts) => ({ ...counts, filesRead: counts.filesRead + read }))
              yield* logFailures(batch)
              const written = yield* writeBatch(known, options.full, batch, candidates)
              const counts = yield* Ref.updateAndGet(tally, (counts) => ({
                ...counts,
                added: counts.added + written.added,
                updated: counts.updated + written.updated,
                errors: counts.errors + written.errors,
              }))
              yield* scans.progress(scanId, counts)
              yield* report("reading")
            }),
          ),
        )

        yield* Ref.update(tally, (counts) => ({ ...counts, errors: counts.errors + planned.errorsKept }))
        yield* report("tidying")
        const { removed } = yield* tidy(planned, root)
        if (bulk) yield* catalog.ensureSearchIndexes
        yield* artistImages(walked, libraryId)
        const counts = yield* Ref.updateAndGet(tally, (counts) => ({ ...counts, removed }))
        if (statisticsStale(counts.added + counts.updated + removed, known.tracks.size)) yield* catalog.analyze
        yield* report("done")
        const finished = yield* Clock.currentTimeMillis
        return {
          filesSeen: counts.filesSeen,
          added: counts.added,
          updated: counts.updated,
          removed: counts.removed,
          errors: counts.errors,
          skipped: counts.skipped,
          seconds: (finished - started) / 1000,
        } satisfies ScanSummary
      }).pipe(
        // A bulk load that failed leaves no search without its indexes (a no-op when they are there).
        Effect.onError((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.void
            : Effect.flatMap(CatalogRepository, (catalog) => catalog.ensureSearchIndexes).pipe(Effect.ignore),
        ),
        Effect.provide(phases),
      )

    /**
     * Runs one scan of a library to the end, or answers None at once when another scan of that library holds its
     * lock (on any replica); two libraries scan at once. `onStarted` runs as soon as the lock is taken.
     */
    const scan = (options: ScanOptions & { readonly onStarted?: Effect.Effect<void> }) =>
      Effect.scoped(
        Effect.gen(function* () {
          const library = options.library ?? primary
          const held = yield* leases.hold(scanLeaseOf(library.id))
          if (Option.isNone(held)) return Option.none<ScanSummary>()
          const scanId = yield* scans.start(options.full, yield* currentDate, library.id)
          if (options.onStarted) yield* options.onStarted
          /** Ends the scan's row as failed, keeping the counts it had reached. */
          const markFailed = (message: string) =>
            Effect.gen(function* () {
              const latest = yield* scans.latestOf(library.id).pipe(Effect.orElseSucceed(() => Option.none()))
              const counters = Option.match(latest, {
                onNone: () => ({ filesSeen: 0, added: 0, updated: 0, removed: 0, errors: 0, skipped: 0 }),
                onSome: (row) => ({
                  filesSeen: row.files_seen,
                  added: row.added,
                  updated: row.updated,
                  removed: row.removed,
                  errors: row.errors,
                  skipped: row.skipped,
                }),
              })
              yield* scans.finish(scanId, "failed", counters, yield* currentDate, message)
            }).pipe(Effect.ignore)
          // A lease lost mid-scan (this process stalled past its expiry) stops the scan: another may have begun.
          const summary = yield* Effect.raceFirst(
            run(options, scanId),
            Effect.zipRight(held.value.lost, Effect.dieMessage("the scan's lease was lost (see the log)")),
          ).pipe(
            Effect.tapErrorCause((cause) =>
              Effect.gen(function* () {
                const unreadable = libraryFolderUnreadableIn(cause)
                if (Option.isSome(unreadable)) yield* Effect.logWarning(unreadable.value.message)
                else yield* Effect.logError("library scan failed", cause)
                const squashed = Cause.squash(cause)
                yield* markFailed(squashed instanceof Error ? squashed.message : "scan failed; see the server log")
              }),
            ),
            // A scan stopped from outside (shutdown, a killed request) ends as failed at once, before its lock goes,
            // rather than waiting for the status check to notice a running row nobody holds.
            Effect.onInterrupt(() => markFailed("the scan was stopped before it finished")),
          )
          const finishedAt = yield* currentDate
          yield* scans.finish(scanId, "completed", summary, finishedAt, null)
          yield* libraries.markScanned(library.id, finishedAt)
          yield* signals.completed
          return Option.some(summary)
        }),
      )

    return { scan, root: primary.root } as const
  }),
  dependencies: [
    CatalogRepository.Default,
    ScanRepository.Default,
    ChangeLog.Default,
    ScanSignals.Default,
    LibrariesRepository.Default,
    Leases.Default,
  ],
}) {}
