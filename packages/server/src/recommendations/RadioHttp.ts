import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { RadioService } from "./RadioService.js"
import { SimilarArtistsService } from "./SimilarArtistsService.js"

export const RadioHttpLive = HttpApiBuilder.group(TonearmApi, "radio", (handlers) =>
  Effect.gen(function* () {
    const radio = yield* RadioService
    const similar = yield* SimilarArtistsService
    const me = Effect.map(CurrentSession, ({ user }) => user.id)
    return handlers
      .handle("start", ({ payload }) => Effect.flatMap(me, (user) => radio.start(user, payload)))
      .handle("similarArtists", ({ path }) => similar.similar(path.id))
  }),
)
