import { HttpApiBuilder } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { RebuildRunsService } from "./RebuildRunsService.js"

export const RebuildsHttpLive = HttpApiBuilder.group(TonearmApi, "rebuilds", (handlers) =>
  Effect.gen(function* () {
    const runs = yield* RebuildRunsService
    return handlers
      .handle("start", ({ payload }) => runs.start(payload))
      .handle("status", ({ path }) => runs.status(path.id))
  }),
)
