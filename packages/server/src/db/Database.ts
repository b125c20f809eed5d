import { createHash } from "node:crypto"
import { SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { trackPool } from "../metrics.js"
import { embeddedPostgres } from "./EmbeddedPostgres.js"
import { MigrationsLive } from "./Migrations.js"

/** Distinct statements a connection keeps prepared; past this, statements run unnamed (parsed each time). */
export const PREPARED_PER_CONNECTION = 256
/** Statements with more parameters than this are not prepared: their text varies with a list's length. */
export const PREPARED_MAX_PARAMETERS = 32

const prepared = Symbol("tonearm.prepared")

// Statement texts are few and long-lived: each is hashed once, not on every query.
const names = new Map<string, string>()
const statementName = (text: string): string => {
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= 4 * PREPARED_PER_CONNECTION) names.clear()
    name = `t${createHash("sha1").update(text).digest("base64url")}`
    names.set(text, name)
  }
  return name
}

/**
 * Leads the text of a statement whose best plan depends on its values (a search for "the" and one for a rare
 * word, a large genre and a small one): it runs unnamed, so PostgreSQL plans each execution for its values.
 * Every other prepared statement is planned PostgreSQL's default way (`plan_cache_mode = auto`): after five
 * executions, one generic plan is reused when it costs no more than planning anew (a detail page's lookups by id,
 * a session check), which saves a third to two thirds of the database's CPU per browse request.
 */
export const PLANNED_PER_EXECUTION = "/* planned per execution */ "

/**
 * Runs the connection's parameterised statements as named prepared statements (as postgres.js and JDBC drivers
 * do by default): PostgreSQL parses each text once per connection instead of on every execution, and may reuse a
 * generic plan (`PLANNED_PER_EXECUTION` opts out). The name is a hash of the text, so the same text shares one
 * statement per connection; the count per connection is bounded. Statements without parameters keep the simple protocol (one may hold
 * several commands, which a prepared statement cannot).
 */
const preparing = (client: pg.PoolClient): void => {
  const tagged = client as pg.PoolClient & { [prepared]?: Set<string> }
  if (tagged[prepared] !== undefined) return
  const known = new Set<string>()
  tagged[prepared] = known
  const query = client.query.bind(client) as (...args: Array<unknown>) => unknown
  ;(client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
    if (
      typeof text !== "string" ||
      !Array.isArray(values) ||
      values.length === 0 ||
      values.length > PREPARED_MAX_PARAMETERS ||
      typeof callback !== "function" ||
      text.startsWith(PLANNED_PER_EXECUTION)
    )
      return query(text, values, callback)
    const name = statementName(text)
    if (!known.has(name)) {
      if (known.size >= PREPARED_PER_CONNECTION) return query(text, values, callback)
      known.add(name)
    }
    return query({ name, text, values }, callback)
  }
}

/**
 * A pool whose statements are never cancelled by an interrupted fiber. @effect/sql-pg answers an interrupt with
 * `pg_cancel_backend(pid)`, a signal the backend acts on whenever it arrives: by then the connection may be back
 * in the pool running another request's statement, which fails ("canceling statement due to user request", a 500
 * for someone else). It only sends that signal for a connection whose `processID` it knows, so each connection
 * forgets it; and an interrupted statement's connection goes back to the pool only once the statement has
 * finished (they take milliseconds), so nobody else's statement queues behind it.
 */
class UncancellablePool extends pg.Pool {
  /** Run parameterised statements as named prepared ones (see `preparing`). */
  prepare = false

  override connect(): Promise<pg.PoolClient>
  override connect(
    callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): void
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | void {
    if (callback === undefined) return super.connect()
    super.connect((err, client, done) => {
      if (client !== undefined) {
        const connection = client as pg.PoolClient & {
          processID?: number
          _activeQuery?: unknown
          _queryQueue?: unknown[]
        }
        connection.processID = undefined
        if (this.prepare) preparing(client)
        const release = client.release
        client.release = (cause?: Error | boolean) => {
          const busy = connection._activeQuery != null || (connection._queryQueue?.length ?? 0) > 0
          if (!busy || cause !== undefined) return release(cause)
          let released = false
          const once = () => {
            if (released) return
            released = true
            client.off("drain", once)
            client.off("end", once)
            release()
          }
          client.on("drain", once)
          client.on("end", once)
        }
      }
      callback(err, client, done)
    })
  }
}

/**
 * Connections per server process (`TONEARM_DB_POOL_MAX`, default 10): enough to keep a small machine's cores busy
 * under concurrent requests, few enough that each connection stays warm (its plans and catalogue caches reused)
 * and PostgreSQL is not thrashed by more active backends than it has cores to run them.
 */
export const DB_POOL_MAX = Config.integer("TONEARM_DB_POOL_MAX").pipe(
  Config.validate({ message: "TONEARM_DB_POOL_MAX must be between 2 and 200", validation: (n) => n >= 2 && n <= 200 }),
  Config.withDefault(10),
)

/**
 * Whether statements are prepared (`TONEARM_DB_PREPARE`, default true). Turn it off behind a pooler that hands
 * each transaction another server connection (PgBouncer's transaction mode before 1.21): a statement prepared
 * on one connection does not exist on the next.
 */
export const DB_PREPARE = Config.boolean("TONEARM_DB_PREPARE").pipe(Config.withDefault(true))

const uncancellablePool = (url: Redacted.Redacted) =>
  Effect.acquireRelease(
    Effect.map(Effect.orDie(Config.all([DB_POOL_MAX, DB_PREPARE])), ([max, prepare]) => {
      const pool = new UncancellablePool({
        connectionString: Redacted.value(url),
        max,
        idleTimeoutMillis: 60_000,
        // A database that does not answer (or a pool exhausted this long) fails the request with 503 instead of
        // holding it forever (issue 29 item 3).
        connectionTimeoutMillis: 10_000,
        application_name: "tonearm",
      })
      // An idle connection that dies (a database restart) is reported here; the next checkout reconnects.
      pool.on("error", () => {})
      pool.prepare = prepare
      // The pool's connections count into `/metrics` while it is open.
      return Object.assign(pool, { untrack: trackPool(pool) })
    }),
    // As @effect/sql-pg's own pool: a statement left running never holds shutdown for more than a second.
    (pool) =>
      Effect.sync(pool.untrack).pipe(
        Effect.zipRight(Effect.promise(() => pool.end())),
        Effect.interruptible,
        Effect.timeoutOption("1 second"),
      ),
  ).pipe(
    Effect.tap((pool) =>
      Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" }),
      }).pipe(
        Effect.timeoutFail({
          duration: "5 seconds",
          onTimeout: () =>
            new SqlError.SqlError({
              cause: new Error("Connection timed out"),
              message: "PgClient: Connection timed out",
            }),
        }),
      ),
    ),
  )

/** A pool on `url`: dates stay `Date`, counts come back as numbers via `::int` in SQL. */
export const pgClientLayer = (url: Redacted.Redacted) =>
  PgClient.layerFromPool({ acquire: uncancellablePool(url), applicationName: "tonearm" })

/** `TONEARM_DATABASE_URL` when set, else the embedded cluster inside the data directory. */
export const PgLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const config = yield* TonearmConfig
    if (Option.isSome(config.databaseUrl)) return pgClientLayer(config.databaseUrl.value)
    const cluster = yield* embeddedPostgres(config.dataDir)
    return pgClientLayer(cluster.url)
  }),
)

/** The production database: connected, then migrated before anything else uses it. */
export const makeDatabaseLive = <E, R>(
  pg: Layer.Layer<PgClient.PgClient | import("@effect/sql").SqlClient.SqlClient, E, R>,
) => MigrationsLive.pipe(Layer.provideMerge(pg))

export const DatabaseLive = makeDatabaseLive(PgLive)
