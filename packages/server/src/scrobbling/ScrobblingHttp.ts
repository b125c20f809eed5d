import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { ScrobblingService } from "./ScrobblingService.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

export const ScrobblersHttpLive = HttpApiBuilder.group(TonearmApi, "scrobblers", (handlers) =>
  Effect.gen(function* () {
    const scrobbling = yield* ScrobblingService
    return handlers
      .handle("get", ({ path }) => Effect.flatMap(me, (user) => scrobbling.get(user, path.provider)))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(me, (user) => scrobbling.update(user, path.provider, payload)),
      )
      .handle("lastfmSession", ({ payload }) =>
        Effect.flatMap(me, (user) => scrobbling.connectLastfm(user, payload.token)),
      )
  }),
)
