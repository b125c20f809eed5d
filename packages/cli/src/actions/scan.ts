import type { ScanErrorPage, ScanStatus } from "@tonearm/core"
import { DatabaseLive, Scanner, type ScanProgress, ScanService, ServicesLive, TonearmConfig } from "@tonearm/server"
import { DateTime, Effect, Layer, Option } from "effect"
import { configProviderFor } from "../config.js"
import { CliError } from "../errors.js"
import type { ScanFlags } from "../flags.js"
import { explained, notSignedIn, type Session, sessionOn } from "../remote.js"
import { runCommand } from "../run.js"
import { type Local, locate, recordedOf, requireDatabase } from "../target.js"

const BAR_WIDTH = 30
/** The failed files printed after a scan: the first page of GET /api/admin/scan/errors. */
const FAILED_SHOWN = 500

/** The files the scan could not index, one `path: reason` a line, after the summary. */
const printFailedFiles = (page: ScanErrorPage) =>
  Effect.sync(() => {
    if (page.total === 0) return
    console.log(`${page.total} ${page.total === 1 ? "file" : "files"} could not be indexed:`)
    for (const failed of page.items)
      console.log(
        `  ${failed.library_id === 1 ? "" : `library ${failed.library_id}: `}${failed.path}: ${failed.message}`,
      )
    if (page.total > page.items.length)
      console.log(
        `  … and ${page.total - page.items.length} more (GET /api/admin/scan/errors?offset=${page.items.length})`,
      )
  })

/** A redrawn bar on a terminal; on a pipe, one line per 10 % so logs stay readable. */
const progressPrinter = () => {
  const tty = process.stderr.isTTY === true
  let lastDecile = -1
  return (progress: ScanProgress) =>
    Effect.sync(() => {
      if (progress.phase === "walking") {
        process.stderr.write(tty ? "\rlooking for audio files…" : "looking for audio files\n")
        return
      }
      const ratio = progress.filesToRead === 0 ? 1 : progress.filesRead / progress.filesToRead
      const percent = Math.floor(ratio * 100)
      const line = `${progress.phase === "tidying" ? "tidying up" : "reading"} ${progress.filesRead}/${progress.filesToRead} files (${progress.filesSeen} in the library) · ${progress.errors} errors`
      if (tty) {
        const filled = Math.round(ratio * BAR_WIDTH)
        process.stderr.write(`\r\x1b[2K[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${percent}% ${line}`)
        if (progress.phase === "done") process.stderr.write("\n")
      } else if (Math.floor(percent / 10) > lastDecile) {
        lastDecile = Math.floor(percent / 10)
        process.stderr.write(`${percent}% ${line}\n`)
      }
    })
}

const scanHere = (flags: ScanFlags, target: Local) =>
  Effect.gen(function* () {
    yield* requireDatabase(target, flags.databaseUrl)
    return yield* Effect.gen(function* () {
      const scanner = yield* Scanner
      const config = yield* TonearmConfig
      yield* Effect.logInfo(`scanning ${config.libraryDir}${flags.full ? " (full)" : ""}`)
      const result = yield* scanner.scan({ full: flags.full, onProgress: progressPrinter() })
      if (Option.isNone(result)) {
        return yield* new CliError({
          message: "a scan is already running (on this server or another replica); try again later",
        })
      }
      const summary = result.value
      yield* Effect.sync(() =>
        console.log(
          `scanned ${summary.filesSeen} files in ${summary.seconds.toFixed(1)} s: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.skipped} skipped, ${summary.errors} errors`,
        ),
      )
      yield* printFailedFiles(yield* (yield* ScanService).errors({ limit: FAILED_SHOWN }))
    }).pipe(
      Effect.provide(ServicesLive.pipe(Layer.provide(DatabaseLive), Layer.provideMerge(TonearmConfig.layer))),
      Effect.withConfigProvider(configProviderFor(flags, recordedOf(target))),
    )
  })

/** How often a server's scan is read. */
const POLL_MS = 500

/** A redrawn line on a terminal; on a pipe, one line when the scan starts and one when it ends. */
const statusPrinter = () => {
  const tty = process.stderr.isTTY === true
  let printed = false
  return (status: ScanStatus) =>
    Effect.sync(() => {
      const line = `scanning: ${status.files_seen} files · ${status.added} added · ${status.updated} updated · ${status.removed} removed · ${status.skipped} skipped · ${status.errors} errors`
      if (tty) {
        process.stderr.write(`\r\x1b[2K${line}`)
        if (status.state !== "running") process.stderr.write("\n")
      } else if (!printed || status.state !== "running") {
        printed = true
        process.stderr.write(`${line}\n`)
      }
    })
}

/** The server scans its own library: started (or joined, when one runs), followed until it ends. */
const scanOnServer = (flags: ScanFlags, session: Session) =>
  Effect.gen(function* () {
    const { client } = session
    const started = yield* client.scan.start({ payload: { full: flags.full } })
    if (!started.started) yield* Effect.logInfo("a scan is already running on the server: following it")
    const show = flags.json ? () => Effect.void : statusPrinter()
    let status = yield* client.scan.status()
    yield* show(status)
    while (status.state === "running") {
      yield* Effect.sleep(POLL_MS)
      status = yield* client.scan.status()
      yield* show(status)
    }
    const seconds =
      status.started_at === null || status.finished_at === null
        ? 0
        : DateTime.distance(status.started_at, status.finished_at) / 1000
    const failed = yield* client.scan.errors({ urlParams: { limit: FAILED_SHOWN } })
    const iso = (at: DateTime.Utc | null) => (at === null ? null : DateTime.formatIso(at))
    yield* Effect.sync(() =>
      console.log(
        flags.json
          ? JSON.stringify(
              {
                ...status,
                started_at: iso(status.started_at),
                finished_at: iso(status.finished_at),
                failed_files: failed.items.map((item) => ({ ...item, seen_at: iso(item.seen_at) })),
                failed_total: failed.total,
              },
              null,
              2,
            )
          : `scanned ${status.files_seen} files in ${seconds.toFixed(1)} s: ${status.added} added, ${status.updated} updated, ${status.removed} removed, ${status.skipped} skipped, ${status.errors} errors`,
      ),
    )
    if (!flags.json) yield* printFailedFiles(failed)
    if (status.state === "failed")
      return yield* new CliError({
        message: `the scan on ${session.server.url} failed: ${status.message ?? "see the server log"}`,
      })
  })

/** `tonearm scan`: through the running server when there is one, else straight into the data directory. */
export const scan = (flags: ScanFlags) =>
  runCommand(
    Effect.gen(function* () {
      const target = yield* locate(flags)
      if (target._tag === "Local") return yield* scanHere(flags, target)
      if (flags.library !== undefined)
        return yield* new CliError({
          message: `the server at ${target.url} scans its own library; --library applies only when no server is running (restart it with tonearm serve --library DIR)`,
        })
      const session = yield* sessionOn(target, flags)
      if (!session.signedIn) return yield* notSignedIn(target)
      return yield* scanOnServer(flags, session).pipe(explained(session))
    }),
  )
