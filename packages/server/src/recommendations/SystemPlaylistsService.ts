import { isSingletonKind, NotRefreshable, PlaylistDetail, type UserId } from "@tonearm/core"
import { rotationShuffle } from "@tonearm/recommend"
import { Effect } from "effect"
import { PlaylistsService } from "../playlists/index.js"
import { RebuildService } from "./RebuildService.js"

const notRefreshable = (kind: string) =>
  new NotRefreshable({ message: `${kind} is not a refreshable system playlist (for_you or discover)` })

/** The singleton system playlists' own routes: a manual refresh, and the rotation shuffle. */
export class SystemPlaylistsService extends Effect.Service<SystemPlaylistsService>()(
  "@tonearm/server/SystemPlaylistsService",
  {
    effect: Effect.gen(function* () {
      const playlists = yield* PlaylistsService
      const rebuilds = yield* RebuildService

      /** The same rebuild as the 03:00 run (every system playlist), answering the refreshed `kind`. */
      const refresh = Effect.fn("SystemPlaylistsService.refresh")(function* (user: UserId, kind: string) {
        if (!isSingletonKind(kind)) return yield* notRefreshable(kind)
        yield* rebuilds.rebuild(user)
        return yield* playlists.detail(yield* playlists.systemPlaylist(user, kind))
      })

      /**
       * A singleton system playlist in rotation order: unheard this rotation (shuffled), then heard
       * (shuffled); when every track was heard, the rotation state resets and the whole list is reshuffled.
       * An absent or empty snapshot answers an empty list.
       */
      const shuffle = Effect.fn("SystemPlaylistsService.shuffle")(function* (user: UserId, kind: string) {
        if (!isSingletonKind(kind)) return yield* notRefreshable(kind)
        const playlist = yield* playlists.systemPlaylist(user, kind)
        const detail = yield* playlists.detail(playlist)
        const heard = yield* playlists.rotationState(user, kind)
        const { tracks, reset } = yield* rotationShuffle(
          detail.tracks.map((entry) => ({ entry, track_id: entry.track.id })),
          heard,
        )
        if (reset) yield* playlists.resetRotation(user, kind)
        return new PlaylistDetail({ ...detail, tracks: tracks.map(({ entry }) => entry) })
      })

      return { refresh, shuffle } as const
    }),
  },
) {}
