import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { conditionalImage } from "../http/conditionalImage.js"
import { PlaylistCover } from "./PlaylistCover.js"
import { PlaylistsService } from "./PlaylistsService.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

/** Collages follow their playlist's edits within minutes (spec). */
export const COLLAGE_CACHE_CONTROL = "max-age=300, must-revalidate"

export const PlaylistsHttpLive = HttpApiBuilder.group(TonearmApi, "playlists", (handlers) =>
  Effect.gen(function* () {
    const playlists = yield* PlaylistsService
    const covers = yield* PlaylistCover
    return handlers
      .handle("list", () => Effect.flatMap(me, playlists.list))
      .handle("create", ({ payload }) => Effect.flatMap(me, (user) => playlists.create(user, payload)))
      .handle("get", ({ path }) => Effect.flatMap(me, (user) => playlists.get(user, path.id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(me, (user) => playlists.update(user, path.id, payload)))
      .handle("delete", ({ path }) => Effect.flatMap(me, (user) => playlists.remove(user, path.id)))
      .handle("addTracks", ({ path, payload }) =>
        Effect.flatMap(me, (user) => playlists.addTracks(user, path.id, payload.track_ids, payload.position)),
      )
      .handle("removeEntries", ({ path, payload }) =>
        Effect.flatMap(me, (user) => playlists.removeEntries(user, path.id, payload.entry_ids)),
      )
      .handle("reorder", ({ path, payload }) =>
        Effect.flatMap(me, (user) => playlists.reorder(user, path.id, payload.entry_ids)),
      )
      .handle("cover", ({ path }) =>
        Effect.flatMap(me, (user) =>
          conditionalImage(COLLAGE_CACHE_CONTROL, (ifNoneMatch) => covers.collage(user, path.id, ifNoneMatch)),
        ),
      )
  }),
)
