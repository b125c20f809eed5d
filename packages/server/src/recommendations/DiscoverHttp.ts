import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { DiscoverService } from "./DiscoverService.js"

export const DiscoverHttpLive = HttpApiBuilder.group(TonearmApi, "discover", (handlers) =>
  Effect.gen(function* () {
    const discover = yield* DiscoverService
    const me = Effect.map(CurrentSession, ({ user }) => user.id)
    return handlers
      .handle("suggestions", () => Effect.flatMap(me, discover.suggestions))
      .handle("deck", () => Effect.flatMap(me, discover.deck))
      .handle("snooze", ({ path, payload }) => Effect.flatMap(me, (user) => discover.snooze(user, path.mbid, payload)))
      .handle("unsnooze", ({ path }) => Effect.flatMap(me, (user) => discover.unsnooze(user, path.mbid)))
      .handle("snoozes", () => Effect.flatMap(me, discover.snoozes))
  }),
)
