import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import {
  SHIPPED_TUNING,
  TUNING_SCOPES,
  type TuningDifference,
  TuningDifferenceRow,
  type TuningScope,
  TuningScope as TuningScopeSchema,
  type UserId,
} from "@tonearm/core"
import { Effect, Schema } from "effect"
import { listenForever } from "../db/listen.js"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** NOTIFY channel on which every replica hears that the tuning changed (and its own liveness pings). */
const CHANNEL = "tonearm_tuning"

const AuditRow = Schema.Struct({
  id: Schema.String,
  scope: TuningScopeSchema,
  changed_by: Schema.NullOr(Schema.String),
  changed_at: Schema.DateTimeUtcFromDate,
  diff: Schema.Array(TuningDifferenceRow),
})
export type StoredAuditRow = typeof AuditRow.Type

/** `recommendation_tuning` (one row per scope holding its current values as JSON) and `tuning_audit`. */
export class TuningRepository extends Effect.Service<TuningRepository>()("@tonearm/server/TuningRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const pg = yield* PgClient.PgClient

    /** The stored values of every scope (a scope with no row is absent). */
    const readAll = sql<{
      scope: TuningScope
      current: unknown
    }>`SELECT scope, current FROM recommendation_tuning`.pipe(orInternal("TuningRepository.readAll"))

    /** One scope's stored values, row-locked until the caller's transaction ends (undefined: no row). */
    const readForUpdate = (scope: TuningScope) =>
      sql<{ current: unknown }>`SELECT current FROM recommendation_tuning WHERE scope = ${scope} FOR UPDATE`.pipe(
        Effect.map((rows) => rows[0]?.current),
        orInternal("TuningRepository.readForUpdate"),
      )

    /** Shipped values for scopes that have no row yet; a tuned row is never overwritten. */
    const seedShipped = (now: Date) =>
      sql`
        INSERT INTO recommendation_tuning (scope, current, updated_at)
        SELECT s.scope, s.current::jsonb, ${now}
        FROM unnest(${[...TUNING_SCOPES]}::text[], ${TUNING_SCOPES.map((scope) => JSON.stringify(SHIPPED_TUNING[scope]))}::text[])
             AS s (scope, current)
        ON CONFLICT (scope) DO NOTHING`.pipe(Effect.asVoid, orInternal("TuningRepository.seedShipped"))

    /** Stores a scope's new values and the audit row of the change (inside the caller's transaction). */
    const write = (change: {
      readonly scope: TuningScope
      readonly current: unknown
      readonly diff: ReadonlyArray<TuningDifference>
      readonly by: UserId
      readonly at: Date
    }) =>
      Effect.gen(function* () {
        yield* sql`
          INSERT INTO recommendation_tuning (scope, current, updated_at, updated_by)
          VALUES (${change.scope}, ${JSON.stringify(change.current)}::jsonb, ${change.at}, ${change.by})
          ON CONFLICT (scope) DO UPDATE
          SET current = EXCLUDED.current, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`
        yield* sql`
          INSERT INTO tuning_audit (scope, changed_by, changed_at, diff)
          VALUES (${change.scope}, ${change.by}, ${change.at}, ${JSON.stringify(change.diff)}::jsonb)`
      }).pipe(orInternal("TuningRepository.write"))

    /** Audit rows, newest first; with a window, only those changed inside [from, to]. */
    const audit = (window?: { readonly from: Date; readonly to: Date }) =>
      (window === undefined
        ? sql`SELECT id, scope, changed_by, changed_at, diff FROM tuning_audit ORDER BY changed_at DESC, id DESC`
        : sql`SELECT id, scope, changed_by, changed_at, diff FROM tuning_audit
              WHERE changed_at >= ${window.from} AND changed_at <= ${window.to}
              ORDER BY changed_at DESC, id DESC`
      ).pipe(Effect.flatMap(decodeRows(AuditRow)), orInternal("TuningRepository.audit"))

    /** Sent with the caller's transaction when there is one, so only a committed change is announced. */
    const notify = (payload: string) =>
      sql`SELECT pg_notify(${CHANNEL}, ${payload})`.pipe(Effect.asVoid, orInternal("TuningRepository.notify"))

    /** Hands every payload sent on the tuning channel, by any replica, to `handle`; reconnects after an outage. */
    const listen = (handle: (payload: string) => Effect.Effect<void>) =>
      Effect.provideService(listenForever(CHANNEL, "tuning", handle), PgClient.PgClient, pg)

    return { readAll, readForUpdate, seedShipped, write, audit, notify, listen } as const
  }),
}) {}
