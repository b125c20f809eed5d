import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { RecommendationsService } from "./RecommendationsService.js"

export const RecommendationsHttpLive = HttpApiBuilder.group(TonearmApi, "recommendations", (handlers) =>
  Effect.gen(function* () {
    const recommendations = yield* RecommendationsService
    return handlers.handle("metrics", ({ urlParams }) =>
      Effect.flatMap(CurrentSession, ({ user }) => recommendations.metrics(user.id, urlParams.days)),
    )
  }),
)
