import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit, Redacted, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { embeddedPostgres } from "../../src/db/EmbeddedPostgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser URL on a server where each test file creates (and drops) its own database. */
    adminDatabaseUrl: string
  }
}

const RUN_DIR_PREFIX = "tonearm-test-run-"

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
  const removeRunDir = () => fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 })

  const external = process.env.TONEARM_TEST_DATABASE_URL
  if (external !== undefined && external !== "") {
    project.provide("adminDatabaseUrl", external)
    return removeRunDir
  }
  const dir = fs.mkdtempSync(path.join(runDir, "pg-"))
  fs.chmodSync(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const cluster = await Effect.runPromise(embeddedPostgres(dir, "postgres").pipe(Scope.extend(scope)))
  project.provide("adminDatabaseUrl", Redacted.value(cluster.urlFor("postgres")))
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    removeRunDir()
  }
}
