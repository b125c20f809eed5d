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

/**
 * Tests use TONEARM_TEST_DATABASE_URL when set (e.g. the machine's PostgreSQL on 127.0.0.1:5432), else one
 * embedded cluster for the whole run, in a fresh temporary directory.
 */
export default async function setup(project: TestProject) {
  const external = process.env.TONEARM_TEST_DATABASE_URL
  if (external !== undefined && external !== "") {
    project.provide("adminDatabaseUrl", external)
    return
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-test-pg-"))
  fs.chmodSync(dir, 0o755)
  const scope = Effect.runSync(Scope.make())
  const cluster = await Effect.runPromise(embeddedPostgres(dir, "postgres").pipe(Scope.extend(scope)))
  project.provide("adminDatabaseUrl", Redacted.value(cluster.urlFor("postgres")))
  return async () => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
