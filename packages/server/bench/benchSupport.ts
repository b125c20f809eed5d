import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option, Redacted } from "effect"
import pg from "pg"
import { DEFAULT_MAX_BODY_BYTES, RADIO_DEFAULTS, type TonearmSettings } from "../src/config/TonearmConfig.js"
import { embeddedPostgres } from "../src/db/EmbeddedPostgres.js"

/** Clock ticks per second in /proc's CPU times (USER_HZ). */
const TICKS = 100

/**
 * One /proc `stat` file (a process's or a thread's): its command name and its CPU seconds, user + system, and with
 * its reaped children's (`cutime`/`cstime`) as `withChildrenSeconds`; the parent pid. Undefined once it is gone.
 */
export const procStat = (
  file: string,
): { name: string; ppid: number; seconds: number; withChildrenSeconds: number } | undefined => {
  let stat: string
  try {
    stat = fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
  const close = stat.lastIndexOf(")")
  // Fields after the parenthesised name start at field 3 (state): ppid is 4, utime 14, stime 15, cutime 16, cstime 17.
  const fields = stat
    .slice(close + 2)
    .split(" ")
    .map(Number)
  const seconds = (fields[11]! + fields[12]!) / TICKS
  return {
    name: stat.slice(stat.indexOf("(") + 1, close),
    ppid: fields[1]!,
    seconds,
    withChildrenSeconds: seconds + (fields[13]! + fields[14]!) / TICKS,
  }
}

const adminQuery = (url: string, statement: string) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  })

/** A throwaway database: created for the run, dropped afterwards. */
export const benchDatabase = Effect.gen(function* () {
  const external = process.env.TONEARM_BENCH_DATABASE_URL
  let adminUrl: string
  if (external !== undefined && external !== "") {
    adminUrl = external
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-pg-"))
    fs.chmodSync(dir, 0o755)
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    adminUrl = Redacted.value((yield* embeddedPostgres(dir, "postgres")).urlFor("postgres"))
  }
  const name = `tonearm_bench_${randomUUID().replaceAll("-", "")}`
  yield* Effect.acquireRelease(adminQuery(adminUrl, `CREATE DATABASE ${name}`), () =>
    adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  )
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
})

/** The settings of a server inside a bench: loopback, a private data directory, the given library. */
export const benchSettings = (dataDir: string, libraryDir: string): TonearmSettings => ({
  port: 0,
  host: "127.0.0.1",
  dataDir,
  libraryDir,
  databaseUrl: Option.none(),
  openRegistration: false,
  publicUrl: "http://localhost",
  mailWebhookUrl: Option.none(),
  clientApkDir: dataDir,
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  sseHeartbeatSeconds: 15,
  radio: RADIO_DEFAULTS,
})
