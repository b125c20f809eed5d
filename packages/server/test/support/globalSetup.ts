import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Layer, Redacted, Scope } from "effect"
import { build } from "esbuild"
import type { TestProject } from "vitest/node"
import { generateFixtureLibrary } from "../../fixtures/audio.js"
import { wildLibraryCache } from "../../fixtures/wild.js"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { embeddedPostgres } from "../../src/db/EmbeddedPostgres.js"
import { adminQuery, databaseUrl } from "./adminDatabase.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser URL on a server where each test file creates (and drops) its own database. */
    adminDatabaseUrl: string
    /** A database migrated once for the run: each test file's database is a copy of it (CREATE DATABASE … TEMPLATE). */
    templateDatabase: string
  }
}

const RUN_DIR_PREFIX = "tonearm-test-run-"

const SERVER_SRC = path.resolve(import.meta.dirname, "../../src")

/**
 * The server's worker threads that run from its sources (the history import's matcher, the Navidrome reader),
 * bundled once for the run into `dir`, which MatchWorker and NavidromeReader then start instead of registering
 * tsx in each new thread: through tsx every import compiled the worker's sources again (~4 s of CPU per thread,
 * against ~0.1 s for the bundle). Built from the current sources at each run, so never stale. They sit under
 * packages/server/node_modules (one folder per run, removed with it), where the Navidrome reader finds
 * better-sqlite3, a native package left out of the bundle.
 */
const WORKERS_PARENT = path.resolve(import.meta.dirname, "../../node_modules/.cache/tonearm-test-workers")
const bundleSourceWorkers = async () => {
  // TONEARM_SOURCE_WORKERS=tsx starts them through tsx instead (the development path). (The ECONNRESET once seen
  // with the bundle was the server keeping a connection open after a 413 that cut a streamed upload: fixed.)
  if (process.env.TONEARM_SOURCE_WORKERS === "tsx") {
    delete process.env.TONEARM_SOURCE_WORKERS
    return () => {}
  }
  fs.mkdirSync(WORKERS_PARENT, { recursive: true })
  for (const name of fs.readdirSync(WORKERS_PARENT))
    if (!alive(Number(name))) fs.rmSync(path.join(WORKERS_PARENT, name), { recursive: true, force: true })
  const dir = path.join(WORKERS_PARENT, String(process.pid))
  const bundle = (entry: string, name: string, external: Array<string> = []) =>
    build({
      entryPoints: [path.join(SERVER_SRC, entry)],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outfile: path.join(dir, `${name}.mjs`),
      external,
      logLevel: "warning",
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
    })
  await Promise.all([
    bundle("history/importWorker.ts", "importWorker"),
    bundle("history/navidrome/navidromeWorker.ts", "navidromeWorker", ["better-sqlite3"]),
  ])
  process.env.TONEARM_SOURCE_WORKERS = dir
  return () => fs.rmSync(dir, { recursive: true, force: true })
}

export const FFMPEG_MISSING =
  "ffmpeg is not installed: the tests make their real audio fixtures with it. Install it " +
  "(Debian/Ubuntu: sudo apt-get install -y ffmpeg; macOS: brew install ffmpeg) and run pnpm test again."

/** The message to stop the run with when ffmpeg cannot be started with this environment's PATH. */
export const ffmpegMissing = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const ffmpeg = spawnSync("ffmpeg", ["-version"], { stdio: "ignore", env })
  return ffmpeg.error !== undefined || ffmpeg.status !== 0 ? FFMPEG_MISSING : undefined
}

/** Whether a process with this pid is still running. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Run folders of test runs that were killed before their teardown (their pid is gone). */
export const removeAbandonedRuns = (tmp: string) => {
  for (const name of fs.readdirSync(tmp)) {
    const pid = Number(/^tonearm-test-run-(\d+)-/.exec(name)?.[1])
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      fs.rmSync(path.join(tmp, name), { recursive: true, force: true, maxRetries: 3 })
    }
  }
}

/**
 * Before any test: ffmpeg must be there (else one clear message instead of many failing files). Every
 * temporary file of the run (fixture libraries, data dirs, the embedded cluster, spawned CLIs) goes into
 * one run folder that becomes the workers' TMPDIR and is removed at the end, so a run leaves nothing behind.
 * Tests use TONEARM_TEST_DATABASE_URL when set (e.g. the machine's PostgreSQL on 127.0.0.1:5432), else one
 * embedded cluster for the whole run.
 */
export default async function setup(project: TestProject) {
  const missing = ffmpegMissing()
  if (missing !== undefined) throw new Error(missing)

  const systemTmp = os.tmpdir()
  removeAbandonedRuns(systemTmp)
  const runDir = fs.mkdtempSync(path.join(systemTmp, `${RUN_DIR_PREFIX}${process.pid}-`))
  // Reachable by the embedded cluster's OS user when the run is root.
  fs.chmodSync(runDir, 0o755)
  // Workers and every process they spawn inherit it: os.tmpdir() answers the run folder.
  process.env.TMPDIR = runDir
  let removeWorkers = () => {}
  const removeRunDir = () => {
    removeWorkers()
    fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 })
  }
  // The CLI's tests run the built command (packages/cli/dist, as npm installs it) and the browser tests the built
  // web app: `pnpm tonearm` rebuilds both when a source is newer (seconds when fresh; pnpm build already made them).
  if (process.env.TONEARM_TEST_LAYERS !== "fast") {
    const built = spawnSync(process.execPath, ["scripts/tonearm.mjs", "--version"], {
      cwd: path.resolve(import.meta.dirname, "../../../.."),
      stdio: ["ignore", "ignore", "inherit"],
    })
    if (built.status !== 0) throw new Error("could not build the CLI and the web app for the tests (see above)")
  }
  // Both fixture caches once, here, instead of once per worker that starts at the same moment, and kept between
  // runs in node_modules/.cache (ffmpeg made them in ~5 s per run, most of a one-file run's setup).
  process.env.TONEARM_FIXTURE_CACHE ??= path.resolve(import.meta.dirname, "../../../../node_modules/.cache/tonearm")
  fs.mkdirSync(process.env.TONEARM_FIXTURE_CACHE, { recursive: true })
  const warm = path.join(runDir, "warm")
  const [, , removeWorkersDir] = await Promise.all([
    generateFixtureLibrary(warm),
    wildLibraryCache(),
    bundleSourceWorkers(),
  ])
  removeWorkers = removeWorkersDir
  fs.rmSync(warm, { recursive: true, force: true })

  const external = process.env.TONEARM_TEST_DATABASE_URL
  if (external !== undefined && external !== "") {
    project.provide("adminDatabaseUrl", external)
    const dropTemplate = await migratedTemplate(project, external)
    return async () => {
      await dropTemplate()
      removeRunDir()
    }
  }
  const dir = fs.mkdtempSync(path.join(runDir, "pg-"))
  fs.chmodSync(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const cluster = await Effect.runPromise(embeddedPostgres(dir, "postgres").pipe(Scope.extend(scope)))
  const adminUrl = Redacted.value(cluster.urlFor("postgres"))
  project.provide("adminDatabaseUrl", adminUrl)
  await migratedTemplate(project, adminUrl)
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    removeRunDir()
  }
}

/**
 * Migrates one database for the whole run (a second or so) so that each test file copies it instead of migrating
 * its own. Returns how to drop it. Its name carries the pid, so runs side by side on one server never share it.
 */
const migratedTemplate = async (project: TestProject, adminUrl: string) => {
  const name = `tonearm_template_${process.pid}`
  const drop = adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await Effect.runPromise(Effect.andThen(drop, adminQuery(adminUrl, `CREATE DATABASE ${name}`)))
  // Built and released: a template must have no open connection while it is copied.
  await Effect.runPromise(
    Layer.build(makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl(adminUrl, name))))).pipe(Effect.scoped),
  )
  project.provide("templateDatabase", name)
  return () => Effect.runPromise(drop.pipe(Effect.ignore))
}
