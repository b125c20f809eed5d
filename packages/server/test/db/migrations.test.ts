import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { migrations, runMigrations } from "../../src/db/Migrations.js"
import { EmptyTestDatabaseLive } from "../support/TestDatabase.js"

describe("database versioning (spec Versioning)", () => {
  it("migrations are numbered sequentially from 0001 with no gap", () => {
    const numbers = Object.keys(migrations).map((key) => Number(/^(\d{4})_[a-z0-9_]+$/.exec(key)?.[1]))
    expect(numbers).toEqual(numbers.map((_, index) => index + 1))
  })
})

layer(EmptyTestDatabaseLive)("migrations", (it) => {
  it.effect("run at boot, recorded, and a second run applies nothing", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const recorded = yield* sql<{
        migration_id: number
      }>`SELECT migration_id FROM effect_sql_migrations ORDER BY migration_id`
      expect(recorded.map((row) => row.migration_id)).toEqual(Object.keys(migrations).map((_, index) => index + 1))
      expect(yield* runMigrations).toEqual([])
    }),
  )
})
