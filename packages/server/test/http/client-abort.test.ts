import * as http from "node:http"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { logIn, signUpFirstAdmin } from "../support/accounts.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

/**
 * Issue 15: "no 5xx under load". A request whose client leaves must not cancel its statement: @effect/sql-pg
 * answers an interrupt with `pg_cancel_backend(pid)`, sent after the connection may already be back in the pool
 * and running another request's statement, which then fails ("canceling statement due to user request") and is
 * answered 500. So request statements run to their end; the interrupt is honoured right after.
 */

/** A GET with a bearer token, left open; the returned effect closes it from the client side. */
const openRequest = (route: string, token: string, headers: Record<string, string>) =>
  Effect.gen(function* () {
    const base = new URL(yield* serverUrl)
    const request = http.get({
      host: base.hostname,
      port: base.port,
      path: route,
      headers: { ...headers, authorization: `Bearer ${token}` },
    })
    request.on("error", () => {})
    return Effect.sync(() => request.destroy())
  })

/**
 * Backends (other than this one) whose statement matching `like` waits on a lock (fresh view, not the
 * transaction's). Other statements may match too (a background read of the same table), so the test follows the
 * backends it saw, never a count.
 */
const waitingOn = (like: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT pg_stat_clear_snapshot()`
    const rows = yield* sql<{ pid: number }>`
      SELECT pid FROM pg_stat_activity
      WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND state = 'active' AND query LIKE ${like}`
    return new Set(rows.map((row) => row.pid))
  })

/** The backends that wait on a statement matching `like`, other than those of `before`, once there is one. */
const untilWaiting = (like: string, before: ReadonlySet<number>) =>
  Effect.gen(function* () {
    // Up to 10 s: on a busy machine the request may take a while to reach its statement.
    for (let attempt = 0; attempt < 500; attempt++) {
      const waiting = new Set([...(yield* waitingOn(like))].filter((pid) => !before.has(pid)))
      if (waiting.size > 0) return waiting
      yield* Effect.sleep("20 millis")
    }
    return new Set<number>()
  })

/** Which of `pids` still wait on a statement matching `like`. */
const stillWaiting = (like: string, pids: ReadonlySet<number>) =>
  Effect.map(waitingOn(like), (waiting) => [...pids].filter((pid) => waiting.has(pid)))

/** Locks with `lock`, sends a request that waits behind it, closes the client, and checks the statement waits on. */
const abortBehind = (
  lock: Effect.Effect<unknown, unknown, SqlClient.SqlClient>,
  like: string,
  token: string,
  headers: Record<string, string> = {},
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let pids: ReadonlySet<number> = new Set()
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* lock
        const before = yield* waitingOn(like)
        const close = yield* openRequest("/api/library/genres", token, headers)
        const waiting = yield* untilWaiting(like, before)
        expect(waiting.size).toBeGreaterThan(0)
        pids = waiting
        yield* close
        yield* Effect.sleep("300 millis")
        // The client is gone; its statement still waits for the lock instead of being cancelled.
        expect(yield* stillWaiting(like, waiting)).toEqual([...waiting])
      }),
    )
    // Lock released: the statement finishes and nothing is left waiting.
    for (let attempt = 0; attempt < 50 && (yield* stillWaiting(like, pids)).length > 0; attempt++)
      yield* Effect.sleep("20 millis")
    expect(yield* stillWaiting(like, pids)).toEqual([])
  })

/** The admin's token: the first account when the test runs alone, a new sign-in when another test made it. */
const adminToken = signUpFirstAdmin("admin").pipe(
  Effect.orElse(() => logIn("admin")),
  Effect.map((admin) => admin.token),
)

layer(TestServerLive(), { excludeTestServices: true, timeout: "60 seconds" })("client aborts", (it) => {
  it.effect("a client that leaves does not cancel its request's statements (authentication)", () =>
    Effect.gen(function* () {
      const token = yield* adminToken
      const sql = yield* SqlClient.SqlClient
      // The authentication statement only: a late idle-session prune of the sign-up also waits on this lock.
      yield* abortBehind(sql`LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`, "%WITH found AS%FROM sessions%", token)
    }),
  )

  it.effect("a client that leaves does not cancel its request's statements (the per-request settings read)", () =>
    Effect.gen(function* () {
      const token = yield* adminToken
      const sql = yield* SqlClient.SqlClient
      // Through a proxy: only a request with X-Forwarded-For reads the hop setting.
      yield* abortBehind(sql`LOCK TABLE settings IN ACCESS EXCLUSIVE MODE`, "%FROM settings%", token, {
        "x-forwarded-for": "203.0.113.7",
      })
    }),
  )
})
