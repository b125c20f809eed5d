import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { TonearmApi, type TrackId, type TranscodeFormat } from "@tonearm/core"
import { Effect } from "effect"
import { publicOrigin } from "../http/connection.js"
import { CastService } from "./CastService.js"
import { busyResponse, StreamService } from "./StreamService.js"

const streamResponse = (
  id: TrackId,
  urlParams: { readonly format?: TranscodeFormat; readonly maxBitRate?: number; readonly timeOffset?: number },
) =>
  Effect.gen(function* () {
    const streams = yield* StreamService
    const request = yield* HttpServerRequest.HttpServerRequest
    return yield* streams.respond(id, {
      range: request.headers.range,
      ifRange: request.headers["if-range"],
      head: request.method === "HEAD",
      transcode: urlParams,
    })
  }).pipe(Effect.catchTag("TranscodersBusy", (error) => Effect.succeed(busyResponse(error))))

export const StreamingHttpLive = HttpApiBuilder.group(TonearmApi, "streaming", (handlers) =>
  handlers
    .handle("stream", ({ path, urlParams }) => streamResponse(path.id, urlParams))
    .handle("streamWithExtension", ({ path, urlParams }) => streamResponse(path.id, urlParams)),
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
