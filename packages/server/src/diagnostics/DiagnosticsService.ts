import {
  clampLimit,
  DIAGNOSTIC_BATCH_MAX,
  DIAGNOSTIC_KINDS,
  DIAGNOSTIC_PAGE_DEFAULT,
  DIAGNOSTIC_PAGE_MAX,
  DIAGNOSTIC_RETENTION_DAYS,
  DiagnosticBatch,
  DiagnosticDevice,
  DiagnosticEvent,
  DiagnosticPage,
  DiagnosticsAccepted,
  type DiagnosticsQuery,
  decodeDiagnosticCursor,
  encodeDiagnosticCursor,
  InvalidRequest,
  isDiagnosticKind,
  PayloadTooLarge,
  UnknownKind,
  type UserId,
  unknownDiagnosticKinds,
} from "@tonearm/core"
import { Duration, Effect, Either, Layer, ParseResult, Schedule, Schema } from "effect"
import { currentDate, daysBefore } from "../clock.js"
import { dutyLayer } from "../leases/index.js"
import { DiagnosticEventRepository } from "./DiagnosticEventRepository.js"

const unknownKind = (kinds: ReadonlyArray<string>) =>
  new UnknownKind({
    message: `unknown diagnostic kind ${kinds.map((kind) => `"${kind}"`).join(", ")} (one of ${DIAGNOSTIC_KINDS.join(", ")}); nothing of the batch was stored`,
  })

/** How often each replica runs the retention sweep. */
export const DIAGNOSTIC_SWEEP_INTERVAL = Duration.hours(1)

/**
 * Device diagnostics (spec "Playback errors and diagnostics"): stored only while the caller's debug mode is
 * on, every kind on the whitelist (an unknown one rejects the batch), kept 30 days by the server's clock.
 */
export class DiagnosticsService extends Effect.Service<DiagnosticsService>()("@tonearm/server/DiagnosticsService", {
  effect: Effect.gen(function* () {
    const events = yield* DiagnosticEventRepository

    /**
     * "off": debug mode is off, nothing was read beyond JSON nor stored (204). Otherwise the batch is
     * checked whole before anything is stored.
     */
    const report = Effect.fn("DiagnosticsService.report")(function* (user: UserId, body: unknown) {
      if (!(yield* events.debugModeEnabled(user))) return "off" as const
      const unknown = unknownDiagnosticKinds(body)
      if (unknown.length > 0) return yield* unknownKind(unknown)
      const raw = (body as { events?: unknown } | null)?.events
      if (Array.isArray(raw) && raw.length > DIAGNOSTIC_BATCH_MAX) {
        return yield* new PayloadTooLarge({ message: `a batch holds at most ${DIAGNOSTIC_BATCH_MAX} events` })
      }
      const batch = yield* Schema.decodeUnknown(DiagnosticBatch)(body, { onExcessProperty: "ignore" }).pipe(
        Effect.mapError(
          (error) =>
            new InvalidRequest({
              message: `invalid diagnostics batch: ${ParseResult.TreeFormatter.formatErrorSync(error)}`,
            }),
        ),
      )
      const receivedAt = yield* currentDate
      yield* events.insertAll(
        user,
        batch.events.map((event) => ({
          kind: event.kind,
          deviceId: event.device_id.trim(),
          occurredAt: event.occurred_at ?? receivedAt,
          data: event.data ?? {},
        })),
        receivedAt,
      )
      return new DiagnosticsAccepted({ accepted: batch.events.length })
    })

    const timeline = Effect.fn("DiagnosticsService.timeline")(function* (query: DiagnosticsQuery) {
      if (query.kind !== undefined && !isDiagnosticKind(query.kind)) return yield* unknownKind([query.kind])
      const after = decodeDiagnosticCursor(query.cursor)
      if (Either.isLeft(after)) return yield* new InvalidRequest({ message: after.left })
      const limit = clampLimit(query.limit, DIAGNOSTIC_PAGE_DEFAULT, DIAGNOSTIC_PAGE_MAX)
      const deviceId = query.device_id?.trim()
      const rows = yield* events.timeline(
        {
          userId: query.user_id,
          deviceId: deviceId === "" ? undefined : deviceId,
          kind: query.kind,
          from: query.from,
          to: query.to,
          after: after.right,
        },
        limit + 1,
      )
      const items = rows.slice(0, limit)
      const last = items[items.length - 1]
      return new DiagnosticPage({
        items: items.map(({ occurred_us: _, ...row }) => new DiagnosticEvent(row)),
        cursor: rows.length > limit && last !== undefined ? encodeDiagnosticCursor(last.occurred_us, last.id) : null,
      })
    })

    const devices = Effect.map(events.devices, (rows) => rows.map((row) => new DiagnosticDevice(row)))

    /** Prunes what is older than the retention by the server's Clock; answers how many rows went. */
    const sweep = Effect.gen(function* () {
      const now = yield* currentDate
      const pruned = yield* events.pruneOlderThan(daysBefore(now, DIAGNOSTIC_RETENTION_DAYS))
      if (pruned > 0) yield* Effect.logInfo(`diagnostics retention: pruned ${pruned} events`)
      return pruned
    }).pipe(Effect.withSpan("DiagnosticsService.sweep"))

    return { report, timeline, devices, sweep } as const
  }),
  dependencies: [DiagnosticEventRepository.Default],
}) {}

/**
 * The retention sweep: at start, then every hour, on the one replica holding DIAGNOSTICS_LEASE (issue 30). A failed
 * sweep is logged and the next one tries again.
 */
export const diagnosticsSweepLoop = Effect.flatMap(DiagnosticsService, (diagnostics) =>
  diagnostics.sweep.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("diagnostics retention sweep failed", cause)),
    Effect.repeat(Schedule.spaced(DIAGNOSTIC_SWEEP_INTERVAL)),
  ),
)

export const DIAGNOSTICS_LEASE = "diagnostics-retention"

export const DiagnosticsRetentionLive = dutyLayer(
  DIAGNOSTICS_LEASE,
  Layer.scopedDiscard(Effect.forkScoped(diagnosticsSweepLoop)),
)
