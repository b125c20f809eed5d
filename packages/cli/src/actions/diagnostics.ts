import * as fs from "node:fs"
import type { TonearmClient } from "@tonearm/client-sdk"
import { DIAGNOSTIC_PAGE_MAX, type DiagnosticEvent, type DiagnosticsQuery, parseInstant, UserId } from "@tonearm/core"
import { DateTime, Effect, Either, Schema } from "effect"
import { CliError } from "../errors.js"
import type { DiagnosticsExportFlags } from "../flags.js"
import { asAdmin } from "../remote.js"
import { runCommand } from "../run.js"

const FORMATS = ["ndjson", "csv"] as const
type Format = (typeof FORMATS)[number]

export const CSV_COLUMNS = ["id", "occurred_at", "received_at", "user_id", "username", "device_id", "kind", "data"]

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value)

/** One event as a line of the chosen format (a newline included). */
export const formatEvent = (event: DiagnosticEvent, format: Format): string => {
  const row = {
    id: event.id,
    occurred_at: DateTime.formatIso(event.occurred_at),
    received_at: DateTime.formatIso(event.received_at),
    user_id: event.user_id,
    username: event.username,
    device_id: event.device_id,
    kind: event.kind,
    data: event.data,
  }
  if (format === "ndjson") return `${JSON.stringify(row)}\n`
  return `${CSV_COLUMNS.map((column) => {
    const value = row[column as keyof typeof row]
    return csvField(typeof value === "string" ? value : JSON.stringify(value))
  }).join(",")}\n`
}

const timeOf = (flag: string, value: string | undefined) =>
  value === undefined
    ? Effect.succeed(undefined)
    : Either.match(parseInstant(value), {
        onLeft: (reason) => Effect.fail(new CliError({ message: `--${flag} ${reason} (got ${value})` })),
        onRight: (date) => Effect.succeed(date),
      })

/** `--user` takes a user id or a username (looked up among the accounts). */
const userIdOf = (client: TonearmClient, user: string | undefined) =>
  Effect.gen(function* () {
    if (user === undefined) return undefined
    if (Schema.is(UserId)(user)) return user
    const found = (yield* client.adminUsers.list()).find((row) => row.username === user)
    if (found === undefined) return yield* new CliError({ message: `no user named ${user}` })
    return found.id
  })

/** A line on stderr: redrawn on a terminal, one line per page on a pipe. */
const progress = () => {
  const tty = process.stderr.isTTY === true
  return (count: number, done: boolean) =>
    Effect.sync(() => {
      const line = `exported ${count} ${count === 1 ? "event" : "events"}${done ? "" : " …"}`
      if (tty) process.stderr.write(`\r\x1b[2K${line}${done ? "\n" : ""}`)
      else process.stderr.write(`${line}\n`)
    })
}

/**
 * `tonearm diagnostics export`: every page of GET /api/admin/diagnostics (5000 events a page, following the
 * cursor), each written out as it arrives, so an export of any size holds one page in memory.
 */
export const exportDiagnostics = (flags: DiagnosticsExportFlags) =>
  runCommand(
    Effect.gen(function* () {
      const format = flags.format ?? "ndjson"
      if (!(FORMATS as ReadonlyArray<string>).includes(format))
        return yield* new CliError({ message: `--format must be ndjson or csv (got ${format})` })
      const from = yield* timeOf("from", flags.from)
      const to = yield* timeOf("to", flags.to)
      yield* asAdmin(flags, ({ client }) =>
        Effect.gen(function* () {
          const userId = yield* userIdOf(client, flags.user)
          const base: DiagnosticsQuery = {
            limit: DIAGNOSTIC_PAGE_MAX,
            ...(userId === undefined ? {} : { user_id: UserId.make(userId) }),
            ...(flags.device === undefined ? {} : { device_id: flags.device }),
            ...(flags.kind === undefined ? {} : { kind: flags.kind }),
            ...(from === undefined ? {} : { from }),
            ...(to === undefined ? {} : { to }),
          }
          const out = yield* Effect.acquireRelease(
            Effect.sync(() => (flags.output === undefined ? undefined : fs.openSync(flags.output, "w"))),
            (fd) => Effect.sync(() => (fd === undefined ? undefined : fs.closeSync(fd))),
          )
          const write = (text: string) =>
            Effect.async<void>((resume) => {
              if (out !== undefined) {
                fs.writeSync(out, text)
                resume(Effect.void)
              } else if (process.stdout.write(text)) resume(Effect.void)
              else process.stdout.once("drain", () => resume(Effect.void))
            })
          const show = progress()
          if (format === "csv") yield* write(`${CSV_COLUMNS.join(",")}\n`)
          let cursor: string | undefined
          let count = 0
          for (;;) {
            const page = yield* client.adminDiagnostics.timeline({
              urlParams: cursor === undefined ? base : { ...base, cursor },
            })
            if (page.items.length > 0)
              yield* write(page.items.map((event) => formatEvent(event, format as Format)).join(""))
            count += page.items.length
            if (page.cursor === null) break
            cursor = page.cursor
            yield* show(count, false)
          }
          yield* show(count, true)
        }).pipe(Effect.scoped),
      )
    }),
  )
