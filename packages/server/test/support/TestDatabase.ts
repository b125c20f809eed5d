import { randomUUID } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"

/** One statement on the admin connection (CREATE / DROP DATABASE). */
export const adminQuery = (adminUrl: string, statement: string) =>
  Effect.tryPromise(async () => {
    const client = new pg.Client({ connectionString: adminUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  })

export const databaseUrl = (adminUrl: string, database: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
}

/** A fresh database for this test file, migrated like production, dropped when the file is done. */
export const TestDatabaseLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const adminUrl = inject("adminDatabaseUrl")
    const name = `tonearm_t_${randomUUID().replaceAll("-", "")}`
    yield* Effect.acquireRelease(adminQuery(adminUrl, `CREATE DATABASE ${name}`), () =>
      adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.orDie),
    ).pipe(Effect.orDie)
    return makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl(adminUrl, name))))
  }),
)
