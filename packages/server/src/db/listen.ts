import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Option, Redacted, Schedule, Stream } from "effect"
import pg from "pg"

/**
 * Where LISTEN connects (`TONEARM_DATABASE_LISTEN_URL`; default: the database URL). LISTEN needs a session of its
 * own: behind PgBouncer in transaction mode point this at PostgreSQL itself (or at a session-mode pool), since a
 * transaction-mode pooler hands the listening session's server connection to others and the notifications are lost.
 */
export const DATABASE_LISTEN_URL = Config.option(Config.redacted("TONEARM_DATABASE_LISTEN_URL"))

/**
 * LISTEN on a channel over a connection of its own that says when it dies (issue 29 item 3). @effect/sql-pg's
 * `listen` swallows its connection's errors, so after a database restart its stream neither ends nor fails and a
 * replica never hears an event again. This stream fails when the connection errors or ends; `onListening` runs each
 * time LISTEN is in place (callers reconnect with `listenForever`).
 */
export const listenChannel = (
  channel: string,
  onListening: Effect.Effect<void> = Effect.void,
): Stream.Stream<string, SqlError, PgClient.PgClient> =>
  Stream.unwrap(
    Effect.map(Effect.all([PgClient.PgClient, Effect.orDie(DATABASE_LISTEN_URL)]), ([client, listenUrl]) =>
      Stream.asyncPush<string, SqlError>((emit) =>
        Effect.gen(function* () {
          let closing = false
          const connection = yield* Effect.acquireRelease(
            Effect.tryPromise({
              try: async () => {
                const direct = Option.map(listenUrl, Redacted.value)
                const listener = new pg.Client({
                  connectionString: Option.isSome(direct)
                    ? direct.value
                    : Option.getOrUndefined(Option.map(Option.fromNullable(client.config.url), Redacted.value)),
                  host: Option.isSome(direct) ? undefined : client.config.host,
                  port: Option.isSome(direct) ? undefined : client.config.port,
                  database: Option.isSome(direct) ? undefined : client.config.database,
                  user: Option.isSome(direct) ? undefined : client.config.username,
                  password: Option.isSome(direct)
                    ? undefined
                    : Option.getOrUndefined(Option.map(Option.fromNullable(client.config.password), Redacted.value)),
                  keepAlive: true,
                  connectionTimeoutMillis: 5_000,
                  application_name: "tonearm-listen",
                })
                // Until the handlers below are attached, an error must not crash the process.
                listener.on("error", () => {})
                await listener.connect()
                return listener
              },
              catch: (cause) => new SqlError({ cause, message: `could not connect to LISTEN on ${channel}` }),
            }),
            (listener) =>
              Effect.promise(() => {
                closing = true
                return listener.end().catch(() => {})
              }).pipe(Effect.timeoutOption("1 second")),
          )
          connection.on("notification", (message) => {
            if (message.channel === channel && message.payload !== undefined) emit.single(message.payload)
          })
          connection.on("error", (cause) => {
            if (!closing) emit.fail(new SqlError({ cause, message: `the LISTEN connection for ${channel} failed` }))
          })
          connection.on("end", () => {
            if (!closing)
              emit.fail(
                new SqlError({ cause: new Error("ended"), message: `the LISTEN connection for ${channel} closed` }),
              )
          })
          yield* Effect.tryPromise({
            try: () => connection.query(`LISTEN ${pg.escapeIdentifier(channel)}`),
            catch: (cause) => new SqlError({ cause, message: `could not LISTEN on ${channel}` }),
          })
          yield* onListening
        }),
      ),
    ),
  )

/**
 * Backoff between attempts while the database is away: 200 ms doubling to 10 s, so a restart is noticed within
 * seconds and an outage costs one attempt every 10 s.
 */
export const LISTEN_BACKOFF = Schedule.exponential("200 millis").pipe(Schedule.union(Schedule.spaced("10 seconds")))

/**
 * Runs `handle` for every payload for as long as the scope lives, reconnecting after each loss with
 * LISTEN_BACKOFF (reset once a connection is up again). `onReconnected` runs when LISTEN is back after a loss:
 * whatever was sent meanwhile was missed.
 */
export const listenForever = (
  channel: string,
  what: string,
  handle: (payload: string) => Effect.Effect<void>,
  onReconnected: Effect.Effect<void> = Effect.void,
) =>
  Effect.gen(function* () {
    let lost = false
    const attempt = listenChannel(
      channel,
      Effect.suspend(() => {
        const wasLost = lost
        lost = false
        return wasLost ? Effect.zipRight(Effect.logInfo(`${what} listener reconnected`), onReconnected) : Effect.void
      }),
    ).pipe(
      Stream.runForEach(handle),
      Effect.zipRight(Effect.fail(new SqlError({ cause: new Error("ended"), message: `${what} listener ended` }))),
      Effect.tapErrorCause((cause) =>
        Effect.suspend(() => {
          const first = !lost
          lost = true
          return first ? Effect.logWarning(`${what} listener lost its connection; reconnecting`, cause) : Effect.void
        }),
      ),
    )
    return yield* Effect.retry(attempt, LISTEN_BACKOFF)
  })
