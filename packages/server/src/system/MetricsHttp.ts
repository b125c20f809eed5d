import { timingSafeEqual } from "node:crypto"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { errorBody } from "@tonearm/core"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import { EventBus } from "../events/index.js"
import {
  databaseUp,
  eventStreamSubscribers,
  metricsRegistry,
  queueDepth,
  scanErrors,
  scanFilesSeen,
  scanLastDuration,
  scanRunning,
} from "../metrics.js"
import { MetricsRepository } from "./MetricsRepository.js"

/** `GET /metrics`: served beside the contract (Prometheus text, not JSON). */
export const METRICS_ROUTES = [{ method: "GET", path: "/metrics" }] as const

/**
 * `TONEARM_METRICS_TOKEN`: when set, a scraper that sends `Authorization: Bearer <token>` may read `/metrics`
 * from anywhere. Without it only a direct loopback connection may (never one relayed by a proxy).
 */
export const METRICS_TOKEN = Config.option(Config.redacted("TONEARM_METRICS_TOKEN")).pipe(
  Config.map(Option.filter((token) => Redacted.value(token) !== "")),
)

const LOOPBACK = /^(?:127\.|::1$|::ffff:127\.)/

const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Who may scrape (issue 30 item 3): a loopback peer that no proxy relayed (no X-Forwarded-For or Forwarded: a
 * proxy on the same host connects from loopback too, for any client), or anyone with the metrics token.
 */
export const mayScrape = (
  request: HttpServerRequest.HttpServerRequest,
  token: Option.Option<Redacted.Redacted<string>>,
): boolean => {
  const authorization = request.headers.authorization ?? ""
  if (Option.isSome(token) && authorization.toLowerCase().startsWith("bearer "))
    return sameSecret(authorization.slice(7).trim(), Redacted.value(token.value))
  const peer = Option.getOrUndefined(request.remoteAddress)
  const relayed = request.headers["x-forwarded-for"] !== undefined || request.headers.forwarded !== undefined
  return peer !== undefined && LOOPBACK.test(peer) && !relayed
}

export const MetricsHttpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const repository = yield* MetricsRepository
    const events = yield* EventBus
    const token = yield* METRICS_TOKEN

    /** Sets the gauges read from the database and the event bus; a database away reads as `tonearm_database_up 0`. */
    const refresh = Effect.gen(function* () {
      eventStreamSubscribers.set(yield* events.subscriberCount)
      const snapshot = yield* repository.snapshot.pipe(
        Effect.timeout("5 seconds"),
        Effect.tapErrorCause((cause) => Effect.logWarning("metrics: the database did not answer", cause)),
        Effect.option,
      )
      databaseUp.set(Option.isSome(snapshot) ? 1 : 0)
      if (Option.isNone(snapshot)) return
      const row = snapshot.value
      scanRunning.set(row.scan_running > 0 ? 1 : 0)
      scanFilesSeen.set(row.scan_files_seen)
      scanErrors.set(row.scan_errors)
      if (row.scan_last_seconds !== null) scanLastDuration.set(row.scan_last_seconds)
      queueDepth.set({ queue: "enrichment_pending" }, row.enrichment_pending)
      queueDepth.set({ queue: "enrichment_due" }, row.enrichment_due)
      queueDepth.set({ queue: "scrobbles" }, row.scrobbles_pending)
      queueDepth.set({ queue: "imports" }, row.imports_waiting)
      queueDepth.set({ queue: "rebuilds_due" }, row.rebuilds_due)
    })

    yield* router.get(
      "/metrics",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!mayScrape(request, token))
          return HttpServerResponse.unsafeJson(
            errorBody("forbidden", "metrics are served to loopback or with the metrics token"),
            { status: 403 },
          )
        yield* refresh
        const text = yield* Effect.promise(() => metricsRegistry.metrics())
        return HttpServerResponse.text(text, { contentType: metricsRegistry.contentType }).pipe(
          HttpServerResponse.setHeader("cache-control", "no-store"),
        )
      }),
    )
  }),
).pipe(Layer.provide(MetricsRepository.Default))
