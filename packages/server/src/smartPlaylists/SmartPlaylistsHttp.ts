import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { SmartPlaylistsService } from "./SmartPlaylistsService.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

export const SmartPlaylistsHttpLive = HttpApiBuilder.group(TonearmApi, "smartPlaylists", (handlers) =>
  Effect.gen(function* () {
    const smart = yield* SmartPlaylistsService
    return handlers
      .handle("list", () => Effect.flatMap(me, smart.list))
      .handle("create", ({ payload }) => Effect.flatMap(me, (user) => smart.create(user, payload)))
      .handle("preview", ({ payload }) => Effect.flatMap(me, (user) => smart.preview(user, payload.rules)))
      .handle("get", ({ path }) => Effect.flatMap(me, (user) => smart.get(user, path.id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(me, (user) => smart.update(user, path.id, payload)))
      .handle("refresh", ({ path }) => Effect.flatMap(me, (user) => smart.refresh(user, path.id)))
  }),
)
