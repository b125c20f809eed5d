import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { PlayQueueService } from "./PlayQueueService.js"

export const PlayQueueHttpLive = HttpApiBuilder.group(TonearmApi, "playQueue", (handlers) =>
  Effect.gen(function* () {
    const queues = yield* PlayQueueService
    const caller = Effect.map(CurrentSession, (session) => session.user.id)
    return handlers
      .handle("get", () => Effect.flatMap(caller, queues.get))
      .handle("save", ({ payload }) => Effect.flatMap(caller, (user) => queues.save(user, payload)))
  }),
)
