import { SqlClient } from "@effect/sql"
import {
  DiagnosticEventId,
  type DiagnosticKind,
  DiagnosticKind as DiagnosticKindSchema,
  type UserId,
  UserId as UserIdSchema,
} from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

const DataRecord = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const DiagnosticEventRecord = Schema.Struct({
  id: DiagnosticEventId,
  /** occurred_at in whole microseconds since the epoch: the exact keyset for the cursor (a Date drops them). */
  occurred_us: Schema.String,
  user_id: UserIdSchema,
  username: Schema.String,
  device_id: Schema.String,
  kind: DiagnosticKindSchema,
  occurred_at: Schema.DateTimeUtcFromDate,
  received_at: Schema.DateTimeUtcFromDate,
  data: DataRecord,
})
export type DiagnosticEventRecord = typeof DiagnosticEventRecord.Type

export const DiagnosticDeviceRecord = Schema.Struct({
  device_id: Schema.String,
  user_id: UserIdSchema,
  username: Schema.String,
  debug_mode_enabled: Schema.Boolean,
  events: Schema.Number,
  first_seen_at: Schema.DateTimeUtcFromDate,
  last_seen_at: Schema.DateTimeUtcFromDate,
  last_kind: DiagnosticKindSchema,
  kinds: Schema.Record({ key: Schema.String, value: Schema.Number }),
})
export type DiagnosticDeviceRecord = typeof DiagnosticDeviceRecord.Type

export interface NewDiagnosticEvent {
  readonly kind: DiagnosticKind
  readonly deviceId: string
  readonly occurredAt: Date
  readonly data: Readonly<Record<string, unknown>>
}

export interface TimelineFilter {
  readonly userId: UserId | undefined
  readonly deviceId: string | undefined
  readonly kind: DiagnosticKind | undefined
  readonly from: Date | undefined
  readonly to: Date | undefined
  readonly after: { readonly occurredUs: string; readonly id: string } | undefined
}

/** Events per INSERT statement: well under PostgreSQL's 65535 parameters. */
const INSERT_CHUNK = 1000

/** The `diagnostic_events` table's only writer. */
export class DiagnosticEventRepository extends Effect.Service<DiagnosticEventRepository>()(
  "@tonearm/server/DiagnosticEventRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /** The caller's debug-mode switch (owned by accounts; read here only to gate the write). */
      const debugModeEnabled = (userId: UserId) =>
        sql<{ on: boolean }>`SELECT debug_mode_enabled AS on FROM users WHERE id = ${userId}`.pipe(
          Effect.map((rows) => rows[0]?.on === true),
          orInternal("DiagnosticEventRepository.debugModeEnabled"),
        )

      /** One batch, all or nothing. */
      const insertAll = (userId: UserId, events: ReadonlyArray<NewDiagnosticEvent>, receivedAt: Date) =>
        Effect.forEach(
          Array.from({ length: Math.ceil(events.length / INSERT_CHUNK) }, (_, i) =>
            events.slice(i * INSERT_CHUNK, (i + 1) * INSERT_CHUNK),
          ),
          (chunk) =>
            sql`INSERT INTO diagnostic_events ${sql.insert(
              chunk.map((event) => ({
                user_id: userId,
                device_id: event.deviceId,
                kind: event.kind,
                occurred_at: event.occurredAt,
                received_at: receivedAt,
                data: JSON.stringify(event.data),
              })),
            )}`,
          { discard: true },
        ).pipe(sql.withTransaction, orInternal("DiagnosticEventRepository.insertAll"))

      /** Oldest first by (occurred_at, id), strictly after the cursor; the window is inclusive. */
      const timeline = (filter: TimelineFilter, limit: number) => {
        const conditions = [
          filter.userId !== undefined ? sql`d.user_id = ${filter.userId}` : undefined,
          filter.deviceId !== undefined ? sql`d.device_id = ${filter.deviceId}` : undefined,
          filter.kind !== undefined ? sql`d.kind = ${filter.kind}` : undefined,
          filter.from !== undefined ? sql`d.occurred_at >= ${filter.from}` : undefined,
          filter.to !== undefined ? sql`d.occurred_at <= ${filter.to}` : undefined,
          filter.after !== undefined
            ? sql`(d.occurred_at, d.id) >
                  (timestamptz 'epoch' + ${filter.after.occurredUs}::bigint * interval '1 microsecond', ${filter.after.id}::uuid)`
            : undefined,
        ].filter((condition) => condition !== undefined)
        return sql`
          SELECT d.id, (extract(epoch FROM d.occurred_at) * 1000000)::bigint::text AS occurred_us, d.user_id, u.username, d.device_id, d.kind, d.occurred_at, d.received_at, d.data
          FROM diagnostic_events d JOIN users u ON u.id = d.user_id
          WHERE ${sql.and(conditions)}
          ORDER BY d.occurred_at, d.id
          LIMIT ${limit}`.pipe(
          Effect.flatMap(decodeRows(DiagnosticEventRecord)),
          orInternal("DiagnosticEventRepository.timeline"),
        )
      }

      /** One row per account and device, the most recently heard first. */
      const devices = sql`
        WITH per_kind AS (
          SELECT user_id, device_id, kind, count(*)::int AS n FROM diagnostic_events GROUP BY user_id, device_id, kind
        ), per_device AS (
          SELECT user_id, device_id, count(*)::int AS events, min(occurred_at) AS first_seen_at,
                 max(occurred_at) AS last_seen_at
          FROM diagnostic_events GROUP BY user_id, device_id
        )
        SELECT p.device_id, p.user_id, u.username, u.debug_mode_enabled, p.events, p.first_seen_at, p.last_seen_at,
               (SELECT d.kind FROM diagnostic_events d WHERE d.user_id = p.user_id AND d.device_id = p.device_id
                ORDER BY d.occurred_at DESC, d.id DESC LIMIT 1) AS last_kind,
               (SELECT jsonb_object_agg(k.kind, k.n) FROM per_kind k
                WHERE k.user_id = p.user_id AND k.device_id = p.device_id) AS kinds
        FROM per_device p JOIN users u ON u.id = p.user_id
        ORDER BY p.last_seen_at DESC, p.device_id`.pipe(
        Effect.flatMap(decodeRows(DiagnosticDeviceRecord)),
        orInternal("DiagnosticEventRepository.devices"),
      )

      /**
       * The retention sweep: rows that happened or arrived before `cutoff` go. One idempotent DELETE, so
       * replicas running it at once only share the work.
       */
      const pruneOlderThan = (cutoff: Date) =>
        sql<{ n: number }>`
          WITH gone AS (
            DELETE FROM diagnostic_events WHERE received_at < ${cutoff} OR occurred_at < ${cutoff} RETURNING 1
          )
          SELECT count(*)::int AS n FROM gone`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          orInternal("DiagnosticEventRepository.pruneOlderThan"),
        )

      const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM diagnostic_events`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        orInternal("DiagnosticEventRepository.count"),
      )

      return { debugModeEnabled, insertAll, timeline, devices, pruneOlderThan, count } as const
    }),
  },
) {}
