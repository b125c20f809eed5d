import { type SessionUser, SubsonicErrorCode, SubsonicFailure, type SubsonicPayload } from "@tonearm/core"
import { Effect } from "effect"
import { LibraryService } from "../../library/index.js"
import { LikesService, PlaysService } from "../../listening/index.js"
import { albumChildren, albumsID3, artistsID3, clamp, indexArtistList, songs } from "../answers.js"
import { method, type ParamsOf, param, type SubsonicMethod } from "../method.js"

/** How long an unfinished play counts as "now playing". */
const NOW_PLAYING_MINUTES = 30

const albumListParams = {
  type: param.required,
  size: param.int(10),
  offset: param.int(0),
  // Read only by the types that use them, as before: byYear's years, byGenre's genre.
  fromYear: param.later(param.requiredInt),
  toYear: param.later(param.requiredInt),
  genre: param.later(param.required),
}

/** The albums of a getAlbumList(2) type, a page of `size` from `offset`. */
const albumListOf = (user: SessionUser, params: ParamsOf<typeof albumListParams>) =>
  Effect.gen(function* () {
    const library = yield* LibraryService
    const plays = yield* PlaysService
    const { type } = params
    const size = clamp(params.size, 500)
    const offset = Math.max(0, params.offset)
    const page = (sort: "title" | "artist" | "added") =>
      Effect.map(library.albums({ sort, offset, limit: Math.max(size, 1) }), (found) => found.items)
    const byIds = (ids: ReadonlyArray<string>) => library.albumsByIds(ids.slice(offset, offset + size))
    if (size === 0) return []
    switch (type) {
      case "random":
        return yield* library.randomAlbums(size)
      case "newest":
        return yield* page("added")
      case "alphabeticalByName":
        return yield* page("title")
      case "alphabeticalByArtist":
        return yield* page("artist")
      case "frequent":
        return yield* Effect.flatMap(plays.mostPlayedAlbums(user.id, offset + size), byIds)
      case "recent":
        return yield* Effect.flatMap(plays.lastPlayedAlbums(user.id, offset + size), byIds)
      // Likes are Tonearm's only rating: the highest rated albums are the starred ones.
      case "starred":
      case "highest":
        return yield* Effect.flatMap((yield* LikesService).likedIds(user.id), (liked) => byIds(liked.albums))
      case "byYear": {
        const from = yield* params.fromYear
        const to = yield* params.toYear
        return yield* library.albumsBetweenYears(from, to, offset, size)
      }
      case "byGenre": {
        const genre = yield* params.genre
        return yield* Effect.map(library.albums({ genre, offset, limit: size }), (found) => found.items)
      }
      default:
        return yield* new SubsonicFailure({
          code: SubsonicErrorCode.generic,
          message: `Unknown album list type: ${type}`,
        })
    }
  })

/** The caller's starred artists, albums and songs. */
const starredLists = (user: SessionUser) => Effect.flatMap(LikesService, (likes) => likes.list(user.id))

/** Album and song lists: by type, random, by genre, now playing, starred. */
export const listMethods: ReadonlyArray<SubsonicMethod> = [
  method("getAlbumList", albumListParams, (user, params) =>
    Effect.gen(function* () {
      const albums = yield* albumListOf(user, params)
      return { albumList: { album: yield* albumChildren(user, albums) } } satisfies SubsonicPayload
    }),
  ),

  method("getAlbumList2", albumListParams, (user, params) =>
    Effect.gen(function* () {
      const albums = yield* albumListOf(user, params)
      return { albumList2: { album: yield* albumsID3(user, albums) } } satisfies SubsonicPayload
    }),
  ),

  method(
    "getRandomSongs",
    { size: param.int(10), genre: param.optional, fromYear: param.optionalInt, toYear: param.optionalInt },
    (user, { size, genre, fromYear, toYear }) =>
      Effect.gen(function* () {
        const count = clamp(size, 500)
        const tracks = yield* (yield* LibraryService).randomTracks(
          { genre, yearFrom: fromYear, yearTo: toYear },
          Math.max(count, 1),
          user.id,
        )
        return { randomSongs: { song: yield* songs(user, tracks.slice(0, count)) } } satisfies SubsonicPayload
      }),
  ),

  method(
    "getSongsByGenre",
    { genre: param.required, count: param.int(10), offset: param.int(0) },
    (user, { genre, count, offset }) =>
      Effect.gen(function* () {
        const n = clamp(count, 500)
        const tracks = n === 0 ? [] : yield* (yield* LibraryService).tracksByGenre(genre, Math.max(0, offset), n)
        return { songsByGenre: { song: yield* songs(user, tracks) } } satisfies SubsonicPayload
      }),
  ),

  method("getNowPlaying", {}, (user) =>
    Effect.gen(function* () {
      const rows = yield* (yield* PlaysService).nowPlaying(NOW_PLAYING_MINUTES)
      const tracks = yield* (yield* LibraryService).tracksByIds([...new Set(rows.map((row) => row.track_id))])
      const entries = yield* songs(user, tracks)
      const byId = new Map(entries.map((entry) => [entry.id, entry]))
      const players = new Map<string, number>()
      return {
        nowPlaying: {
          entry: rows.flatMap((row) => {
            const song = byId.get(row.track_id)
            if (song === undefined) return []
            const player = `${row.user_id}|${row.client_id}`
            if (!players.has(player)) players.set(player, players.size + 1)
            return [
              {
                ...song,
                username: row.username,
                minutesAgo: row.minutesAgo,
                playerId: players.get(player)!,
                playerName: row.client_id,
              },
            ]
          }),
        },
      } satisfies SubsonicPayload
    }),
  ),

  method("getStarred", {}, (user) =>
    Effect.gen(function* () {
      const liked = yield* starredLists(user)
      const [artist, album, song] = yield* Effect.all(
        [indexArtistList(user, liked.artists), albumChildren(user, liked.albums), songs(user, liked.tracks)],
        { concurrency: "unbounded" },
      )
      return { starred: { artist, album, song } } satisfies SubsonicPayload
    }),
  ),

  method("getStarred2", {}, (user) =>
    Effect.gen(function* () {
      const liked = yield* starredLists(user)
      const [artist, album, song] = yield* Effect.all(
        [artistsID3(user, liked.artists), albumsID3(user, liked.albums), songs(user, liked.tracks)],
        { concurrency: "unbounded" },
      )
      return { starred2: { artist, album, song } } satisfies SubsonicPayload
    }),
  ),
]
