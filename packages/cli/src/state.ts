import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option } from "effect"

/**
 * Where a `tonearm serve` runs, written when it listens: in its data directory (`server.json`, removed on a
 * clean shutdown) and in the user's state directory (kept, so commands typed later find the data directory and
 * library even when the server is stopped).
 */
export interface ServerRecord {
  /** The public URL: TONEARM_PUBLIC_URL, else http://<host or localhost>:<port>. Links are built on it. */
  readonly url: string
  /** How a command on this machine reaches it (loopback when it listens on every address). */
  readonly local_url: string
  readonly data_dir: string
  readonly library: string
  readonly pid: number
  readonly started_at: string
  /** Set when the server shut down cleanly. */
  readonly stopped_at?: string
}

const home = () => os.homedir()

/** `TONEARM_STATE_DIR`, else `$XDG_STATE_HOME/tonearm`, else `~/.local/state/tonearm`. */
export const stateDir = (): string =>
  process.env.TONEARM_STATE_DIR ||
  path.join(process.env.XDG_STATE_HOME || path.join(home(), ".local", "state"), "tonearm")

/** `TONEARM_CONFIG_DIR`, else `$XDG_CONFIG_HOME/tonearm`, else `~/.config/tonearm`. */
export const configDir = (): string =>
  process.env.TONEARM_CONFIG_DIR || path.join(process.env.XDG_CONFIG_HOME || path.join(home(), ".config"), "tonearm")

export const userRecordFile = () => path.join(stateDir(), "server.json")
/** Present while a server runs on the data directory. */
export const runningRecordFile = (dataDir: string) => path.join(dataDir, "server.json")
/** The last server that ran on the data directory: its library and URL, for commands typed while it is stopped. */
export const lastRecordFile = (dataDir: string) => path.join(dataDir, "last-server.json")

const readJson = (file: string): Option.Option<ServerRecord> => {
  try {
    const value = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<ServerRecord>
    return typeof value.url === "string" &&
      typeof value.local_url === "string" &&
      typeof value.data_dir === "string" &&
      typeof value.library === "string" &&
      typeof value.pid === "number"
      ? Option.some(value as ServerRecord)
      : Option.none()
  } catch {
    return Option.none()
  }
}

/** Written whole or not at all: a reader never sees half a file. */
export const writeFileAtomic = (file: string, text: string, mode = 0o644) => {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const temporary = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temporary, text, { mode })
  fs.chmodSync(temporary, mode)
  fs.renameSync(temporary, file)
}

export const readUserRecord = Effect.sync(() => readJson(userRecordFile()))
export const readRunningRecord = (dataDir: string) => Effect.sync(() => readJson(runningRecordFile(dataDir)))
/** What the data directory's last server recorded, running or not. */
export const readLastRecord = (dataDir: string) =>
  Effect.sync(() => Option.orElse(readJson(runningRecordFile(dataDir)), () => readJson(lastRecordFile(dataDir))))

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Answers at all (a 503 while its database restarts is still this server). */
export const answers = (url: string) =>
  Effect.promise(() =>
    fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
      () => true,
      () => false,
    ),
  )

/** A recorded server counts as running when its process lives and it answers /healthz. */
export const isRunning = (record: ServerRecord) =>
  record.stopped_at === undefined && pidAlive(record.pid) ? answers(record.local_url) : Effect.succeed(false)

/** The record of a running server, if this one is. */
export const running = (record: Option.Option<ServerRecord>) =>
  Option.isNone(record)
    ? Effect.succeed(Option.none<ServerRecord>())
    : Effect.map(isRunning(record.value), (yes) => (yes ? record : Option.none<ServerRecord>()))

/**
 * Writes the three records once the server listens; on shutdown removes the data directory's `server.json` and
 * marks the user's record stopped (unless another server has recorded itself there since).
 */
export const recordServer = (record: ServerRecord) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const text = `${JSON.stringify(record, null, 2)}\n`
      writeFileAtomic(runningRecordFile(record.data_dir), text)
      writeFileAtomic(lastRecordFile(record.data_dir), text)
      try {
        writeFileAtomic(userRecordFile(), text)
      } catch {
        // A read-only home does not stop the server: commands then need --data-dir or --server.
      }
    }),
    () =>
      Effect.sync(() => {
        fs.rmSync(runningRecordFile(record.data_dir), { force: true })
        const mine = readJson(userRecordFile())
        if (Option.isSome(mine) && mine.value.pid === record.pid && mine.value.data_dir === record.data_dir) {
          const stopped = { ...record, stopped_at: new Date().toISOString() }
          try {
            writeFileAtomic(userRecordFile(), `${JSON.stringify(stopped, null, 2)}\n`)
          } catch {
            // as above
          }
        }
      }),
  )
