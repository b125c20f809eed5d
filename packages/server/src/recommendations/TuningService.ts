import { SqlClient } from "@effect/sql"
import {
  applyTuningPatch,
  type Internal,
  InvalidRequest,
  resetTuning,
  type ScopeValues,
  SHIPPED_TUNING,
  TUNING_SCOPES,
  type Tuning,
  TuningAuditRow,
  type TuningChange,
  type TuningScope,
  type TuningScopeView,
  TuningView,
  tuningFromStored,
  tuningView,
  type UserId,
} from "@tonearm/core"
import { Clock, Effect, Either, Schedule } from "effect"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { TuningRepository } from "./TuningRepository.js"

/** How often each replica pings itself on the tuning channel to know its listener is alive. */
const HEARTBEAT_MS = 5_000
/** A listener not heard from for this long is treated as reconnecting: reads go to the database. */
const STALE_MS = 3 * HEARTBEAT_MS

const PING = "ping"

/**
 * Core words a refused patch as a schema tree whose first line is the whole struct; a client wants the
 * field and the reason: `taste_weight: Expected a number between 0 and 5, actual 5.5`.
 */
export const conciseTuningMessage = (message: string): string => {
  const field = /\["([^"]+)"\]/.exec(message)?.[1]
  const lines = message.split("\n").filter((line) => line.trim().length > 0)
  const reason = lines[lines.length - 1]?.replace(/^[\s└├│─]+/, "").trim()
  return field === undefined || reason === undefined || lines.length < 2 ? message : `${field}: ${reason}`
}

/**
 * The live tuning (spec "Tuning", "Administration"). Every rebuild and radio reads `current`, which each
 * replica caches; a change is announced with a NOTIFY on the tuning channel sent inside the change's
 * transaction (so it is delivered on commit, never for a rolled-back change), and every replica's
 * listener drops its cache when it hears one. The replica also pings itself on that channel: while its
 * listener is not heard from (starting, reconnecting, a dead connection) the cache is bypassed and every
 * read goes to the stored rows. The admin routes always read the stored rows.
 */
export class TuningService extends Effect.Service<TuningService>()("@tonearm/server/TuningService", {
  scoped: Effect.gen(function* () {
    const repository = yield* TuningRepository
    const sql = yield* SqlClient.SqlClient
    // At boot: scopes with no row get their shipped values; tuned rows are left as they are.
    yield* repository.seedShipped(yield* currentDate)

    // Bumped by every change heard (and by the listener coming back), so a read that raced a change is
    // never cached.
    let version = 0
    let cache: { readonly version: number; readonly tuning: Tuning } | undefined
    let lastHeardMs = Number.NEGATIVE_INFINITY

    const isLive = (now: number) => now - lastHeardMs <= STALE_MS
    const invalidate = Effect.sync(() => {
      version++
      cache = undefined
    })

    const heard = (payload: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          // After a silence, changes may have been missed: whatever is cached is suspect.
          if (!isLive(now)) version++
          lastHeardMs = now
          if (payload !== PING) {
            version++
            cache = undefined
          }
        }),
      )

    yield* repository.listen(heard).pipe(Effect.forkScoped)
    // Quick pings while the listener starts, then one every HEARTBEAT_MS.
    yield* repository.notify(PING).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("tuning heartbeat failed", cause)),
      Effect.repeat(
        Schedule.union(
          Schedule.spaced("200 millis").pipe(Schedule.intersect(Schedule.recurs(10))),
          Schedule.spaced(HEARTBEAT_MS),
        ),
      ),
      Effect.forkScoped,
    )

    /** Every scope as stored: a missing field takes its shipped value; an unreadable scope is served shipped. */
    const readStored: Effect.Effect<Tuning, Internal> = Effect.gen(function* () {
      const stored = new Map((yield* repository.readAll).map((row) => [row.scope, row.current]))
      const tuning: Record<string, unknown> = {}
      for (const scope of TUNING_SCOPES) {
        const decoded = tuningFromStored(scope, stored.get(scope))
        if (Either.isLeft(decoded)) {
          yield* Effect.logWarning(
            `stored ${scope} tuning is unreadable (${decoded.left.message}); using shipped values`,
          )
          tuning[scope] = SHIPPED_TUNING[scope]
        } else tuning[scope] = decoded.right
      }
      return tuning as Tuning
    })

    /** The tuning in force on this replica: cached while the listener is live, else read from the rows. */
    const current: Effect.Effect<Tuning, Internal> = Effect.gen(function* () {
      const live = isLive(yield* Clock.currentTimeMillis)
      const cached = cache
      if (live && cached !== undefined && cached.version === version) return cached.tuning
      const before = version
      const tuning = yield* readStored
      if (live && before === version) cache = { version: before, tuning }
      return tuning
    })

    /** GET: current and shipped values of every scope, from the stored rows. */
    const view = Effect.fn("TuningService.view")(function* () {
      return new TuningView(tuningView(yield* readStored))
    })

    const scopeView = <S extends TuningScope>(scope: S, values: ScopeValues<S>) =>
      ({ scope, current: values, shipped: SHIPPED_TUNING[scope] }) as TuningScopeView

    /**
     * One change of one scope, under the row's lock: stores the new values, the audit row and the NOTIFY
     * in one transaction, only when the change changed something.
     */
    const change = <S extends TuningScope>(
      admin: UserId,
      scope: S,
      decide: (current: ScopeValues<S>) => Effect.Effect<TuningChange<S>, InvalidRequest>,
    ) =>
      Effect.gen(function* () {
        const stored = yield* repository.readForUpdate(scope)
        const before = Either.getOrElse(tuningFromStored(scope, stored), () => SHIPPED_TUNING[scope] as ScopeValues<S>)
        const decided = yield* decide(before)
        if (decided.diff.length > 0) {
          yield* repository.write({
            scope,
            current: decided.current,
            diff: decided.diff,
            by: admin,
            at: yield* currentDate,
          })
          yield* repository.notify(`changed:${scope}`)
        }
        return decided
      }).pipe(
        sql.withTransaction,
        orInternal("TuningService.change"),
        // This replica reads the new values at once, without waiting for its own NOTIFY.
        Effect.tap((decided) => (decided.diff.length > 0 ? invalidate : Effect.void)),
        Effect.map((decided) => scopeView(decided.scope, decided.current)),
      )

    /** PATCH: unknown fields, out-of-bounds values and an unordered curve are 400 and change nothing. */
    const patch = Effect.fn("TuningService.patch")(function* (
      admin: UserId,
      scope: TuningScope,
      changes: Readonly<Record<string, unknown>>,
    ) {
      return yield* change(admin, scope, (before) =>
        applyTuningPatch(scope, before, changes).pipe(
          Effect.mapError(
            (error) =>
              new InvalidRequest({ message: `invalid ${scope} tuning: ${conciseTuningMessage(error.message)}` }),
          ),
        ),
      )
    })

    /** Reset: the shipped values, audited like a patch when it changed something. */
    const reset = Effect.fn("TuningService.reset")(function* (admin: UserId, scope: TuningScope) {
      return yield* change(admin, scope, (before) => Effect.succeed(resetTuning(scope, before)))
    })

    /** Every audit row, newest first. */
    const audit = Effect.fn("TuningService.audit")(function* () {
      return (yield* repository.audit()).map((row) => new TuningAuditRow(row))
    })

    /** The audit rows changed inside [from, to], newest first (trends' markers). */
    const auditBetween = (from: Date, to: Date) =>
      Effect.map(repository.audit({ from, to }), (rows) => rows.map((row) => new TuningAuditRow(row)))

    return { current, view, patch, reset, audit, auditBetween } as const
  }),
  dependencies: [TuningRepository.Default],
}) {}
