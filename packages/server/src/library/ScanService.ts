import {
  clampLimit,
  SCAN_ERRORS_PAGE_DEFAULT,
  SCAN_ERRORS_PAGE_MAX,
  ScanErrorPage,
  type ScanErrorsQuery,
  ScanFileError,
  ScanStarted,
  ScanStatus,
} from "@tonearm/core"
import { Clock, Deferred, Effect, Layer, Option } from "effect"
import { Scanner } from "./Scanner.js"
import { ScanRepository } from "./ScanRepository.js"
import { libraryFolderUnreadableIn } from "./walk.js"

const IDLE = new ScanStatus({
  state: "idle",
  started_at: null,
  finished_at: null,
  files_seen: 0,
  added: 0,
  updated: 0,
  removed: 0,
  errors: 0,
  skipped: 0,
})

/** Scans started over the API run in the background, one at a time across replicas; status is read from the database. */
export class ScanService extends Effect.Service<ScanService>()("@tonearm/server/ScanService", {
  scoped: Effect.gen(function* () {
    const scanner = yield* Scanner
    const scans = yield* ScanRepository
    const scope = yield* Effect.scope

    /** Starts a scan in the background; false when one is already running. */
    const start = (full: boolean) =>
      Effect.gen(function* () {
        const started = yield* Deferred.make<boolean>()
        yield* scanner.scan({ full, onStarted: Deferred.succeed(started, true) }).pipe(
          Effect.tap(
            Option.match({
              onNone: () => Deferred.succeed(started, false),
              onSome: (done) =>
                Effect.logInfo(
                  `library scan finished in ${done.seconds.toFixed(1)} s: ${done.filesSeen} files, ${done.added} added, ` +
                    `${done.updated} updated, ${done.removed} removed, ${done.skipped} skipped, ${done.errors} errors`,
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
        return new ScanStarted({ started: yield* Deferred.await(started) })
      })

    /**
     * A scan row left "running" by a process that died no longer holds the lock: it is reported as failed. A scan
     * that finished between reading its row and checking the lock wrote its end before letting the lock go, so
     * the row is read again before calling it failed (a newer running row holds the lock: its scan just began).
     */
    const status = Effect.gen(function* () {
      const first = yield* scans.latest
      if (Option.isNone(first)) return IDLE
      const unlocked = first.value.state === "running" && !(yield* scans.lockHeld)
      const row = unlocked ? Option.getOrElse(yield* scans.latest, () => first.value) : first.value
      const state =
        row.state === "completed"
          ? "idle"
          : row.state === "failed"
            ? "failed"
            : unlocked && row.id === first.value.id
              ? "failed"
              : "running"
      return new ScanStatus({
        state,
        started_at: row.started_at,
        finished_at: row.finished_at,
        files_seen: row.files_seen,
        added: row.added,
        updated: row.updated,
        removed: row.removed,
        errors: row.errors,
        message: state === "failed" ? row.message : null,
        skipped: row.skipped,
      })
    })

    /**
     * At boot: a scan a killed process left `running` is closed as failed, "interrupted" (issue 29 item 4), so the
     * history never shows a scan running forever. Only while holding the scan lock: a live scan on another replica
     * holds it, and its row is left alone. What the dead scan indexed stays (each file's row is its own write).
     */
    const closeInterrupted = Effect.scoped(
      Effect.gen(function* () {
        if (Option.isNone(yield* scans.acquireLock)) return 0
        return yield* scans.closeInterrupted(new Date(yield* Clock.currentTimeMillis), INTERRUPTED_MESSAGE)
      }),
    )

    /** The first boot of a library that was never scanned starts one. */
    const startIfNeverScanned = Effect.gen(function* () {
      if (yield* scans.everCompleted) return false
      return (yield* start(false)).started
    })

    /** The files scans could not index, by path. */
    const errors = (query: ScanErrorsQuery) =>
      Effect.gen(function* () {
        const offset = query.offset ?? 0
        const limit = clampLimit(query.limit, SCAN_ERRORS_PAGE_DEFAULT, SCAN_ERRORS_PAGE_MAX)
        const page = yield* scans.errorPage(offset, limit)
        return new ScanErrorPage({
          items: page.items.map((row) => new ScanFileError(row)),
          total: page.total,
          offset,
          limit,
        })
      })

    return { start, status, closeInterrupted, startIfNeverScanned, errors } as const
  }),
  dependencies: [Scanner.Default, ScanRepository.Default],
}) {}

/** What an interrupted scan's row says (the scan API shows it as the failed scan's message). */
export const INTERRUPTED_MESSAGE = "interrupted: the server stopped during this scan; run a scan to finish indexing"

/** At boot, scans a dead process left running are closed; a library that was never scanned is scanned. */
export const BootScanLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const service = yield* ScanService
    const closed = yield* service.closeInterrupted
    if (closed > 0) yield* Effect.logWarning(`${closed} scan(s) were interrupted by a stop: marked failed`)
    if (yield* service.startIfNeverScanned) yield* Effect.logInfo("the library was never scanned: scanning it now")
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not start the first library scan", cause))),
)
