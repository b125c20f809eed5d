import { HOME_SECTION_SIZE, Home, HomeIndex, type UserId } from "@tonearm/core"
import { rankRediscover, youMightLikeHomeRow } from "@tonearm/recommend"
import { Clock, Effect } from "effect"
import { LibraryService } from "../library/index.js"
import { HomeRepository } from "./HomeRepository.js"

/**
 * The home screen. Listening sections come from the user's plays; Rediscover applies the spec's
 * eligibility and ordering to albums and artists; the You-might-like rows come from the latest snapshot,
 * de-duplicated at read time against most played, rediscover and last played, and trimmed to 10.
 */
export class HomeService extends Effect.Service<HomeService>()("@tonearm/server/HomeService", {
  effect: Effect.gen(function* () {
    const home = yield* HomeRepository
    const library = yield* LibraryService

    const sections = Effect.fn("HomeService.sections")(function* (user: UserId) {
      const now = yield* Clock.currentTimeMillis
      const [recentlyAdded, mostPlayed, lastPlayed, albumStats, artistStats, likeAlbums, likeArtists] =
        yield* Effect.all(
          [
            library.recentlyAdded,
            home.mostPlayedAlbums(user, HOME_SECTION_SIZE),
            home.lastPlayedAlbums(user, HOME_SECTION_SIZE),
            home.albumStats(user),
            home.artistStats(user),
            home.youMightLike(user, "album"),
            home.youMightLike(user, "artist"),
          ],
          { concurrency: 4 },
        )
      const rediscoverAlbums = rankRediscover(albumStats, now).slice(0, HOME_SECTION_SIZE)
      const rediscoverArtists = rankRediscover(artistStats, now).slice(0, HOME_SECTION_SIZE)
      const shownAlbums = [...mostPlayed, ...rediscoverAlbums, ...lastPlayed]
      const albumsOnHome = yield* library.albumsByIds(shownAlbums)
      const shownArtists = [...rediscoverArtists, ...albumsOnHome.map((album) => album.artist_id)]
      const ymlAlbums = youMightLikeHomeRow(likeAlbums, shownAlbums)
      const ymlArtists = youMightLikeHomeRow(likeArtists, shownArtists)
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
  dependencies: [HomeRepository.Default],
}) {}
