import {
  AlbumId,
  ArtistId,
  albumChildOf,
  albumID3Of,
  IGNORED_ARTICLES,
  indexArtists,
  type SessionUser,
  SUBSONIC_MUSIC_FOLDER_ID,
  type SubsonicPayload,
  TrackId,
} from "@tonearm/core"
import { Effect } from "effect"
import { ChangeLog } from "../../changes/index.js"
import { LibrariesService, LibraryService } from "../../library/index.js"
import { PlaysService } from "../../listening/index.js"
import { RadioService, SimilarArtistsService } from "../../recommendations/index.js"
import {
  albumFactsOf,
  albumsID3,
  artistsID3,
  clamp,
  ids,
  indexArtistList,
  kindOf,
  optionalMbid,
  optionalStar,
  songs,
  songsOf,
  starredAmong,
} from "../answers.js"
import { notFound, notFoundAs, notFoundCalled } from "../failures.js"
import { method, param, type SubsonicMethod } from "../method.js"

/**
 * getIndexes/getArtists' `lastModified` (the library's last change, epoch ms) and whether the caller's
 * `ifModifiedSince` is already that recent: then the answer is an empty index, and no artist is read.
 */
const indexFreshness = (since: number | undefined) =>
  Effect.gen(function* () {
    const lastModified = yield* (yield* ChangeLog).libraryModifiedAt
    return { lastModified, unchanged: since !== undefined && since >= lastModified }
  })

/** getArtistInfo(2)'s similar artists (the recommendation domain) and the artist's MusicBrainz id. */
const similarOf = (id: string, count: number) =>
  Effect.gen(function* () {
    const similar = yield* (yield* SimilarArtistsService).similar(ArtistId.make(id))
    const artist = (yield* (yield* LibraryService).artistsByIds([id]))[0]
    return { similar: similar.slice(0, clamp(count, 100)), mbid: artist?.mbid ?? null }
  })

const artistInfoParams = { id: param.id("artist"), count: param.int(20) }

const similarSongsParams = { id: param.required, count: param.int(50) }

/** getSimilarSongs(2): a radio from the song, album or artist (the recommendation engine's radio). */
const similarSongs = (user: SessionUser, id: string, count: number, artistOnly: boolean) =>
  Effect.gen(function* () {
    const size = clamp(count, 200)
    const kind = yield* kindOf(id)
    if (kind === undefined || (artistOnly && kind !== "artist"))
      return yield* notFoundAs(artistOnly ? "Artist" : "Item")
    if (size === 0) return []
    const seed =
      kind === "track"
        ? { kind, id: TrackId.make(id) }
        : kind === "album"
          ? { kind, id: AlbumId.make(id) }
          : { kind, id: ArtistId.make(id) }
    const started = yield* notFoundCalled("Item")((yield* RadioService).start(user.id, { seed, size }))
    return yield* songs(
      user,
      started.tracks.filter((track) => track.id !== id),
    )
  })

/**
 * Browsing: folders, indexes, artists, albums, songs, directories, genres; artist and album info, similar and top
 * songs (the recommendation domain).
 */
export const browsingMethods: ReadonlyArray<SubsonicMethod> = [
  // The caller's libraries (contract "Multiple libraries"); every method's `musicFolderId` narrows to one of them.
  method("getMusicFolders", {}, (user) =>
    user === undefined
      ? Effect.succeed({ musicFolders: { musicFolder: [{ id: SUBSONIC_MUSIC_FOLDER_ID, name: "Music" }] } })
      : Effect.flatMap(LibrariesService, (libraries) => libraries.listFor(user)).pipe(
          Effect.map((list) => ({
            musicFolders: { musicFolder: list.items.map((library) => ({ id: library.id, name: library.name })) },
          })),
        ),
  ),

  method("getIndexes", { ifModifiedSince: param.optionalInt }, (user, { ifModifiedSince }) =>
    Effect.gen(function* () {
      const { lastModified, unchanged } = yield* indexFreshness(ifModifiedSince)
      const library = yield* LibraryService
      const index = unchanged
        ? []
        : yield* Effect.flatMap(library.allArtists, (artists) =>
            Effect.map(indexArtistList(user, artists), (entries) =>
              indexArtists(artists.map((artist, i) => ({ artist, entry: entries[i]! }))),
            ),
          )
      return { indexes: { lastModified, ignoredArticles: IGNORED_ARTICLES, index } } satisfies SubsonicPayload
    }),
  ),

  method("getArtists", { ifModifiedSince: param.optionalInt }, (user, { ifModifiedSince }) =>
    Effect.gen(function* () {
      const { lastModified, unchanged } = yield* indexFreshness(ifModifiedSince)
      const library = yield* LibraryService
      const index = unchanged
        ? []
        : yield* Effect.flatMap(library.allArtists, (artists) =>
            Effect.map(artistsID3(user, artists), (entries) =>
              indexArtists(artists.map((artist, i) => ({ artist, entry: entries[i]! }))),
            ),
          )
      return { artists: { lastModified, ignoredArticles: IGNORED_ARTICLES, index } } satisfies SubsonicPayload
    }),
  ),

  /**
   * An artist and the albums where they are an album artist (their `albumCount`), as Navidrome answers: the
   * protocol has no place for appears-on albums, which getMusicDirectory of the artist lists after them.
   */
  method("getArtist", { id: param.id("artist") }, (user, { id }) =>
    Effect.gen(function* () {
      const artist = yield* (yield* LibraryService).artist(ArtistId.make(id))
      const [[entry], albums] = yield* Effect.all([artistsID3(user, [artist]), albumsID3(user, artist.albums)], {
        concurrency: "unbounded",
      })
      return { artist: { ...entry!, album: albums } } satisfies SubsonicPayload
    }),
  ),

  method("getAlbum", { id: param.id("album") }, (user, { id }) =>
    Effect.gen(function* () {
      const album = yield* (yield* LibraryService).album(AlbumId.make(id))
      // The album's star and its songs' in one query.
      const starred = yield* starredAmong(user, { album: [album.id], track: ids(album.tracks) })
      const facts = yield* albumFactsOf(album.tracks, album, [album])
      const song = songsOf(album.tracks, facts, starred)
      return {
        album: {
          ...albumID3Of(
            album,
            album.genres,
            starred("album", album.id),
            facts.extras.get(album.id),
            starred.rating("album", album.id),
          ),
          song,
        },
      } satisfies SubsonicPayload
    }),
  ),

  method("getSong", { id: param.id("track") }, (user, { id }) =>
    Effect.gen(function* () {
      const tracks = yield* (yield* LibraryService).tracksByIds([id])
      if (tracks.length === 0) return yield* notFound("track")
      const [song] = yield* songs(user, tracks)
      return { song: song! } satisfies SubsonicPayload
    }),
  ),

  /** An artist's directory lists its albums (and the compilations it appears on); an album's, its songs. */
  method("getMusicDirectory", { id: param.required }, (user, { id }) =>
    Effect.gen(function* () {
      const library = yield* LibraryService
      const kind = yield* kindOf(id)
      if (kind === "artist") {
        const artist = yield* notFoundCalled("Directory")(library.artist(ArtistId.make(id)))
        const albums = [...artist.albums, ...artist.appears_on]
        const starred = yield* starredAmong(user, { artist: [id], album: ids(albums) })
        const { extras } = yield* albumFactsOf([], undefined, albums)
        const child = albums.map((album) =>
          albumChildOf(album, starred("album", album.id), extras.get(album.id), starred.rating("album", album.id)),
        )
        return {
          directory: { id, name: artist.name, ...optionalStar(starred("artist", id)), child },
        } satisfies SubsonicPayload
      }
      if (kind === "album") {
        const album = yield* notFoundCalled("Directory")(library.album(AlbumId.make(id)))
        const starred = yield* starredAmong(user, { album: [id], track: ids(album.tracks) })
        const child = songsOf(album.tracks, yield* albumFactsOf(album.tracks, album), starred)
        return {
          directory: { id, parent: album.artist_id, name: album.title, ...optionalStar(starred("album", id)), child },
        } satisfies SubsonicPayload
      }
      return yield* notFoundAs("Directory")
    }),
  ),

  method("getGenres", {}, () =>
    Effect.flatMap(LibraryService, (library) => library.genreCounts).pipe(
      Effect.map((rows) => ({
        genres: {
          genre: rows.map((row) => ({ value: row.genre, songCount: row.track_count, albumCount: row.album_count })),
        },
      })),
    ),
  ),

  method("getArtistInfo", artistInfoParams, (user, { id, count }) =>
    Effect.gen(function* () {
      const { similar, mbid } = yield* similarOf(id, count)
      return {
        artistInfo: { ...optionalMbid(mbid), similarArtist: yield* indexArtistList(user, similar) },
      } satisfies SubsonicPayload
    }),
  ),

  method("getArtistInfo2", artistInfoParams, (user, { id, count }) =>
    Effect.gen(function* () {
      const { similar, mbid } = yield* similarOf(id, count)
      return {
        artistInfo2: { ...optionalMbid(mbid), similarArtist: yield* artistsID3(user, similar) },
      } satisfies SubsonicPayload
    }),
  ),

  // getAlbumInfo(2) take an album id (or a song's: its album); both answer `albumInfo`.
  ...(["getAlbumInfo", "getAlbumInfo2"] as const).map((name) =>
    method(name, { id: param.required }, (_, { id }) =>
      Effect.gen(function* () {
        const library = yield* LibraryService
        const kind = yield* kindOf(id)
        const albumId =
          kind === "album" ? id : kind === "track" ? (yield* library.tracksByIds([id]))[0]!.album_id : undefined
        if (albumId === undefined) return yield* notFound("album")
        const album = (yield* library.albumsByIds([albumId]))[0]
        if (album === undefined) return yield* notFound("album")
        return { albumInfo: optionalMbid(album.mbid) } satisfies SubsonicPayload
      }),
    ),
  ),

  method("getSimilarSongs", similarSongsParams, (user, { id, count }) =>
    Effect.map(similarSongs(user, id, count, false), (song) => ({ similarSongs: { song } }) satisfies SubsonicPayload),
  ),

  method("getSimilarSongs2", similarSongsParams, (user, { id, count }) =>
    Effect.map(similarSongs(user, id, count, true), (song) => ({ similarSongs2: { song } }) satisfies SubsonicPayload),
  ),

  /** getTopSongs names the artist: the caller's most-played songs of the in-library artist of that name. */
  method("getTopSongs", { artist: param.required, count: param.int(50) }, (user, { artist: name, count }) =>
    Effect.gen(function* () {
      const found = yield* (yield* LibraryService).search(name, 100)
      const artist = found.artists.find((candidate) => candidate.name.toLowerCase() === name.trim().toLowerCase())
      if (artist === undefined) return { topSongs: { song: [] } } satisfies SubsonicPayload
      const top = yield* (yield* PlaysService).topTracks(user.id, artist.id)
      return {
        topSongs: { song: yield* songs(user, top.tracks.slice(0, clamp(count, 500))) },
      } satisfies SubsonicPayload
    }),
  ),
]
