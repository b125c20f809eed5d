import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/**
 * "No 5xx under load" (issue 15): an interrupted fiber (a client that left) must never cancel a statement. A
 * `pg_cancel_backend` lands on whatever the backend runs when the signal arrives, which may already be another
 * request's statement on the same pooled connection. The pool in db/Database.ts never sends one.
 */

const waitingOnLock = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`SELECT pg_stat_clear_snapshot()`
  const rows = yield* sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE '%FROM interrupted_probe%'`
  return rows[0]?.n ?? 0
})

const until = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 500; attempt++) {
      if (yield* check) return true
      yield* Effect.sleep("20 millis")
    }
    return false
  })

layer(TestDatabaseLive, { excludeTestServices: true, timeout: "60 seconds" })("interrupted statements", (it) => {
  it.scoped("an interrupted statement is left to finish, never cancelled, and the pool keeps answering", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE interrupted_probe (n int)`
      yield* sql`INSERT INTO interrupted_probe VALUES (1)`
      // Another connection, outside the pool, holds the table so the pooled statement waits on it.
      const url = new URL(inject("adminDatabaseUrl"))
      url.pathname = `/${(yield* sql<{ db: string }>`SELECT current_database() AS db`)[0]?.db}`
      const holder = new pg.Client({ connectionString: url.toString() })
      holder.on("error", () => {})
      yield* Effect.promise(() => holder.connect())
      yield* Effect.addFinalizer(() => Effect.promise(() => holder.end()))
      yield* Effect.promise(() => holder.query("BEGIN; LOCK TABLE interrupted_probe IN ACCESS EXCLUSIVE MODE"))

      const waiting = yield* Effect.fork(sql`SELECT count(*) FROM interrupted_probe`)
      expect(yield* until(Effect.map(waitingOnLock, (n) => n === 1))).toBe(true)
      yield* Fiber.interrupt(waiting)
      yield* Effect.sleep("300 millis")
      // Not cancelled: the statement still waits for the lock.
      expect(yield* waitingOnLock).toBe(1)
      // Meanwhile every other statement is answered (none of them is cancelled by a late signal).
      const answers = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, index) => index),
        (index) => sql<{ n: number }>`SELECT ${index}::int AS n`,
        { concurrency: 8 },
      )
      expect(answers.map((rows) => rows[0]?.n)).toEqual(Array.from({ length: 40 }, (_, index) => index))

      yield* Effect.promise(() => holder.query("COMMIT"))
      expect(yield* until(Effect.map(waitingOnLock, (n) => n === 0))).toBe(true)
      expect(yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM interrupted_probe`).toEqual([{ n: 1 }])
    }),
  )
})
