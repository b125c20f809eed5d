import {
  type AlbumExtras,
  type AlbumRef,
  type Artist,
  albumChildOf,
  artistID3Of,
  indexArtistOf,
  type SessionUser,
  type SubsonicPayload,
} from "@tonearm/core"
import { Effect } from "effect"
import { LibraryService } from "../../library/index.js"
import { albumFactsOf, albumID3, clamp, ids, songsOf, starredAmong } from "../answers.js"
import { method, type ParamsOf, param, type SubsonicMethod } from "../method.js"

const searchParams = {
  // `query=` (empty) is a query, not an absent one: it lists everything.
  query: param.givenRequired,
  artistCount: param.int(20),
  artistOffset: param.int(0),
  albumCount: param.int(20),
  albumOffset: param.int(0),
  songCount: param.int(20),
  songOffset: param.int(0),
}
type SearchParams = ParamsOf<typeof searchParams>

const windowOf = (count: number, offset: number) => ({ count: clamp(count, 500), offset: Math.max(0, offset) })

/**
 * search2/search3: the library's search (LibraryService.searchWindows: every word matches a field, the last as a
 * prefix, ignoring case, accents and punctuation; ranked; the closest items when nothing matches), each kind paged
 * by its own offset and count. An empty query lists everything a page at a time: that is how Symfonium and others
 * sync a whole library.
 */
const searchOf = (params: SearchParams) =>
  Effect.gen(function* () {
    const library = yield* LibraryService
    const query = params.query.replace(/^"|"$/g, "").replace(/\*/g, " ").trim()
    const artistWin = windowOf(params.artistCount, params.artistOffset)
    const albumWin = windowOf(params.albumCount, params.albumOffset)
    const songWin = windowOf(params.songCount, params.songOffset)
    if (query === "") {
      const [artists, albums, tracks] = yield* Effect.all(
        [
          Effect.map(library.allArtists, (all) => all.slice(artistWin.offset, artistWin.offset + artistWin.count)),
          albumWin.count === 0
            ? Effect.succeed([])
            : Effect.map(
                library.albums({ sort: "title", offset: albumWin.offset, limit: albumWin.count }),
                (page) => page.items,
              ),
          songWin.count === 0 ? Effect.succeed([]) : library.trackPage(songWin.offset, songWin.count),
        ],
        { concurrency: "unbounded" },
      )
      return { artists, albums, tracks }
    }
    // The library's search rule, each kind's window asked as such (ranked matches, or the closest when none).
    const limits = (win: { count: number; offset: number }) => ({ offset: win.offset, limit: win.count })
    return yield* library.searchWindows(query, {
      artists: limits(artistWin),
      albums: limits(albumWin),
      tracks: limits(songWin),
    })
  })

/**
 * A search's answer: what it found, with the caller's stars on all three kinds (one query) and the songs' album
 * facts; search2 and search3 differ only in how an artist and an album are written.
 */
const searchAnswer = <Ar, Al>(
  user: SessionUser,
  params: SearchParams,
  artistOf: (artist: Artist, starred: Date | undefined, rating: number | undefined) => Ar,
  albumOf: (
    album: AlbumRef,
    starred: Date | undefined,
    extras: AlbumExtras | undefined,
    rating: number | undefined,
  ) => Al,
) =>
  Effect.gen(function* () {
    const found = yield* searchOf(params)
    // One after another: under load, side by side costs more than the round trip it overlaps.
    const starred = yield* starredAmong(user, {
      artist: ids(found.artists),
      album: ids(found.albums),
      track: ids(found.tracks),
    })
    const facts = yield* albumFactsOf(found.tracks, undefined, found.albums)
    return {
      artist: found.artists.map((artist) =>
        artistOf(artist, starred("artist", artist.id), starred.rating("artist", artist.id)),
      ),
      album: found.albums.map((album) =>
        albumOf(album, starred("album", album.id), facts.extras.get(album.id), starred.rating("album", album.id)),
      ),
      song: songsOf(found.tracks, facts, starred),
    }
  })

/** Searching: search2 (folder shapes) and search3 (ID3 shapes). */
export const searchMethods: ReadonlyArray<SubsonicMethod> = [
  method("search2", searchParams, (user, params) =>
    Effect.map(
      searchAnswer(user, params, indexArtistOf, albumChildOf),
      (searchResult2) => ({ searchResult2 }) satisfies SubsonicPayload,
    ),
  ),
  method("search3", searchParams, (user, params) =>
    Effect.map(
      searchAnswer(user, params, artistID3Of, albumID3),
      (searchResult3) => ({ searchResult3 }) satisfies SubsonicPayload,
    ),
  ),
]
