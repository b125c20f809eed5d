import * as path from "node:path"
import { backupTo, PgLive, restoreFrom, TonearmConfig } from "@tonearm/server"
import { Effect, Layer, Option } from "effect"
import { configProviderFor } from "../config.js"
import type { ServerFlags } from "../flags.js"
import { runCommand } from "../run.js"
import { readUserRecord } from "../state.js"

/** Each table as it is done, on stderr (stdout keeps only the summary). */
const progress = (verb: string) => (line: string) => process.stderr.write(`${verb} ${line}\n`)

/** The database of `--data-dir` (else this user's last server's) or `--database-url`, unmigrated. */
const withDatabase = <A, E>(
  flags: ServerFlags,
  use: Effect.Effect<A, E, TonearmConfig | import("@effect/sql").SqlClient.SqlClient>,
) =>
  Effect.gen(function* () {
    const last = yield* readUserRecord
    const recorded = Option.match(last, { onNone: () => ({}), onSome: (record) => ({ dataDir: record.data_dir }) })
    return yield* use.pipe(
      Effect.provide(PgLive.pipe(Layer.provideMerge(TonearmConfig.layer))),
      Effect.withConfigProvider(configProviderFor(flags, recorded)),
    )
  })

/** `tonearm backup <file>`: one consistent snapshot, while the server keeps serving. */
export const backup = (file: string, flags: ServerFlags) =>
  runCommand(
    withDatabase(
      flags,
      Effect.gen(function* () {
        const target = path.resolve(file)
        const summary = yield* backupTo(target, progress("backed up"))
        console.log(
          `backup written to ${target}: ${summary.tables} tables, ${summary.rows} rows (schema migration ${summary.migration})`,
        )
      }),
    ),
  )

/** `tonearm restore <file>`: into a fresh data directory or an empty database; refused over existing accounts. */
export const restore = (file: string, flags: ServerFlags) =>
  runCommand(
    withDatabase(
      flags,
      Effect.gen(function* () {
        const config = yield* TonearmConfig
        const summary = yield* restoreFrom(path.resolve(file), progress("restored"))
        console.log(
          `restored ${summary.tables} tables, ${summary.rows} rows into ${config.dataDir}; start it with tonearm serve --data-dir ${config.dataDir}`,
        )
      }),
    ),
  )
