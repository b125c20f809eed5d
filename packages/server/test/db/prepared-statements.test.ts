import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { PLANNED_PER_EXECUTION, PREPARED_MAX_PARAMETERS, pgClientLayer } from "../../src/db/Database.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** The statements prepared on this connection whose text contains `marker`. */
const preparedLike = (marker: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ statement: string }>`
      SELECT statement FROM pg_prepared_statements WHERE statement LIKE ${`%${marker}%`} AND statement NOT LIKE '%pg_prepared_statements%'`,
  )

layer(TestDatabaseLive, { excludeTestServices: true, timeout: "60 seconds" })("prepared statements", (it) => {
  it.effect("a parameterised statement is prepared once per connection and reused with new values", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // One transaction: one connection, so what it prepared is visible to it.
      const seen = yield* Effect.gen(function* () {
        const first = yield* sql<{ n: number }>`SELECT ${1}::int + 0 AS n /* prepared_probe */`
        const second = yield* sql<{ n: number }>`SELECT ${41}::int + 0 AS n /* prepared_probe */`
        const statements = yield* preparedLike("prepared_probe")
        return { values: [first[0]?.n, second[0]?.n], statements: statements.length }
      }).pipe(sql.withTransaction)
      expect(seen).toEqual({ values: [1, 41], statements: 1 })
    }),
  )

  it.effect("statements without parameters or with a long list of them are not prepared, and still run", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const seen = yield* Effect.gen(function* () {
        // Two commands in one text: only the simple protocol takes that.
        yield* sql.unsafe("SELECT 1 /* unprepared_probe */; SELECT 2 /* unprepared_probe */")
        const many = Array.from({ length: PREPARED_MAX_PARAMETERS + 1 }, (_, i) => i)
        const rows = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM (VALUES (1), (2)) v(x) WHERE x IN ${sql.in(many)} /* long_probe */`
        return {
          n: rows[0]?.n,
          statements: (yield* preparedLike("unprepared_probe")).length + (yield* preparedLike("long_probe")).length,
        }
      }).pipe(sql.withTransaction)
      expect(seen).toEqual({ n: 2, statements: 0 })
    }),
  )

  it.effect("a statement that fails to prepare fails alone; the same connection prepares the next one", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const failed = yield* sql`SELECT ${1}::int FROM no_such_table /* broken_probe */`.pipe(Effect.flip)
      expect(String(failed.cause)).toContain("no_such_table")
      const again = yield* sql`SELECT ${1}::int FROM no_such_table /* broken_probe */`.pipe(Effect.flip)
      expect(String(again.cause)).toContain("no_such_table")
      yield* sql`CREATE TABLE no_such_table (n int)`
      yield* sql`INSERT INTO no_such_table VALUES (7)`
      const rows = yield* sql<{ int4: number }>`SELECT ${1}::int FROM no_such_table /* broken_probe */`
      expect(rows).toEqual([{ int4: 1 }])
    }),
  )

  it.effect(
    "statements are planned PostgreSQL's default way (plan_cache_mode auto: a generic plan once it is no costlier)",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ plan_cache_mode: string }>`SHOW plan_cache_mode`
        expect(rows).toEqual([{ plan_cache_mode: "auto" }])
      }),
  )

  it.effect(
    "a statement led by PLANNED_PER_EXECUTION is not prepared, so each execution is planned for its values",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const marked = sql.literal(PLANNED_PER_EXECUTION)
        const seen = yield* Effect.gen(function* () {
          const values: Array<number | undefined> = []
          for (const n of [1, 2, 3, 4, 5, 6, 7])
            values.push((yield* sql<{ n: number }>`${marked}SELECT ${n}::int + 0 AS n /* per_execution_probe */`)[0]?.n)
          return { values, statements: (yield* preparedLike("per_execution_probe")).length }
        }).pipe(sql.withTransaction)
        expect(seen).toEqual({ values: [1, 2, 3, 4, 5, 6, 7], statements: 0 })
      }),
  )

  it.scoped("TONEARM_DB_PREPARE=false (a transaction pooler in front) prepares nothing and leaves planning alone", () =>
    Effect.gen(function* () {
      const url = (yield* PgClient.PgClient).config.url!
      const unprepared = pgClientLayer(url).pipe(
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["TONEARM_DB_PREPARE", "false"]])))),
      )
      const seen = yield* Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return yield* Effect.gen(function* () {
          yield* sql`SELECT ${1}::int AS n /* off_probe */`
          yield* sql`SELECT ${2}::int AS n /* off_probe */`
          const mode = yield* sql<{ plan_cache_mode: string }>`SHOW plan_cache_mode`
          return { statements: (yield* preparedLike("off_probe")).length, mode: mode[0]?.plan_cache_mode }
        }).pipe(sql.withTransaction)
      }).pipe(Effect.provide(unprepared))
      expect(seen).toEqual({ statements: 0, mode: "auto" })
    }),
  )
})
