import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { inject } from "vitest"
import { adminQuery } from "../support/adminDatabase.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/** A statement on the server's admin connection (the run's PostgreSQL, outside the server under test). */
const admin = (statement: string) => adminQuery(inject("adminDatabaseUrl"), statement).pipe(Effect.orDie)

layer(TestServerLive(), { excludeTestServices: true })("health", (it) => {
  it.effect("GET /healthz answers 200 ok without auth while the database answers", () =>
    Effect.gen(function* () {
      const response = yield* raw("GET", "/healthz")
      expect(response.status).toBe(200)
      expect(response.json).toMatchObject({
        status: "ok",
        database: true,
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      })
    }),
  )

  it.effect("GET /healthz answers 503 degraded when the database does not answer, and recovers", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pgClient = yield* PgClient.PgClient
      const database = pgClient.config.database ?? new URL(Redacted.value(pgClient.config.url!)).pathname.slice(1)
      yield* sql`SELECT 1` // the pool is warm
      yield* admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`)
      yield* admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`)
      const down = yield* raw("GET", "/healthz").pipe(
        Effect.ensuring(admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`)),
      )
      expect(down.status).toBe(503)
      expect(down.json).toMatchObject({ status: "degraded", database: false })
      const up = yield* raw("GET", "/healthz")
      expect(up.json).toMatchObject({ status: "ok", database: true })
    }),
  )
})
