import { FetchHttpClient } from "@effect/platform"
import { bearer, makeTonearmClient, type TonearmClient } from "@tonearm/client-sdk"
import { DEFAULT_PORT } from "@tonearm/core"
import type { Command } from "commander"
import { Effect } from "effect"
import type { RemoteFlags } from "./flags.js"

/** The server a remote command talks to: `--server`, else TONEARM_SERVER, else this machine's default port. */
export const serverUrlOf = (flags: RemoteFlags): string =>
  flags.server ?? process.env.TONEARM_SERVER ?? `http://localhost:${process.env.TONEARM_PORT ?? DEFAULT_PORT}`

/** Adds the flags every remote command takes. */
export const withRemoteFlags = (command: Command): Command =>
  command
    .option("--server <url>", "the running server (env TONEARM_SERVER, default http://localhost:4533)")
    .option("--token <token>", "an admin's bearer token (env TONEARM_TOKEN)")
    .option("--json", "print JSON for scripts instead of a table", false)

export class MissingToken extends Error {
  override readonly name = "MissingToken"
}

/**
 * The typed SDK client for a remote command, signed in with the admin token from `--token` or
 * TONEARM_TOKEN (until the CLI has a stored login).
 */
export const remoteClient = (flags: RemoteFlags): Effect.Effect<TonearmClient, MissingToken> =>
  Effect.gen(function* () {
    const token = flags.token ?? process.env.TONEARM_TOKEN
    if (token === undefined || token === "")
      return yield* Effect.fail(
        new MissingToken("this command needs an admin's token: pass --token or set TONEARM_TOKEN"),
      )
    return yield* makeTonearmClient({ baseUrl: serverUrlOf(flags), credentials: bearer(token) })
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** Prints rows as an aligned table for people, or the value as JSON for scripts. */
export const printRows = (
  flags: RemoteFlags,
  value: unknown,
  rows: ReadonlyArray<Record<string, string | number | boolean | null>>,
) =>
  Effect.sync(() => {
    if (flags.json) {
      console.log(JSON.stringify(value, null, 2))
      return
    }
    if (rows.length === 0) {
      console.log("(nothing)")
      return
    }
    const columns = Object.keys(rows[0]!)
    const cells = rows.map((row) => columns.map((column) => String(row[column] ?? "")))
    const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i]!.length)))
    const line = (values: ReadonlyArray<string>) =>
      values
        .map((value, i) => value.padEnd(widths[i]!))
        .join("  ")
        .trimEnd()
    console.log(line(columns))
    for (const cell of cells) console.log(line(cell))
  })
