import { readFileSync } from "node:fs"
import { setPriority } from "node:os"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect } from "effect"
import type pg from "pg"
import { BACKGROUND_NICE } from "../threadPriority.js"

/** How the background pool's connections show in `pg_stat_activity`. */
export const BACKGROUND_APPLICATION_NAME = "tonearm background"
/** Connections of the background pool: one per nightly-run lane is enough (each holds one for a user's rebuild). */
export const BACKGROUND_POOL_MAX = 4

/**
 * Bulk work that must not slow requests down (the nightly rebuild): `run` gives every statement of `effect` one
 * connection of a separate pool, whose PostgreSQL backends run at nice 10 when the server can arrange it (the
 * database on this machine, as the embedded one always is; see `lowerBackendPriority`). A rebuild's statements
 * (a user's plays read, the system playlists, profile and change-log rows written) otherwise took the cores the
 * HTTP event loop and the request's own backends needed, on equal terms. A transaction inside `effect` begins and
 * commits on that connection.
 */
export class BackgroundDatabase extends Context.Tag("@tonearm/server/BackgroundDatabase")<
  BackgroundDatabase,
  { readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R> }
>() {}

export const backgroundDatabaseOf = (client: SqlClient.SqlClient): BackgroundDatabase["Type"] => ({
  run: (effect) =>
    Effect.scoped(
      Effect.flatMap(client.reserve, (connection) =>
        // @effect/sql's statements run on the connection of the transaction they are in; a depth of -1 makes the
        // connection theirs outside any transaction too, and lets a `withTransaction` inside begin (depth 0) on it.
        Effect.provideService(effect, SqlClient.TransactionConnection, [connection, -1]),
      ),
    ),
})

/**
 * Lowers a new background connection's backend to nice 10. Only a backend on this machine can be reniced, and
 * only one proven to be ours: the process PostgreSQL names by `pg_backend_pid()` must carry this connection's
 * client port in its title ("postgres: user db 127.0.0.1(port) …"), so a database elsewhere (another host, a
 * container) never gets an unrelated local process reniced. Raising nice needs no privilege over a process of
 * the same user (the embedded database runs as the server's user, or as `postgres` when the server is root);
 * anything refused or missing leaves the backend as it is.
 */
export const lowerBackendPriority = (client: pg.PoolClient): void => {
  client
    .query<{ pid: number; port: number | null }>("SELECT pg_backend_pid() AS pid, inet_client_port() AS port")
    .then(({ rows }) => {
      const row = rows[0]
      if (row === undefined || row.port === null) return
      const title = readFileSync(`/proc/${row.pid}/cmdline`, "utf8")
      if (title.startsWith("postgres:") && title.includes(`(${row.port})`)) setPriority(row.pid, BACKGROUND_NICE)
    })
    .catch(() => {})
}
