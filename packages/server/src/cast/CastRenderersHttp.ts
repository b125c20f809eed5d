import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { publicOrigin } from "../http/connection.js"
import { CastRenderersService } from "./CastRenderersService.js"

export const CastRenderersHttpLive = HttpApiBuilder.group(TonearmApi, "castRenderers", (handlers) =>
  Effect.gen(function* () {
    const cast = yield* CastRenderersService
    const me = Effect.map(CurrentSession, (session) => session.user.id)
    return handlers
      .handle("renderers", () => cast.list)
      .handle("play", ({ path, payload }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          return yield* cast.play(yield* me, path.id, payload, publicOrigin(request))
        }),
      )
      .handle("pause", ({ path }) => Effect.flatMap(me, (user) => cast.pause(user, path.id)))
      .handle("resume", ({ path }) => Effect.flatMap(me, (user) => cast.resume(user, path.id)))
      .handle("stop", ({ path }) => Effect.flatMap(me, (user) => cast.stop(user, path.id)))
      .handle("seek", ({ path, payload }) =>
        Effect.flatMap(me, (user) => cast.seek(user, path.id, payload.position_ms)),
      )
      .handle("volume", ({ path, payload }) =>
        Effect.flatMap(me, (user) => cast.setVolume(user, path.id, payload.volume)),
      )
      .handle("status", ({ path }) => Effect.flatMap(me, (user) => cast.status(user, path.id)))
  }),
)
