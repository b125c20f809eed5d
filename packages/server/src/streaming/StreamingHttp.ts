import * as fs from "node:fs"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeStream } from "@effect/platform-node"
import { errorBody, TonearmApi, type TrackId } from "@tonearm/core"
import { Effect } from "effect"
import { publicOrigin } from "../http/connection.js"
import { CastService } from "./CastService.js"
import { StreamService } from "./StreamService.js"

/**
 * File bytes as a stream with an exact Content-Length: `HttpServerResponse.file` with an offset sends one
 * byte too many on platform-node 0.108 and corrupts the next response on a keep-alive connection.
 */
const streamResponse = (id: TrackId) =>
  Effect.gen(function* () {
    const streams = yield* StreamService
    const request = yield* HttpServerRequest.HttpServerRequest
    const plan = yield* streams.plan(id, { range: request.headers.range, ifRange: request.headers["if-range"] })
    if (plan._tag === "Unsatisfiable") {
      return HttpServerResponse.unsafeJson(
        errorBody("range_not_satisfiable", "the requested range is outside the file"),
        {
          status: 416,
          headers: plan.headers,
        },
      )
    }
    const { "content-type": contentType, ...headers } = plan.headers
    const length = plan.end - plan.start + 1
    return HttpServerResponse.stream(
      NodeStream.fromReadable(
        () => fs.createReadStream(plan.path, { start: plan.start, end: plan.end }),
        (cause) => new Error(`reading ${plan.path} failed: ${cause}`),
      ),
      { status: plan.status, contentType, contentLength: length, headers },
    )
  })

export const StreamingHttpLive = HttpApiBuilder.group(TonearmApi, "streaming", (handlers) =>
  handlers
    .handle("stream", ({ path }) => streamResponse(path.id))
    .handle("streamWithExtension", ({ path }) => streamResponse(path.id)),
)

export const CastHttpLive = HttpApiBuilder.group(TonearmApi, "cast", (handlers) =>
  Effect.gen(function* () {
    const cast = yield* CastService
    return handlers.handle("streamToken", ({ payload, urlParams }) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        cast.streamToken({
          trackId: payload.track_id,
          expSeconds: payload.expSeconds ?? urlParams.expSeconds,
          origin: publicOrigin(request),
        }),
      ),
    )
  }),
)
