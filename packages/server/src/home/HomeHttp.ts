import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, Home, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { leanJson } from "../http/leanJson.js"
import { HomeService } from "./HomeService.js"

/** Home is a hot read route: lean encoding, the contract's JSON (see http/leanJson.ts). */
const homeSections = leanJson(Home)

export const HomeHttpLive = HttpApiBuilder.group(TonearmApi, "home", (handlers) =>
  Effect.gen(function* () {
    const home = yield* HomeService
    return handlers
      .handle("sections", () =>
        Effect.flatMap(CurrentSession, ({ user }) => Effect.map(home.sections(user.id), homeSections.respond)),
      )
      .handle("index", () => Effect.flatMap(CurrentSession, ({ user }) => home.index(user.id)))
  }),
)
