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
      const admit = (key: string | ReadonlyArray<string>, since: Date, limit: number, now: Date) =>
        Effect.gen(function* () {
          // Several keys (an address and the socket peer) are admitted together or not at all.
          const keys = [...new Set(typeof key === "string" ? [key] : key)].sort()
          for (const one of keys) yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`throttle:${one}`}))`
          let admitted = true
          let oldest: Date | null = null
          for (const one of keys) {
            const [window] = yield* sql<{ n: number; oldest: Date | null }>`
              SELECT count(*)::int AS n, min(failed_at) AS oldest FROM login_failures
              WHERE throttle_key = ${one} AND failed_at > ${since}`
            if ((window?.n ?? 0) >= limit) {
              admitted = false
              if (window?.oldest != null && (oldest === null || window.oldest > oldest)) oldest = window.oldest
            }
          }
          if (admitted && keys.length > 0)
            yield* sql`INSERT INTO login_failures ${sql.insert(keys.map((throttle_key) => ({ throttle_key, failed_at: now })))}`
          return { admitted, oldest }
        }).pipe(sql.withTransaction, orInternal("LoginThrottleRepository.admit"))

      /**
       * One sign-in attempt, decided and counted at once (issue 29): under transaction-scoped advisory locks of every
       * key (taken in one order, so two attempts never deadlock) it reads the `checked` keys' windows, asks `blocked`,
       * and when the attempt may go on records a failure under each `recorded` key before the password is even
       * checked. Concurrent attempts therefore queue and each sees the ones before it: a burst cannot slip past the
       * limit between a check and its record. Answers the recorded rows (forgotten again if the password was
       * right), or undefined when blocked, with the windows read.
       */
      const reserve = <D extends { readonly blocked: boolean }>(
        checked: ReadonlyArray<string>,
        recorded: ReadonlyArray<string>,
        since: Date,
        now: Date,
        decide: (windows: ReadonlyArray<typeof FailureCount.Type>) => D,
      ) =>
        Effect.gen(function* () {
          for (const key of [...new Set([...checked, ...recorded])].sort())
            yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`login:${key}`}))`
          const windows = checked.length === 0 ? [] : yield* failuresSince(checked, since)
          const decision = decide(windows)
          if (decision.blocked || recorded.length === 0) return { decision, ids: [] as Array<string> }
          const rows = yield* sql<{ id: string }>`
            INSERT INTO login_failures ${sql.insert(recorded.map((throttle_key) => ({ throttle_key, failed_at: now })))}
            RETURNING id::text AS id`
          return { decision, ids: rows.map((row) => row.id) }
        }).pipe(sql.withTransaction, orInternal("LoginThrottleRepository.reserve"))

      /** Takes back the failures an attempt reserved (its password was right). */
      const forget = (ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.void
          : sql`DELETE FROM login_failures WHERE id = ANY(${ids as Array<string>}::bigint[])`.pipe(
              Effect.asVoid,
              orInternal("LoginThrottleRepository.forget"),
            )

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

      return { failuresSince, record, reserve, forget, admit, clear, prune, knownAddress } as const
    }),
  },
) {}
