import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { QuarantineService } from "./QuarantineService.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

export const QuarantineHttpLive = HttpApiBuilder.group(TonearmApi, "quarantine", (handlers) =>
  Effect.gen(function* () {
    const quarantine = yield* QuarantineService
    return handlers
      .handle("flag", ({ path, payload }) => Effect.flatMap(me, (user) => quarantine.flag(user, path.id, payload)))
      .handle("unflag", ({ path }) => Effect.flatMap(me, (user) => quarantine.unflag(user, path.id)))
  }),
)

export const ModerationHttpLive = HttpApiBuilder.group(TonearmApi, "moderation", (handlers) =>
  Effect.gen(function* () {
    const quarantine = yield* QuarantineService
    return handlers
      .handle("list", ({ urlParams }) => quarantine.list(urlParams))
      .handle("resolve", ({ path, payload }) =>
        Effect.flatMap(me, (admin) => quarantine.resolve(admin, path.id, payload.action)),
      )
  }),
)
