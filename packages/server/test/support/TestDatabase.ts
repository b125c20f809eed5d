import { randomUUID } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { adminQuery, databaseUrl } from "./adminDatabase.js"

/**
 * A database of its own for the caller, dropped with its scope: a copy of the run's migrated template, or empty
 * (`fromScratch`, for the tests of migrations themselves). Either way the layer runs the migrations like production
 * (on a copy of the template they find nothing to do).
 */
const ownDatabase = (fromScratch: boolean) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const adminUrl = inject("adminDatabaseUrl")
      const template = fromScratch ? "template1" : inject("templateDatabase")
      const name = `tonearm_t_${randomUUID().replaceAll("-", "")}`
      yield* Effect.acquireRelease(adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`), () =>
        adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.orDie),
      ).pipe(Effect.orDie)
      return makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl(adminUrl, name))))
    }),
  )

/** A fresh database for this test file, migrated like production, dropped when the file is done. */
export const TestDatabaseLive = ownDatabase(false)

/** An empty database that the migrations build from nothing, as on a first boot. */
export const EmptyTestDatabaseLive = ownDatabase(true)
