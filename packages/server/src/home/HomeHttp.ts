import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { HomeService } from "./HomeService.js"

export const HomeHttpLive = HttpApiBuilder.group(TonearmApi, "home", (handlers) =>
  Effect.gen(function* () {
    const home = yield* HomeService
    return handlers
      .handle("sections", () => Effect.flatMap(CurrentSession, ({ user }) => home.sections(user.id)))
      .handle("index", () => Effect.flatMap(CurrentSession, ({ user }) => home.index(user.id)))
  }),
)
