import { readFileSync } from "node:fs"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either } from "effect"
import { BACKGROUND_APPLICATION_NAME, BackgroundDatabase } from "../../src/db/BackgroundDatabase.js"
import { BACKGROUND_NICE } from "../../src/threadPriority.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** The nice value of a local process (field 19 of /proc/<pid>/stat), or undefined when it is not on this machine. */
const niceOf = (pid: number): number | undefined => {
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("postgres:")) return undefined
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])
  } catch {
    return undefined
  }
}

const backendPid = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`, (rows) => rows[0]!.pid),
)

layer(TestDatabaseLive)("the background database (the nightly rebuild's statements)", (it) => {
  it.effect("every statement runs on one background connection whose backend yields the CPU to requests'", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const background = yield* BackgroundDatabase
      const seen = yield* background.run(
        Effect.gen(function* () {
          const [row] = yield* sql<{ pid: number; app: string }>`
            SELECT pg_backend_pid() AS pid, current_setting('application_name') AS app`
          const again = yield* Effect.all([backendPid, backendPid, backendPid], { concurrency: 3 })
          const inTransaction = yield* sql.withTransaction(backendPid)
          return { ...row!, again, inTransaction }
        }),
      )
      expect(seen.app).toBe(BACKGROUND_APPLICATION_NAME)
      expect(seen.again).toEqual([seen.pid, seen.pid, seen.pid])
      expect(seen.inTransaction).toBe(seen.pid)
      const requestPid = yield* backendPid
      expect(requestPid).not.toBe(seen.pid)
      // On this machine (CI's database, the embedded one) the background backend runs at nice 10, requests' at 0.
      const requestNice = niceOf(requestPid)
      if (requestNice !== undefined) {
        expect(niceOf(seen.pid)).toBe(BACKGROUND_NICE)
        expect(requestNice).toBe(0)
      }
    }),
  )

  it.effect("a transaction inside commits on that connection, or rolls back whole on a failure", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const background = yield* BackgroundDatabase
      const write = (key: string) => sql`INSERT INTO settings (key, value, updated_at) VALUES (${key}, '1', now())`
      yield* background.run(sql.withTransaction(Effect.all([write("bg-a"), write("bg-b")])))
      const failed = yield* background
        .run(sql.withTransaction(Effect.zipRight(write("bg-c"), Effect.fail("stop" as const))))
        .pipe(Effect.either)
      expect(Either.isLeft(failed)).toBe(true)
      const keys = yield* sql<{ key: string }>`SELECT key FROM settings WHERE key LIKE 'bg-%' ORDER BY key`
      expect(keys.map((row) => row.key)).toEqual(["bg-a", "bg-b"])
    }),
  )
})
