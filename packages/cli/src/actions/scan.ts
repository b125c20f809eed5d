import { DatabaseLive, Scanner, type ScanProgress, ServicesLive, TonearmConfig } from "@tonearm/server"
import { Effect, Layer, Option } from "effect"
import { configProviderFor } from "../config.js"
import type { ScanFlags } from "../flags.js"
import { runCommand } from "../run.js"

const BAR_WIDTH = 30

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

export const scan = (flags: ScanFlags) =>
  runCommand(
    Effect.gen(function* () {
      const scanner = yield* Scanner
      const config = yield* TonearmConfig
      yield* Effect.logInfo(`scanning ${config.libraryDir}${flags.full ? " (full)" : ""}`)
      const result = yield* scanner.scan({ full: flags.full, onProgress: progressPrinter() })
      if (Option.isNone(result)) {
        return yield* Effect.fail(
          new Error("a scan is already running (on this server or another replica); try again later"),
        )
      }
      const summary = result.value
      yield* Effect.sync(() =>
        console.log(
          `scanned ${summary.filesSeen} files in ${summary.seconds.toFixed(1)} s: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.errors} errors`,
        ),
      )
    }).pipe(
      Effect.provide(ServicesLive.pipe(Layer.provide(DatabaseLive), Layer.provideMerge(TonearmConfig.layer))),
      Effect.withConfigProvider(configProviderFor(flags)),
    ),
  )
