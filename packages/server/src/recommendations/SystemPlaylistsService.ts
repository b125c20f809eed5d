import { isSingletonKind, MixesBuilt, NotRefreshable, PlaylistDetail, type UserId } from "@tonearm/core"
import { rotationShuffle } from "@tonearm/recommend"
import { Deferred, Effect, type Exit, FiberId } from "effect"
import { PlaylistsService } from "../playlists/index.js"
import { RebuildService } from "./RebuildService.js"

const notRefreshable = (kind: string) =>
  new NotRefreshable({ message: `${kind} is not a refreshable system playlist (for_you or discover)` })

/** The singleton system playlists' own routes: a manual refresh, and the rotation shuffle. */
export class SystemPlaylistsService extends Effect.Service<SystemPlaylistsService>()(
  "@tonearm/server/SystemPlaylistsService",
  {
    scoped: Effect.gen(function* () {
      const playlists = yield* PlaylistsService
      const rebuilds = yield* RebuildService
      const scope = yield* Effect.scope

      type Built = Effect.Effect.Success<ReturnType<typeof rebuilds.rebuild>>
      type Failed = Effect.Effect.Error<ReturnType<typeof rebuilds.rebuild>>
      /** The rebuild running for a user, which a second request joins instead of starting another. */
      const running = new Map<UserId, Deferred.Deferred<Built, Failed>>()
      /**
       * One user's rebuild now, single-flight: it runs in the service's scope, so a caller that goes away does
       * not cancel it for the others waiting on it (the engine's worker does the work, off the event loop).
       */
      const rebuildOnce = (user: UserId) =>
        Effect.suspend(() => {
          const joined = running.get(user)
          if (joined !== undefined) return Deferred.await(joined)
          const done = Deferred.unsafeMake<Built, Failed>(FiberId.none)
          running.set(user, done)
          return rebuilds.rebuild(user).pipe(
            Effect.exit,
            Effect.flatMap((exit: Exit.Exit<Built, Failed>) => Deferred.done(done, exit)),
            Effect.ensuring(Effect.sync(() => running.delete(user))),
            Effect.forkIn(scope),
            Effect.zipRight(Deferred.await(done)),
          )
        })

      /** "Make my mixes now": every system playlist of the caller, built now. */
      const build = Effect.fn("SystemPlaylistsService.build")(function* (user: UserId) {
        return new MixesBuilt(yield* rebuildOnce(user))
      })

      /** The same rebuild as the 03:00 run (every system playlist), answering the refreshed `kind`. */
      const refresh = Effect.fn("SystemPlaylistsService.refresh")(function* (user: UserId, kind: string) {
        if (!isSingletonKind(kind)) return yield* notRefreshable(kind)
        yield* rebuildOnce(user)
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

      return { build, refresh, shuffle } as const
    }),
  },
) {}
