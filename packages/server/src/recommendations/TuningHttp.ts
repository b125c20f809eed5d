import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { TuningService } from "./TuningService.js"

export const TuningHttpLive = HttpApiBuilder.group(TonearmApi, "tuning", (handlers) =>
  Effect.gen(function* () {
    const tuning = yield* TuningService
    return handlers
      .handle("get", () => tuning.view())
      .handle("patch", ({ payload }) =>
        Effect.flatMap(CurrentSession, ({ user }) => tuning.patch(user.id, payload.scope, payload.changes)),
      )
      .handle("reset", ({ payload }) =>
        Effect.flatMap(CurrentSession, ({ user }) => tuning.reset(user.id, payload.scope)),
      )
      .handle("audit", () => tuning.audit())
  }),
)
