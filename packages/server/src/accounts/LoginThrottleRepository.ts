import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

const FailureCount = Schema.Struct({
  throttle_key: Schema.String,
  failures: Schema.Number,
  latest: Schema.DateTimeUtcFromDate,
})

/** Failed logins per throttle key, shared by every replica through the database. */
export class LoginThrottleRepository extends Effect.Service<LoginThrottleRepository>()(
  "@tonearm/server/LoginThrottleRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      const failuresSince = (keys: ReadonlyArray<string>, since: Date) =>
        sql`
          SELECT throttle_key, count(*)::int AS failures, max(failed_at) AS latest
          FROM login_failures
          WHERE throttle_key IN ${sql.in(keys)} AND failed_at > ${since}
          GROUP BY throttle_key`.pipe(
          Effect.flatMap(decodeRows(FailureCount)),
          orInternal("LoginThrottleRepository.failuresSince"),
        )

      const record = (keys: ReadonlyArray<string>, now: Date) =>
        sql`INSERT INTO login_failures ${sql.insert(keys.map((throttle_key) => ({ throttle_key, failed_at: now })))}`.pipe(
          Effect.asVoid,
          orInternal("LoginThrottleRepository.record"),
        )

      const clear = (key: string) =>
        sql`DELETE FROM login_failures WHERE throttle_key = ${key}`.pipe(
          Effect.asVoid,
          orInternal("LoginThrottleRepository.clear"),
        )

      const prune = (before: Date) =>
        sql`DELETE FROM login_failures WHERE failed_at <= ${before}`.pipe(
          Effect.asVoid,
          orInternal("LoginThrottleRepository.prune"),
        )

      /**
       * Counts one more under `key` only while fewer than `limit` are inside the window, atomically: concurrent
       * callers queue on a transaction-scoped advisory lock of the key, so the limit is never overshot. Answers
       * whether it was counted, and the oldest entry inside the window (for a Retry-After).
       */
      const admit = (key: string, since: Date, limit: number, now: Date) =>
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`throttle:${key}`}))`
          const [window] = yield* sql<{ n: number; oldest: Date | null }>`
            SELECT count(*)::int AS n, min(failed_at) AS oldest FROM login_failures
            WHERE throttle_key = ${key} AND failed_at > ${since}`
          const admitted = (window?.n ?? 0) < limit
          if (admitted) yield* sql`INSERT INTO login_failures (throttle_key, failed_at) VALUES (${key}, ${now})`
          return { admitted, oldest: window?.oldest ?? null }
        }).pipe(sql.withTransaction, orInternal("LoginThrottleRepository.admit"))

      /**
       * Whether the named account holds a session first or last seen from this address. One statement whatever the
       * name, so an unknown account costs the same as a known one.
       */
      const knownAddress = (username: string, address: string) =>
        sql<{ known: boolean }>`
          SELECT EXISTS (
            SELECT 1 FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE lower(u.username) = lower(${username.trim()}) AND (s.last_ip = ${address} OR s.created_ip = ${address})
          ) AS known`.pipe(
          Effect.map((rows) => rows[0]?.known === true),
          orInternal("LoginThrottleRepository.knownAddress"),
        )

      return { failuresSince, record, admit, clear, prune, knownAddress } as const
    }),
  },
) {}
