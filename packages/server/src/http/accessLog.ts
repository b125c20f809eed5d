import { HttpMiddleware, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Cause, Effect, Exit, HashSet } from "effect"

/** The request was interrupted because its client closed the connection (platform-node's client-abort fiber id). */
export const isClientAbort = (cause: Cause.Cause<unknown>): boolean =>
  HashSet.has(Cause.interruptors(cause), HttpServerError.clientAbortFiberId)

/**
 * One line per request at debug level (`TONEARM_LOG_LEVEL=debug`): method, path, status, milliseconds. A client
 * that closes its connection mid-request (a player skipping a track, a load generator stopping) is not a server
 * error: it is one debug line too, never an ERROR with a stack trace.
 */
export const accessLog = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const started = performance.now()
    const path = request.url.split("?")[0]
    const elapsed = () => Math.round(performance.now() - started)
    const response = yield* app.pipe(
      Effect.onExit((exit) =>
        Exit.isFailure(exit) && isClientAbort(exit.cause)
          ? Effect.logDebug(`${request.method} ${path} client closed the connection after ${elapsed()}ms`)
          : Effect.void,
      ),
    )
    yield* Effect.logDebug(`${request.method} ${path} ${response.status} ${elapsed()}ms`)
    return response
  }),
)
