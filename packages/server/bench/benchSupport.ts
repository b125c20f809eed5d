import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option, Redacted } from "effect"
import pg from "pg"
import { DEFAULT_MAX_BODY_BYTES, RADIO_DEFAULTS, type TonearmSettings } from "../src/config/TonearmConfig.js"
import { embeddedPostgres } from "../src/db/EmbeddedPostgres.js"

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
