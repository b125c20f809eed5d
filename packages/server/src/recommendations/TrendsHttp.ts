import { HttpApiBuilder } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { TrendsService } from "./TrendsService.js"

export const TrendsHttpLive = HttpApiBuilder.group(TonearmApi, "trends", (handlers) =>
  Effect.gen(function* () {
    const trends = yield* TrendsService
    return handlers.handle("get", ({ urlParams }) => trends.get(urlParams.weeks))
  }),
)
