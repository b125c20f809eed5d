import { HOME_SECTION_SIZE, Home, HomeIndex, type UserId } from "@tonearm/core"
import { Clock, Effect } from "effect"
import { LibraryService } from "../library/index.js"
import { PlaysService } from "../listening/index.js"
import { RecommendationsService } from "../recommendations/index.js"

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

    const sections = Effect.fn("HomeService.sections")(function* (user: UserId) {
      const now = yield* Clock.currentTimeMillis
      const [recentlyAdded, mostPlayed, lastPlayed, albumStats, artistStats, likeAlbums, likeArtists] =
        yield* Effect.all(
          [
            library.recentlyAdded,
            plays.mostPlayedAlbums(user, HOME_SECTION_SIZE),
            plays.lastPlayedAlbums(user, HOME_SECTION_SIZE),
            plays.albumStats(user),
            plays.artistStats(user),
            recommendations.youMightLike(user, "album"),
            recommendations.youMightLike(user, "artist"),
          ],
          { concurrency: 4 },
        )
      const rediscoverAlbums = recommendations.rediscover(albumStats, now).slice(0, HOME_SECTION_SIZE)
      const rediscoverArtists = recommendations.rediscover(artistStats, now).slice(0, HOME_SECTION_SIZE)
      const shownAlbums = [...mostPlayed, ...rediscoverAlbums, ...lastPlayed]
      const albumsOnHome = yield* library.albumsByIds(shownAlbums)
      const shownArtists = [...rediscoverArtists, ...albumsOnHome.map((album) => album.artist_id)]
      const ymlAlbums = recommendations.youMightLikeHomeRow(likeAlbums, shownAlbums)
      const ymlArtists = recommendations.youMightLikeHomeRow(likeArtists, shownArtists)
      const [most, last, rediscoverA, rediscoverR, albums, artists] = yield* Effect.all(
        [
          library.albumsByIds(mostPlayed),
          library.albumsByIds(lastPlayed),
          library.albumsByIds(rediscoverAlbums),
          library.artistsByIds(rediscoverArtists),
          library.albumsByIds(ymlAlbums),
          library.artistsByIds(ymlArtists),
        ],
        { concurrency: 3 },
      )
      return new Home({
        recently_added: recentlyAdded,
        rediscover_albums: rediscoverA,
        rediscover_artists: rediscoverR,
        most_played: most,
        last_played: last,
        you_might_like_albums: albums,
        you_might_like_artists: artists,
      })
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
