import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { SubsonicCredentialsService } from "./SubsonicCredentialsService.js"

export const SubsonicCredentialsHttpLive = HttpApiBuilder.group(TonearmApi, "subsonicCredentials", (handlers) =>
  Effect.gen(function* () {
    const credentials = yield* SubsonicCredentialsService
    const caller = Effect.map(CurrentSession, (session) => session.user.id)
    return handlers
      .handle("createSubsonicPassword", () => Effect.flatMap(caller, credentials.createPassword))
      .handle("createApiKey", ({ payload }) =>
        Effect.flatMap(caller, (user) => credentials.createApiKey(user, payload.name)),
      )
      .handle("listApiKeys", () => Effect.flatMap(caller, credentials.listApiKeys))
      .handle("revokeApiKey", ({ path }) => Effect.flatMap(caller, (user) => credentials.revokeApiKey(user, path.id)))
  }),
)
