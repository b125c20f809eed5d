import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Option } from "effect"
import { type Recorded, resolvePath } from "./config.js"
import { CliError } from "./errors.js"
import { readLastRecord, readRunningRecord, readUserRecord, running, type ServerRecord } from "./state.js"

/** Where a command goes: a running server (through the SDK), or a data directory opened directly. */
export type Target = Remote | Local

export interface Remote {
  readonly _tag: "Remote"
  /** The URL requests go to. */
  readonly url: string
  /** The server's public URL when it recorded one (stored logins may be keyed by either). */
  readonly publicUrl: string
}

export interface Local {
  readonly _tag: "Local"
  readonly dataDir: string
  /** The library the last server on this data directory served. */
  readonly library: Option.Option<string>
  /** Its public URL, for links made while it is stopped. */
  readonly publicUrl: Option.Option<string>
  /** The server recorded in the user's state file, stopped (named in "not running" messages). */
  readonly stopped: Option.Option<ServerRecord>
}

export interface LocateFlags {
  readonly server?: string
  readonly dataDir?: string
}

const DEFAULT_DATA_DIR = "data"
const nonEmpty = (value: string | undefined) => (value === undefined || value === "" ? undefined : value)

const remote = (record: ServerRecord): Remote => ({ _tag: "Remote", url: record.local_url, publicUrl: record.url })

const local = (dataDir: string, stopped: Option.Option<ServerRecord>) =>
  Effect.map(readLastRecord(dataDir), (last) => {
    const recorded = Option.orElse(last, () => Option.filter(stopped, (record) => record.data_dir === dataDir))
    return {
      _tag: "Local",
      dataDir,
      library: Option.map(recorded, (record) => record.library),
      publicUrl: Option.map(recorded, (record) => record.url),
      stopped,
    } satisfies Local
  })

/**
 * `--server`/TONEARM_SERVER; else the server running on `--data-dir`/TONEARM_DATA_DIR; else the server this
 * user last started, when it still runs (pid alive, /healthz answers); else, with none running, the data
 * directory given, or the one that server used, or ./data.
 */
export const locate = (flags: LocateFlags): Effect.Effect<Target> =>
  Effect.gen(function* () {
    const server = nonEmpty(flags.server) ?? nonEmpty(process.env.TONEARM_SERVER)
    if (server !== undefined) {
      const url = server.replace(/\/+$/, "")
      return { _tag: "Remote", url, publicUrl: url } satisfies Remote
    }
    const given = nonEmpty(flags.dataDir) ?? nonEmpty(process.env.TONEARM_DATA_DIR)
    const userRecord = yield* readUserRecord
    if (given !== undefined) {
      const dataDir = resolvePath(given)
      const there = yield* running(yield* readRunningRecord(dataDir))
      if (Option.isSome(there)) return remote(there.value)
      return yield* local(dataDir, Option.none())
    }
    const last = yield* running(userRecord)
    if (Option.isSome(last)) return remote(last.value)
    if (Option.isSome(userRecord)) return yield* local(userRecord.value.data_dir, userRecord)
    const dataDir = resolvePath(DEFAULT_DATA_DIR)
    const there = yield* running(yield* readRunningRecord(dataDir))
    if (Option.isSome(there)) return remote(there.value)
    return yield* local(dataDir, Option.none())
  })

/** For commands that only talk to a running server: the reason there is none, naming what was looked for. */
export const noServer = (target: Local) =>
  new CliError({
    message: Option.match(target.stopped, {
      onNone: () =>
        `no tonearm server is running (none recorded for ${target.dataDir}): start one with tonearm serve, or pass --server URL`,
      onSome: (record) =>
        `the tonearm server last started at ${record.url} (data directory ${record.data_dir}) is not running: start it with tonearm serve --data-dir ${record.data_dir}, or pass --server URL`,
    }),
  })

/** A running server's URL, or the one-line reason there is none. */
export const requireServer = (flags: LocateFlags) =>
  Effect.flatMap(locate(flags), (target) =>
    target._tag === "Remote" ? Effect.succeed(target) : Effect.fail(noServer(target)),
  )

/**
 * Only `serve` and `migrate` create a database: other commands refuse a data directory without one (no
 * embedded cluster in `postgres/`, no TONEARM_DATABASE_URL) rather than start an empty one.
 */
export const requireDatabase = (target: Local, databaseUrl: string | undefined) =>
  nonEmpty(databaseUrl) !== undefined ||
  nonEmpty(process.env.TONEARM_DATABASE_URL) !== undefined ||
  fs.existsSync(path.join(target.dataDir, "postgres", "PG_VERSION"))
    ? Effect.void
    : Effect.fail(
        new CliError({
          message: `no tonearm database in ${target.dataDir} and no server running: start the server with tonearm serve --data-dir DIR (or tonearm migrate) first, or pass the data directory your server uses with --data-dir`,
        }),
      )

/** What a command opening the data directory takes from its last server. */
export const recordedOf = (target: Local): Recorded => ({
  dataDir: target.dataDir,
  ...Option.match(target.library, { onNone: () => ({}), onSome: (library) => ({ library }) }),
  ...Option.match(target.publicUrl, { onNone: () => ({}), onSome: (publicUrl) => ({ publicUrl }) }),
})
