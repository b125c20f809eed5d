import { HOME_SECTION_SIZE, Home, HomeIndex, rankLastPlayed, rankMostPlayed, type UserId } from "@tonearm/core"
import { Clock, Effect } from "effect"
import { byId, inOrder, LibraryService } from "../library/index.js"
import { PlaysService } from "../listening/index.js"
import { RebuildService, RecommendationsService } from "../recommendations/index.js"

/**
 * The home screen. Listening sections come from the user's plays; Rediscover applies the spec's
 * eligibility and ordering to albums and artists; the You-might-like rows come from the latest snapshot,
 * de-duplicated at read time against most played, rediscover and last played, and trimmed to 10.
 */
export class HomeService extends Effect.Service<HomeService>()("@tonearm/server/HomeService", {
  effect: Effect.gen(function* () {
    const recommendations = yield* RecommendationsService
    const library = yield* LibraryService
    const plays = yield* PlaysService
    const rebuilds = yield* RebuildService

    const sections = Effect.fn("HomeService.sections")(function* (user: UserId) {
      const now = yield* Clock.currentTimeMillis
      // A listener back after the daily run skipped them as inactive is rebuilt now, in the background: the
      // page answers at once and `playlist.system_rebuilt` tells the client when the new mixes are there.
      yield* rebuilds.rebuildIfSkipped(user).pipe(
        Effect.catchAllCause((cause) => Effect.logError(`rebuild on return of user ${user} failed`, cause)),
        Effect.forkDaemon,
      )
      // Three reads, then one for every album on the page and one for every artist: each round trip costs the
      // event loop more than the rows it brings. One after another: side by side costs more under load (a fiber
      // and a pooled connection each) than the round trips it overlaps.
      const [recentlyAdded, stats, youMightLike] = yield* Effect.all([
        library.recentlyAdded,
        plays.playStats(user),
        recommendations.youMightLike(user),
      ])
      const mostPlayed = rankMostPlayed(stats.albums).slice(0, HOME_SECTION_SIZE)
      const lastPlayed = rankLastPlayed(stats.albums).slice(0, HOME_SECTION_SIZE)
      // Rediscover keeps the spec's eligibility and order, but an album already in Most played or Last played
      // (an artist of one of those albums) shows only when nothing else eligible is left (issue 28).
      const listened = [...mostPlayed, ...lastPlayed]
      const rediscoverAlbums = recommendations.rediscover(stats.albums, listened, now, HOME_SECTION_SIZE)
      const shownAlbums = [...mostPlayed, ...rediscoverAlbums, ...lastPlayed]
      const ymlAlbums = recommendations.youMightLikeHomeRow(youMightLike.albums, shownAlbums)
      const albums = byId(yield* library.albumsByIds([...new Set([...shownAlbums, ...ymlAlbums])]))
      const listenedArtists = inOrder(listened, albums).map((album) => album.artist_id)
      const rediscoverArtists = recommendations.rediscover(stats.artists, listenedArtists, now, HOME_SECTION_SIZE)
      const shownArtists = [...rediscoverArtists, ...inOrder(shownAlbums, albums).map((album) => album.artist_id)]
      const ymlArtists = recommendations.youMightLikeHomeRow(youMightLike.artists, shownArtists)
      const artists = byId(yield* library.artistsByIds([...new Set([...rediscoverArtists, ...ymlArtists])]))
      // Built from typed rows: the class need not check them again (`true`), as the detail pages do.
      return new Home(
        {
          recently_added: recentlyAdded,
          rediscover_albums: inOrder(rediscoverAlbums, albums),
          rediscover_artists: inOrder(rediscoverArtists, artists),
          most_played: inOrder(mostPlayed, albums),
          last_played: inOrder(lastPlayed, albums),
          you_might_like_albums: inOrder(ymlAlbums, albums),
          you_might_like_artists: inOrder(ymlArtists, artists),
        },
        true,
      )
    })

    const index = Effect.fn("HomeService.index")(function* (user: UserId) {
      const all = yield* sections(user)
      const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)
      return new HomeIndex({
        recently_added: ids(all.recently_added),
        rediscover_albums: ids(all.rediscover_albums),
        rediscover_artists: ids(all.rediscover_artists),
        most_played: ids(all.most_played),
        last_played: ids(all.last_played),
        you_might_like_albums: ids(all.you_might_like_albums),
        you_might_like_artists: ids(all.you_might_like_artists),
      })
    })

    return { sections, index } as const
  }),
}) {}
