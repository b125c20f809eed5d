import * as path from "node:path"
import type { Library, LibraryScanStatus, ScanStatus } from "@tonearm/core"
import { DateTime, Effect } from "effect"
import { CliError } from "../errors.js"
import type { AddLibraryFlags, RemoteFlags } from "../flags.js"
import { asAdmin, printRows, type Session } from "../remote.js"
import { runCommand } from "../run.js"

/** How often a scan's progress is read. */
const POLL_MS = 500

const iso = (at: DateTime.Utc | null) => (at === null ? null : DateTime.formatIso(at))

const asJson = (library: Library) => ({ ...library, scanned_at: iso(library.scanned_at) })

/** A library named by id or by name (names compared without letter case). */
const find = (session: Session, named: string) =>
  Effect.gen(function* () {
    const { items } = yield* session.client.adminLibraries.list()
    const byId = /^\d+$/.test(named) ? items.find((library) => library.id === Number(named)) : undefined
    const found = byId ?? items.find((library) => library.name.toLowerCase() === named.toLowerCase())
    if (found === undefined) {
      const known = items.map((library) => `${library.id} (${library.name})`).join(", ")
      return yield* new CliError({ message: `no library ${named}; the libraries are ${known || "none"}` })
    }
    return found
  })

/** `tonearm libraries list`. */
export const listLibraries = (flags: RemoteFlags) =>
  runCommand(
    asAdmin(flags, ({ client }) =>
      Effect.gen(function* () {
        const { items } = yield* client.adminLibraries.list()
        yield* printRows(
          flags,
          items.map(asJson),
          items.map((library) => ({
            id: library.id,
            name: library.name,
            tracks: library.track_count,
            scanned: iso(library.scanned_at) ?? "never",
            path: library.path,
          })),
        )
      }),
    ),
  )

/** `tonearm libraries add DIR [--name NAME]`: the folder as the server sees it (absolute). */
export const addLibrary = (dir: string, flags: AddLibraryFlags) =>
  runCommand(
    asAdmin(flags, ({ client }) =>
      Effect.gen(function* () {
        const folder = path.resolve(dir)
        const added = yield* client.adminLibraries.add({
          payload: { name: flags.name ?? (path.basename(folder) || folder), path: folder },
        })
        yield* Effect.sync(() =>
          console.log(
            flags.json
              ? JSON.stringify(asJson(added), null, 2)
              : `added library ${added.id} (${added.name}) at ${added.path}: scanning it now (tonearm libraries scan ${added.id} follows it)`,
          ),
        )
      }),
    ),
  )

/** `tonearm libraries remove LIBRARY`. */
export const removeLibrary = (named: string, flags: RemoteFlags) =>
  runCommand(
    asAdmin(flags, (session) =>
      Effect.gen(function* () {
        const library = yield* find(session, named)
        yield* session.client.adminLibraries.remove({ path: { id: library.id } })
        yield* Effect.sync(() =>
          console.log(
            `removed library ${library.id} (${library.name}): its ${library.track_count} tracks are missing until purged or the folder is added again`,
          ),
        )
      }),
    ),
  )

const line = (scan: LibraryScanStatus) =>
  `${scan.name}: ${scan.state} · ${scan.files_seen} files · ${scan.added} added · ${scan.updated} updated · ${scan.removed} removed · ${scan.errors} errors`

/** One line per library followed: redrawn on a terminal, printed when it changes state on a pipe. */
const progressPrinter = (json: boolean) => {
  const tty = process.stderr.isTTY === true
  const shown = new Map<number, string>()
  let drawn = 0
  return (scans: ReadonlyArray<LibraryScanStatus>) =>
    Effect.sync(() => {
      if (json) return
      if (tty) {
        if (drawn > 0) process.stderr.write(`\x1b[${drawn}A`)
        for (const scan of scans) process.stderr.write(`\r\x1b[2K${line(scan)}\n`)
        drawn = scans.length
        return
      }
      for (const scan of scans) {
        if (shown.get(scan.library_id) === scan.state) continue
        shown.set(scan.library_id, scan.state)
        process.stderr.write(`${line(scan)}\n`)
      }
    })
}

/**
 * `tonearm libraries scan [LIBRARY]`: starts the scan of one library (or every one), then follows each library's
 * own progress (GET /api/admin/scan) until none of them runs. A library whose scan failed makes it exit 1.
 */
export const scanLibraries = (named: string | undefined, flags: RemoteFlags) =>
  runCommand(
    asAdmin(flags, (session) =>
      Effect.gen(function* () {
        const { client } = session
        const target = named === undefined ? undefined : yield* find(session, named)
        const before = yield* client.scan.status()
        const started =
          target === undefined
            ? yield* client.scan.start({ payload: {} })
            : yield* client.adminLibraries.scan({ path: { id: target.id } })
        if (!started.started) yield* Effect.logInfo("a scan is already running: following it")
        const followed = (status: ScanStatus) =>
          status.libraries.filter((scan) => target === undefined || scan.library_id === target.id)
        const show = progressPrinter(flags.json)
        let scans = followed(yield* client.scan.status())
        yield* show(scans)
        while (scans.some((scan) => scan.state === "running")) {
          yield* Effect.sleep(POLL_MS)
          scans = followed(yield* client.scan.status())
          yield* show(scans)
        }
        if (flags.json) {
          yield* Effect.sync(() =>
            console.log(
              JSON.stringify(
                scans.map((scan) => ({
                  ...scan,
                  started_at: iso(scan.started_at),
                  finished_at: iso(scan.finished_at),
                })),
                null,
                2,
              ),
            ),
          )
        } else {
          for (const scan of scans) yield* Effect.sync(() => console.log(line(scan)))
        }
        const failed = scans.filter((scan) => scan.state === "failed")
        // A failure older than this command's scans is not this scan's.
        const earlier = new Map(before.libraries.map((scan) => [scan.library_id, iso(scan.finished_at)]))
        const fresh = failed.filter((scan) => iso(scan.finished_at) !== earlier.get(scan.library_id))
        if (fresh.length > 0) {
          return yield* new CliError({
            message: fresh
              .map((scan) => `the scan of ${scan.name} failed: ${scan.message ?? "see the server log"}`)
              .join("; "),
          })
        }
      }),
    ),
  )
