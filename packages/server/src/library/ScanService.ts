import {
  clampLimit,
  LibraryScanStatus,
  SCAN_ERRORS_PAGE_DEFAULT,
  SCAN_ERRORS_PAGE_MAX,
  ScanErrorPage,
  type ScanErrorsQuery,
  ScanFileError,
  ScanStarted,
  ScanStatus,
} from "@tonearm/core"
import { Clock, Deferred, Duration, Effect, Layer, Option } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { Leases, scanLeaseOf } from "../leases/index.js"
import { CatalogRepository } from "./CatalogRepository.js"
import { LibrariesRepository } from "./LibrariesRepository.js"
import { PRIMARY_LIBRARY, splitStoredPath } from "./libraryPaths.js"
import { type ScannedLibrary, Scanner } from "./Scanner.js"
import { type ScanRecord, ScanRepository } from "./ScanRepository.js"
import { libraryFolderUnreadableIn } from "./walk.js"

const IDLE_FIGURES = {
  state: "idle",
  started_at: null,
  finished_at: null,
  files_seen: 0,
  added: 0,
  updated: 0,
  removed: 0,
  errors: 0,
  skipped: 0,
  message: null,
} as const

const IDLE = IDLE_FIGURES

/**
 * Scans started over the API run in the background, one at a time per library across replicas (two libraries scan
 * at once); status is read from the database.
 */
export class ScanService extends Effect.Service<ScanService>()("@tonearm/server/ScanService", {
  scoped: Effect.gen(function* () {
    const scanner = yield* Scanner
    const scans = yield* ScanRepository
    const leases = yield* Leases
    const libraries = yield* LibrariesRepository
    const catalog = yield* CatalogRepository
    const config = yield* TonearmConfig
    const scope = yield* Effect.scope

    /** The present libraries with a folder, and their folders (library 1 without one yet: the first configured). */
    const scannable = Effect.map(libraries.all, (rows) =>
      rows.flatMap((row): Array<ScannedLibrary & { readonly name: string }> => {
        if (row.removed_at !== null) return []
        const root = row.path ?? (row.id === PRIMARY_LIBRARY ? config.libraryDir : undefined)
        return root === undefined ? [] : [{ id: row.id, root, name: row.name }]
      }),
    )

    /** Starts a scan of one library in the background; false when one of it is already running. */
    const startOne = (full: boolean, library: ScannedLibrary) =>
      Effect.gen(function* () {
        const started = yield* Deferred.make<boolean>()
        yield* scanner.scan({ full, library, onStarted: Deferred.succeed(started, true) }).pipe(
          Effect.tap(
            Option.match({
              onNone: () => Deferred.succeed(started, false),
              onSome: (done) =>
                Effect.logInfo(
                  `library ${library.id} scan finished in ${done.seconds.toFixed(1)} s: ${done.filesSeen} files, ` +
                    `${done.added} added, ${done.updated} updated, ${done.removed} removed, ${done.skipped} skipped, ` +
                    `${done.errors} errors`,
                ),
            }),
          ),
          Effect.catchAllCause((cause) =>
            Deferred.succeed(started, false).pipe(
              // The scanner has logged a missing library folder already, in one line.
              Effect.zipRight(
                Option.isSome(libraryFolderUnreadableIn(cause))
                  ? Effect.void
                  : Effect.logError("background scan failed", cause),
              ),
            ),
          ),
          Effect.forkIn(scope),
        )
        return yield* Deferred.await(started)
      })

    /**
     * Starts a scan of one library (`libraryId`) or of every present one; `started` is false when none could
     * start (each was running already).
     */
    const start = (full: boolean, libraryId?: number) =>
      Effect.gen(function* () {
        const targets = (yield* scannable).filter((library) => libraryId === undefined || library.id === libraryId)
        const started = yield* Effect.forEach(targets, (library) => startOne(full, library), {
          concurrency: "unbounded",
        })
        return new ScanStarted({ started: started.some((one) => one) })
      })

    /**
     * A scan row left "running" by a process that died no longer holds the lock: it is reported as failed. A scan
     * that finished between reading its row and checking the lock wrote its end before letting the lock go, so
     * the row is read again before calling it failed (a newer running row holds the lock: its scan just began).
     */
    const statusOf = (libraryId: number) =>
      Effect.gen(function* () {
        const first = yield* scans.latestOf(libraryId)
        if (Option.isNone(first)) return Option.none<ScanRecord & { readonly shown: "idle" | "running" | "failed" }>()
        const unlocked = first.value.state === "running" && !(yield* leases.held(scanLeaseOf(libraryId)))
        const row = unlocked ? Option.getOrElse(yield* scans.latestOf(libraryId), () => first.value) : first.value
        const shown =
          row.state === "completed"
            ? "idle"
            : row.state === "failed"
              ? "failed"
              : unlocked && row.id === first.value.id
                ? "failed"
                : "running"
        return Option.some({ ...row, shown } as const)
      })

    /**
     * Each present library's latest scan; the top level is the running scan when one runs, else the latest of
     * any library (a single library's status is the one it always was).
     */
    const status = Effect.gen(function* () {
      const present = yield* scannable
      const each = yield* Effect.forEach(
        present,
        (library) => Effect.map(statusOf(library.id), (row) => ({ library, row })),
        { concurrency: 4 },
      )
      const items = each.flatMap(({ library, row }) =>
        Option.isNone(row)
          ? [new LibraryScanStatus({ ...IDLE_FIGURES, library_id: library.id, name: library.name })]
          : [
              new LibraryScanStatus({
                library_id: library.id,
                name: library.name,
                state: row.value.shown,
                started_at: row.value.started_at,
                finished_at: row.value.finished_at,
                files_seen: row.value.files_seen,
                added: row.value.added,
                updated: row.value.updated,
                removed: row.value.removed,
                errors: row.value.errors,
                message: row.value.shown === "failed" ? row.value.message : null,
                skipped: row.value.skipped,
              }),
            ],
      )
      const scanned = each.flatMap(({ row }) => (Option.isSome(row) ? [row.value] : []))
      const top =
        scanned.find((row) => row.shown === "running") ??
        scanned.reduce<(typeof scanned)[number] | undefined>(
          (latest, row) => (latest === undefined || row.id > latest.id ? row : latest),
          undefined,
        )
      if (top === undefined) return new ScanStatus({ ...IDLE, libraries: items })
      return new ScanStatus({
        state: top.shown,
        started_at: top.started_at,
        finished_at: top.finished_at,
        files_seen: top.files_seen,
        added: top.added,
        updated: top.updated,
        removed: top.removed,
        errors: top.errors,
        message: top.shown === "failed" ? top.message : null,
        skipped: top.skipped,
        libraries: items,
      })
    })

    /**
     * At boot: a scan a killed process left `running` is closed as failed, "interrupted" (issue 29 item 4), so the
     * history never shows a scan running forever. Only while holding that library's scan lock: a live scan on
     * another replica holds it, and its row is left alone. What the dead scan indexed stays (each file's row is its
     * own write).
     */
    const closeInterrupted = Effect.gen(function* () {
      const ids = new Set([PRIMARY_LIBRARY, ...(yield* libraries.all).map((row) => row.id)])
      let closed = 0
      for (const id of ids) {
        closed += yield* Effect.scoped(
          Effect.gen(function* () {
            if (Option.isNone(yield* leases.hold(scanLeaseOf(id)))) return 0
            return yield* scans.closeInterrupted(new Date(yield* Clock.currentTimeMillis), INTERRUPTED_MESSAGE, id)
          }),
        )
      }
      // A scan killed during a bulk load left the search indexes dropped (`Scanner`): build them now.
      if (closed > 0) yield* catalog.ensureSearchIndexes
      return closed
    })

    /** The first boot of a library that was never scanned starts one (each library: its first boot after it came). */
    const startIfNeverScanned = Effect.gen(function* () {
      let started = false
      for (const library of yield* scannable) {
        if (yield* scans.everCompleted(library.id)) continue
        if (yield* startOne(false, library)) started = true
      }
      return started
    })

    /** The files scans could not index, by path. */
    const errors = (query: ScanErrorsQuery) =>
      Effect.gen(function* () {
        const offset = query.offset ?? 0
        const limit = clampLimit(query.limit, SCAN_ERRORS_PAGE_DEFAULT, SCAN_ERRORS_PAGE_MAX)
        const page = yield* scans.errorPage(offset, limit)
        return new ScanErrorPage({
          // The path within its library: another library's stored `/N/` is ours (libraryPaths.ts).
          items: page.items.map((row) => {
            const { libraryId, relative } = splitStoredPath(row.path)
            return new ScanFileError({ ...row, library_id: libraryId, path: relative })
          }),
          total: page.total,
          offset,
          limit,
        })
      })

    return { start, status, closeInterrupted, startIfNeverScanned, errors } as const
  }),
  dependencies: [
    Scanner.Default,
    ScanRepository.Default,
    LibrariesRepository.Default,
    CatalogRepository.Default,
    Leases.Default,
  ],
}) {}

/** What an interrupted scan's row says (the scan API shows it as the failed scan's message). */
export const INTERRUPTED_MESSAGE = "interrupted: the server stopped during this scan; run a scan to finish indexing"

/** At boot, scans a dead process left running are closed; a library that was never scanned is scanned. */
export const BootScanLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const service = yield* ScanService
    const leases = yield* Leases
    const boot = Effect.gen(function* () {
      const closed = yield* service.closeInterrupted
      if (closed > 0) yield* Effect.logWarning(`${closed} scan(s) were interrupted by a stop: marked failed`)
      if (yield* service.startIfNeverScanned) yield* Effect.logInfo("the library was never scanned: scanning it now")
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not start the first library scan", cause)))
    yield* boot
    // A process killed mid-scan and started again before its scan lease ran out finds the lease held: its dead
    // scan stays open and the unfinished library unscanned. Once more after the lease's time, in the background
    // (a scan running then, here or on another replica, holds its lease and is left alone).
    yield* boot.pipe(Effect.delay(Duration.millis(leases.ttlMs + leases.ttlMs / 4 + 100)), Effect.forkScoped)
  }),
)
