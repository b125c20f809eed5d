import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { SystemPlaylistsService } from "./SystemPlaylistsService.js"

export const SystemPlaylistsHttpLive = HttpApiBuilder.group(TonearmApi, "systemPlaylists", (handlers) =>
  Effect.gen(function* () {
    const system = yield* SystemPlaylistsService
    const me = Effect.map(CurrentSession, ({ user }) => user.id)
    return handlers
      .handle("build", () => Effect.flatMap(me, system.build))
      .handle("refresh", ({ path }) => Effect.flatMap(me, (user) => system.refresh(user, path.kind)))
      .handle("shuffle", ({ path }) => Effect.flatMap(me, (user) => system.shuffle(user, path.kind)))
  }),
)
