import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { type SessionUser, TonearmApi, type TrackId, type TranscodeFormat } from "@tonearm/core"
import { Effect, Option } from "effect"
import { RequestAuthenticator } from "../accounts/index.js"
import { publicOrigin } from "../http/connection.js"
import { LibraryAccess } from "../library/index.js"
import { CastService } from "./CastService.js"
import { busyResponse, StreamService } from "./StreamService.js"

const streamResponse = (
  id: TrackId,
  urlParams: { readonly format?: TranscodeFormat; readonly maxBitRate?: number; readonly timeOffset?: number },
) =>
  Effect.gen(function* () {
    const streams = yield* StreamService
    const request = yield* HttpServerRequest.HttpServerRequest
    // A listener's stream of a track in a library they do not hear is 404, like an unknown track (a stream token,
    // for a speaker, was minted by someone who could hear it).
    const caller = yield* Effect.flatMap(RequestAuthenticator, (authenticator) => authenticator.authenticate).pipe(
      Effect.map(Option.map((session) => session.user)),
      Effect.orElseSucceed(() => Option.none<SessionUser>()),
    )
    const authenticator = yield* RequestAuthenticator
    return yield* streams
      .respond(id, {
        range: request.headers.range,
        ifRange: request.headers["if-range"],
        head: request.method === "HEAD",
        transcode: urlParams,
        // A signed-in listener, else (a stream token: a speaker) the address it streams to.
        owner: authenticator.authenticate.pipe(
          Effect.map(Option.map((session) => `user:${session.user.id}`)),
          Effect.orElseSucceed(Option.none<string>),
          Effect.map(Option.getOrElse(() => `address:${Option.getOrElse(request.remoteAddress, () => "unknown")}`)),
          Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        ),
      })
      .pipe(LibraryAccess.asCaller(Option.getOrUndefined(caller)))
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
