import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Effect, Exit } from "effect"
import { httpRequestDuration, httpRequestErrors, httpRequests, httpRequestsInFlight } from "../metrics.js"
import { isClientAbort } from "./accessLog.js"
import { makeRouteTemplates, type TemplateRoute } from "./routeTemplates.js"

/** The status a request is counted under when its client closed the connection before the answer (nginx's). */
export const CLIENT_CLOSED = 499

/**
 * Counts every request into the Prometheus metrics (src/metrics.ts): rate and latency per route template, 5xx
 * errors, requests in flight. `extraRoutes` are the routes served beside the contract (Subsonic, the pages,
 * `/metrics`, the web app). The latency is to the response head: a stream's body is not waited for.
 */
export const makeRequestMetrics = (extraRoutes: ReadonlyArray<TemplateRoute>) => {
  const templateOf = makeRouteTemplates(extraRoutes)
  return HttpMiddleware.make((app) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      httpRequestsInFlight.inc()
      return yield* app.pipe(
        Effect.onExit((exit) =>
          Effect.sync(() => {
            httpRequestsInFlight.dec()
            const path = request.url.split("?")[0] ?? "/"
            const route = templateOf(request.method, path)
            const status = Exit.isSuccess(exit) ? exit.value.status : isClientAbort(exit.cause) ? CLIENT_CLOSED : 500
            httpRequests.inc({ method: request.method, route, status: String(status) })
            httpRequestDuration.observe({ method: request.method, route }, (performance.now() - started) / 1000)
            if (status >= 500) httpRequestErrors.inc({ method: request.method, route })
          }),
        ),
      )
    }),
  )
}
