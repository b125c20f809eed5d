import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"

/** One line per request at debug level (`TONEARM_LOG_LEVEL=debug`): method, path, status, milliseconds. */
export const accessLog = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = performance.now()
    const response = yield* app
    const path = request.url.split("?")[0]
    yield* Effect.logDebug(`${request.method} ${path} ${response.status} ${Math.round(performance.now() - started)}ms`)
    return response
  }),
)
