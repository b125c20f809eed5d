import {
  type AlbumExtras,
  type AlbumFacts,
  AlbumId,
  type AlbumRef,
  type Artist,
  ArtistId,
  albumChildOf,
  albumFactsFrom,
  albumID3Of,
  artistID3Of,
  deviceClassOfClient,
  IGNORED_ARTICLES,
  indexArtistOf,
  indexArtists,
  missingParameter,
  NotFound,
  type PlaylistDetail,
  PlaylistId,
  type PlaylistRow,
  type SessionUser,
  SUBSONIC_MUSIC_FOLDER_ID,
  SubsonicErrorCode,
  SubsonicFailure,
  type SubsonicPayload,
  songOf,
  type Track,
  TrackId,
} from "@tonearm/core"
import { DateTime, Effect, Option, Schema } from "effect"
import { AccountsService } from "../accounts/index.js"
import { ChangeLog } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { LibraryService, ScanService } from "../library/index.js"
import { type LikedAt, LikesService, PlaysService } from "../listening/index.js"
import { PlaylistsService } from "../playlists/index.js"
import { PlayQueueService } from "../playqueue/index.js"
import { RadioService, SimilarArtistsService } from "../recommendations/index.js"
import type { SubsonicParams } from "./params.js"

const notFound = (what: string) =>
  new SubsonicFailure({ code: SubsonicErrorCode.notFound, message: `${what} not found` })
const notAuthorized = (message: string) => new SubsonicFailure({ code: SubsonicErrorCode.notAuthorized, message })

const isUuid = Schema.is(Schema.UUID)
/** A Subsonic id that is not one of ours can't name anything: 70, never a database error. */
const uuidOr70 = (id: string, what: string) => (isUuid(id) ? Effect.succeed(id) : Effect.fail(notFound(what)))

/** How long an unfinished play counts as "now playing". */
const NOW_PLAYING_MINUTES = 30

/** Subsonic's page-size caps (Navidrome's): lists 500, searches 500, random songs 500. */
const clamp = (n: number, max: number) => Math.max(0, Math.min(n, max))

/**
 * Every Subsonic method, mapped onto the services the JSON API uses: the library (browse, search, the genre
 * rule), likes, playlists, plays, recommendations and scans. No rule lives here, only the protocol's shapes.
 */
export class SubsonicService extends Effect.Service<SubsonicService>()("@tonearm/server/SubsonicService", {
  effect: Effect.gen(function* () {
    const library = yield* LibraryService
    const likes = yield* LikesService
    const plays = yield* PlaysService
    const playlists = yield* PlaylistsService
    const similarArtists = yield* SimilarArtistsService
    const radio = yield* RadioService
    const scans = yield* ScanService
    const accounts = yield* AccountsService
    const queues = yield* PlayQueueService
    const changes = yield* ChangeLog

    /** When the caller starred each of these ids (one query for every kind asked). */
    const starredAmong = (user: SessionUser, wanted: Parameters<typeof likes.likedAt>[1]) =>
      likes.likedAt(user.id, wanted)

    /** Items of one kind, each answered with the caller's star on it. */
    const withStars = <T extends { readonly id: string }, R>(
      user: SessionUser,
      kind: "album" | "artist",
      items: ReadonlyArray<T>,
      answer: (item: T, starred: Date | undefined) => R,
    ) =>
      Effect.map(starredAmong(user, { [kind]: items.map((item) => item.id) }), (starred) =>
        items.map((item) => answer(item, starred(kind, item.id))),
      )

    /**
     * What songs show beyond the Track (their album's year, cover and album artists; their TITLESORT) and what the
     * `listed` albums show beyond the AlbumRef (OpenSubsonic sortName, isCompilation, discTitles). `known` spares
     * the album read when the caller has it.
     */
    const albumFactsOf = (tracks: ReadonlyArray<Track>, known?: AlbumRef, listed: ReadonlyArray<AlbumRef> = []) =>
      Effect.gen(function* () {
        const albumIds = [...new Set(tracks.map((track) => track.album_id as string))]
        const albums =
          known !== undefined && albumIds.every((id) => id === known.id)
            ? [known]
            : yield* library.albumsByIds(albumIds)
        const more = yield* library.subsonicFacts(ids(tracks), ids(listed))
        return {
          albums: new Map(albums.map((album) => [album.id as string, albumFactsFrom(album)])),
          sortTitles: more.sortTitles,
          extras: more.albums,
        } satisfies SongFacts
      })

    const songsOf = (tracks: ReadonlyArray<Track>, facts: SongFacts, starred: LikedAt) =>
      tracks.map((track) =>
        songOf(track, facts.albums.get(track.album_id), starred("track", track.id), facts.sortTitles.get(track.id)),
      )

    /** Songs with their album's year and cover, and the caller's stars. */
    const songs = (user: SessionUser, tracks: ReadonlyArray<Track>, known?: AlbumRef) =>
      Effect.map(
        Effect.all([albumFactsOf(tracks, known), starredAmong(user, { track: ids(tracks) })]),
        ([facts, starred]) => songsOf(tracks, facts, starred),
      )

    const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

    const albumID3 = (album: AlbumRef, starred: Date | undefined, extras: AlbumExtras | undefined) =>
      albumID3Of(album, undefined, starred, extras)
    /** Albums as one kind of entry, each with its extras (one read) and the caller's star. */
    const albumEntries = <R>(
      user: SessionUser,
      albums: ReadonlyArray<AlbumRef>,
      answer: (album: AlbumRef, starred: Date | undefined, extras: AlbumExtras | undefined) => R,
    ) =>
      Effect.flatMap(library.subsonicFacts([], ids(albums)), (facts) =>
        withStars(user, "album", albums, (album, starred) => answer(album, starred, facts.albums.get(album.id))),
      )
    const albumsID3 = (user: SessionUser, albums: ReadonlyArray<AlbumRef>) => albumEntries(user, albums, albumID3)
    const albumChildren = (user: SessionUser, albums: ReadonlyArray<AlbumRef>) =>
      albumEntries(user, albums, albumChildOf)
    const artistsID3 = (user: SessionUser, artists: ReadonlyArray<Artist>) =>
      withStars(user, "artist", artists, artistID3Of)
    const indexArtistList = (user: SessionUser, artists: ReadonlyArray<Artist>) =>
      withStars(user, "artist", artists, indexArtistOf)

    /** Which kind of entity a bare Subsonic id names (getMusicDirectory, star, getSimilarSongs). */
    const kindOf = (id: string) =>
      Effect.gen(function* () {
        if (!isUuid(id)) return undefined
        if ((yield* library.tracksByIds([id])).length > 0) return "track" as const
        if ((yield* library.albumsByIds([id])).length > 0) return "album" as const
        if ((yield* library.artistsByIds([id])).length > 0) return "artist" as const
        return undefined
      })

    const orNotFound = <A, E, R>(effect: Effect.Effect<A, E | NotFound, R>, what: string) =>
      Effect.catchIf(
        effect,
        (error): error is NotFound => error instanceof NotFound,
        () => Effect.fail(notFound(what)),
      )

    // ---- browsing -------------------------------------------------------------------------------------

    const getMusicFolders = () =>
      Effect.succeed<SubsonicPayload>({
        musicFolders: { musicFolder: [{ id: SUBSONIC_MUSIC_FOLDER_ID, name: "Music" }] },
      })

    /**
     * getIndexes/getArtists' `lastModified` (the library's last change, epoch ms) and whether the caller's
     * `ifModifiedSince` is already that recent: then the answer is an empty index, and no artist is read.
     */
    const indexFreshness = (params: SubsonicParams) =>
      Effect.gen(function* () {
        const since = yield* params.int("ifModifiedSince")
        const lastModified = yield* changes.libraryModifiedAt
        return { lastModified, unchanged: since !== undefined && since >= lastModified }
      })

    const getIndexes = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const { lastModified, unchanged } = yield* indexFreshness(params)
        const index = unchanged
          ? []
          : yield* Effect.flatMap(library.allArtists, (artists) =>
              Effect.map(indexArtistList(user, artists), (entries) =>
                indexArtists(artists.map((artist, i) => ({ artist, entry: entries[i]! }))),
              ),
            )
        return { indexes: { lastModified, ignoredArticles: IGNORED_ARTICLES, index } } satisfies SubsonicPayload
      })

    const getArtists = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const { lastModified, unchanged } = yield* indexFreshness(params)
        const index = unchanged
          ? []
          : yield* Effect.flatMap(library.allArtists, (artists) =>
              Effect.map(artistsID3(user, artists), (entries) =>
                indexArtists(artists.map((artist, i) => ({ artist, entry: entries[i]! }))),
              ),
            )
        return { artists: { lastModified, ignoredArticles: IGNORED_ARTICLES, index } } satisfies SubsonicPayload
      })

    /**
     * An artist and the albums where they are an album artist (their `albumCount`), as Navidrome answers: the
     * protocol has no place for appears-on albums, which getMusicDirectory of the artist lists after them.
     */
    const getArtist = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const id = yield* Effect.flatMap(params.required("id"), (raw) => uuidOr70(raw, "Artist"))
        const artist = yield* orNotFound(library.artist(ArtistId.make(id)), "Artist")
        const [[entry], albums] = yield* Effect.all([artistsID3(user, [artist]), albumsID3(user, artist.albums)], {
          concurrency: "unbounded",
        })
        return { artist: { ...entry!, album: albums } } satisfies SubsonicPayload
      })

    const getAlbum = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const id = yield* Effect.flatMap(params.required("id"), (raw) => uuidOr70(raw, "Album"))
        const album = yield* orNotFound(library.album(AlbumId.make(id)), "Album")
        // The album's star and its songs' in one query.
        const starred = yield* starredAmong(user, { album: [album.id], track: ids(album.tracks) })
        const facts = yield* albumFactsOf(album.tracks, album, [album])
        const song = songsOf(album.tracks, facts, starred)
        return {
          album: { ...albumID3Of(album, album.genres, starred("album", album.id), facts.extras.get(album.id)), song },
        } satisfies SubsonicPayload
      })

    const getSong = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const id = yield* Effect.flatMap(params.required("id"), (raw) => uuidOr70(raw, "Song"))
        const tracks = yield* library.tracksByIds([id])
        if (tracks.length === 0) return yield* notFound("Song")
        const [song] = yield* songs(user, tracks)
        return { song: song! } satisfies SubsonicPayload
      })

    /** An artist's directory lists its albums (and the compilations it appears on); an album's, its songs. */
    const getMusicDirectory = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const id = yield* params.required("id")
        const kind = yield* kindOf(id)
        if (kind === "artist") {
          const artist = yield* orNotFound(library.artist(ArtistId.make(id)), "Directory")
          const albums = [...artist.albums, ...artist.appears_on]
          const starred = yield* starredAmong(user, { artist: [id], album: ids(albums) })
          const { extras } = yield* albumFactsOf([], undefined, albums)
          const child = albums.map((album) => albumChildOf(album, starred("album", album.id), extras.get(album.id)))
          return {
            directory: { id, name: artist.name, ...optionalStar(starred("artist", id)), child },
          } satisfies SubsonicPayload
        }
        if (kind === "album") {
          const album = yield* orNotFound(library.album(AlbumId.make(id)), "Directory")
          const starred = yield* starredAmong(user, { album: [id], track: ids(album.tracks) })
          const child = songsOf(album.tracks, yield* albumFactsOf(album.tracks, album), starred)
          return {
            directory: { id, parent: album.artist_id, name: album.title, ...optionalStar(starred("album", id)), child },
          } satisfies SubsonicPayload
        }
        return yield* notFound("Directory")
      })

    const getGenres = () =>
      Effect.map(library.genreCounts, (rows) => ({
        genres: {
          genre: rows.map((row) => ({ value: row.genre, songCount: row.track_count, albumCount: row.album_count })),
        },
      }))

    // ---- artist and album info (recommendation domain) -------------------------------------------------

    const similarOf = (params: SubsonicParams) =>
      Effect.gen(function* () {
        const id = yield* Effect.flatMap(params.required("id"), (raw) => uuidOr70(raw, "Artist"))
        const count = clamp(yield* params.int("count", 20), 100)
        const similar = yield* orNotFound(similarArtists.similar(ArtistId.make(id)), "Artist")
        const artist = (yield* library.artistsByIds([id]))[0]
        return { similar: similar.slice(0, count), mbid: artist?.mbid ?? null }
      })

    const getArtistInfo = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const { similar, mbid } = yield* similarOf(params)
        return {
          artistInfo: { ...optionalMbid(mbid), similarArtist: yield* indexArtistList(user, similar) },
        } satisfies SubsonicPayload
      })

    const getArtistInfo2 = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const { similar, mbid } = yield* similarOf(params)
        return {
          artistInfo2: { ...optionalMbid(mbid), similarArtist: yield* artistsID3(user, similar) },
        } satisfies SubsonicPayload
      })

    /** getAlbumInfo takes an album id (or a song's: its album). */
    const getAlbumInfo = (params: SubsonicParams) =>
      Effect.gen(function* () {
        const id = yield* params.required("id")
        const kind = yield* kindOf(id)
        const albumId =
          kind === "album" ? id : kind === "track" ? (yield* library.tracksByIds([id]))[0]!.album_id : undefined
        if (albumId === undefined) return yield* notFound("Album")
        const album = (yield* library.albumsByIds([albumId]))[0]
        if (album === undefined) return yield* notFound("Album")
        return { albumInfo: optionalMbid(album.mbid) } satisfies SubsonicPayload
      })

    // ---- lists -----------------------------------------------------------------------------------------

    /** The albums of a getAlbumList(2) type, a page of `size` from `offset`. */
    const albumListOf = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const type = yield* params.required("type")
        const size = clamp(yield* params.int("size", 10), 500)
        const offset = Math.max(0, yield* params.int("offset", 0))
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
            return yield* Effect.flatMap(likes.likedIds(user.id), (liked) => byIds(liked.albums))
          case "byYear": {
            const from = yield* params.requiredInt("fromYear")
            const to = yield* params.requiredInt("toYear")
            return yield* library.albumsBetweenYears(from, to, offset, size)
          }
          case "byGenre": {
            const genre = yield* params.required("genre")
            return yield* Effect.map(library.albums({ genre, offset, limit: size }), (found) => found.items)
          }
          default:
            return yield* new SubsonicFailure({
              code: SubsonicErrorCode.generic,
              message: `Unknown album list type: ${type}`,
            })
        }
      })

    const getAlbumList = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const albums = yield* albumListOf(user, params)
        return { albumList: { album: yield* albumChildren(user, albums) } } satisfies SubsonicPayload
      })

    const getAlbumList2 = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const albums = yield* albumListOf(user, params)
        return { albumList2: { album: yield* albumsID3(user, albums) } } satisfies SubsonicPayload
      })

    const getRandomSongs = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const size = clamp(yield* params.int("size", 10), 500)
        const tracks = yield* library.randomTracks(
          { genre: params.get("genre"), yearFrom: yield* params.int("fromYear"), yearTo: yield* params.int("toYear") },
          Math.max(size, 1),
          user.id,
        )
        return { randomSongs: { song: yield* songs(user, tracks.slice(0, size)) } } satisfies SubsonicPayload
      })

    const getSongsByGenre = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const genre = yield* params.required("genre")
        const count = clamp(yield* params.int("count", 10), 500)
        const offset = Math.max(0, yield* params.int("offset", 0))
        const tracks = count === 0 ? [] : yield* library.tracksByGenre(genre, offset, count)
        return { songsByGenre: { song: yield* songs(user, tracks) } } satisfies SubsonicPayload
      })

    // ---- search ----------------------------------------------------------------------------------------

    /**
     * search2/search3: the library's search (LibraryService.searchWindows: every word matches a field, the last as a
     * prefix, ignoring case, accents and punctuation; ranked; the closest items when nothing matches), each kind paged
     * by its own offset and count. An empty query lists everything a page at a time: that is how Symfonium and others
     * sync a whole library.
     */
    const searchOf = (params: SubsonicParams) =>
      Effect.gen(function* () {
        // `query=` (empty) is a query, not an absent one: it lists everything.
        const raw = params.given("query")
        if (raw === undefined) return yield* Effect.fail(missingParameter("query"))
        const query = raw.replace(/^"|"$/g, "").replace(/\*/g, " ").trim()
        const window = (name: string) =>
          Effect.all({ count: params.int(`${name}Count`, 20), offset: params.int(`${name}Offset`, 0) }).pipe(
            Effect.map(({ count, offset }) => ({ count: clamp(count, 500), offset: Math.max(0, offset) })),
          )
        const [artistWin, albumWin, songWin] = yield* Effect.all([window("artist"), window("album"), window("song")])
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
        const windowOf = (win: { count: number; offset: number }) => ({ offset: win.offset, limit: win.count })
        return yield* library.searchWindows(query, {
          artists: windowOf(artistWin),
          albums: windowOf(albumWin),
          tracks: windowOf(songWin),
        })
      })

    /**
     * A search's answer: what it found, with the caller's stars on all three kinds (one query) and the songs' album
     * facts; search2 and search3 differ only in how an artist and an album are written.
     */
    const searchAnswer = <Ar, Al>(
      user: SessionUser,
      params: SubsonicParams,
      artistOf: (artist: Artist, starred: Date | undefined) => Ar,
      albumOf: (album: AlbumRef, starred: Date | undefined, extras: AlbumExtras | undefined) => Al,
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
          artist: found.artists.map((artist) => artistOf(artist, starred("artist", artist.id))),
          album: found.albums.map((album) => albumOf(album, starred("album", album.id), facts.extras.get(album.id))),
          song: songsOf(found.tracks, facts, starred),
        }
      })

    const search2 = (user: SessionUser, params: SubsonicParams) =>
      Effect.map(
        searchAnswer(user, params, indexArtistOf, albumChildOf),
        (searchResult2) => ({ searchResult2 }) satisfies SubsonicPayload,
      )

    const search3 = (user: SessionUser, params: SubsonicParams) =>
      Effect.map(
        searchAnswer(user, params, artistID3Of, albumID3),
        (searchResult3) => ({ searchResult3 }) satisfies SubsonicPayload,
      )

    // ---- playlists -------------------------------------------------------------------------------------

    const playlistOf = (user: SessionUser, row: PlaylistRow | PlaylistDetail) => ({
      id: row.id,
      name: row.name,
      ...("description" in row && row.description !== null ? { comment: row.description } : {}),
      owner: user.username,
      public: false,
      songCount: row.track_count,
      duration: Math.round(row.duration_ms / 1000),
      created: DateTime.formatIso(row.updated_at),
      changed: DateTime.formatIso(row.updated_at),
      coverArt: `pl-${row.id}`,
      // System playlists are rebuilt by the server: apps must not offer to edit them.
      readonly: row.system_variant !== null,
    })

    /** Another user's playlist does not exist for the caller (70), exactly as in the JSON API. */
    const playlistDetail = (user: SessionUser, id: string) =>
      Effect.flatMap(uuidOr70(id, "Playlist"), (uuid) =>
        orNotFound(playlists.get(user.id, PlaylistId.make(uuid)), "Playlist"),
      )

    /** A system playlist can't be edited: Subsonic's "not authorized" (50); an unknown id is 70. */
    const editing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.mapError((error) => {
          const tag = (error as { _tag?: string })._tag
          if (tag === "Conflict")
            return notAuthorized("System playlists are rebuilt by the server and cannot be edited")
          if (tag === "NotFound") {
            return notFound((error as { message: string }).message.includes("track") ? "Song" : "Playlist")
          }
          return error
        }),
      )

    const getPlaylists = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const username = params.get("username")
        if (username !== undefined && username !== user.username) {
          return yield* notAuthorized("Only your own playlists are listed")
        }
        const rows = yield* playlists.list(user.id)
        // A withheld mix (locked) has no songs to offer a Subsonic app.
        const listed = rows.filter((row) => !row.locked)
        return { playlists: { playlist: listed.map((row) => playlistOf(user, row)) } } satisfies SubsonicPayload
      })

    const playlistPayload = (user: SessionUser, detail: PlaylistDetail) =>
      Effect.map(
        songs(
          user,
          detail.tracks.map((entry) => entry.track),
        ),
        (entry) => ({
          playlist: { ...playlistOf(user, detail), entry },
        }),
      )

    const getPlaylist = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const detail = yield* playlistDetail(user, yield* params.required("id"))
        return yield* playlistPayload(user, detail)
      })

    const songIds = (params: SubsonicParams) =>
      Effect.forEach(params.all("songId"), (id) => Effect.map(uuidOr70(id, "Song"), (uuid) => TrackId.make(uuid)))

    /** createPlaylist with `name` makes one; with `playlistId` it replaces that playlist's songs (the protocol's update). */
    const createPlaylist = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const playlistId = params.get("playlistId")
        const trackIds = yield* songIds(params)
        if (playlistId === undefined) {
          const name = yield* params.required("name")
          const created = yield* editing(playlists.create(user.id, { name, track_ids: trackIds }))
          return yield* playlistPayload(user, created)
        }
        const existing = yield* playlistDetail(user, playlistId)
        const name = params.get("name")
        if (name !== undefined && name.trim() !== "") {
          yield* editing(playlists.update(user.id, existing.id, { name }))
        }
        if (existing.tracks.length > 0) {
          yield* editing(
            playlists.removeEntries(
              user.id,
              existing.id,
              existing.tracks.map((entry) => entry.entry_id),
            ),
          )
        } else if (existing.system_variant !== null) {
          return yield* notAuthorized("System playlists are rebuilt by the server and cannot be edited")
        }
        if (trackIds.length > 0) yield* editing(playlists.addTracks(user.id, existing.id, trackIds, undefined))
        return yield* playlistPayload(user, yield* playlistDetail(user, existing.id))
      })

    const updatePlaylist = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const id = yield* params.required("playlistId")
        const existing = yield* playlistDetail(user, id)
        if (existing.system_variant !== null) {
          return yield* notAuthorized("System playlists are rebuilt by the server and cannot be edited")
        }
        const name = params.get("name")
        // `comment=` (empty) clears the comment.
        const comment = params.given("comment")
        if ((name !== undefined && name.trim() !== "") || comment !== undefined) {
          yield* editing(
            playlists.update(user.id, existing.id, {
              ...(name !== undefined && name.trim() !== "" ? { name } : {}),
              ...(comment !== undefined ? { description: comment === "" ? null : comment } : {}),
            }),
          )
        }
        const removeAt = new Set<number>()
        for (const raw of params.all("songIndexToRemove")) {
          const index = Number(raw)
          if (!Number.isSafeInteger(index) || index < 0 || index >= existing.tracks.length) {
            return yield* new SubsonicFailure({
              code: SubsonicErrorCode.generic,
              message: `songIndexToRemove ${raw} is not a position in the playlist`,
            })
          }
          removeAt.add(index)
        }
        if (removeAt.size > 0) {
          const entryIds = existing.tracks.filter((_, index) => removeAt.has(index)).map((entry) => entry.entry_id)
          yield* editing(playlists.removeEntries(user.id, existing.id, entryIds))
        }
        const add = yield* Effect.forEach(params.all("songIdToAdd"), (raw) =>
          Effect.map(uuidOr70(raw, "Song"), (uuid) => TrackId.make(uuid)),
        )
        if (add.length > 0) yield* editing(playlists.addTracks(user.id, existing.id, add, undefined))
        return {} satisfies SubsonicPayload
      })

    const deletePlaylist = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const existing = yield* playlistDetail(user, yield* params.required("id"))
        yield* editing(playlists.remove(user.id, existing.id))
        return {} satisfies SubsonicPayload
      })

    // ---- likes -----------------------------------------------------------------------------------------

    /** star/unstar: `id` (a song, or an album or artist for older apps), `albumId`, `artistId`; each repeatable. */
    const starTargets = (params: SubsonicParams) =>
      Effect.gen(function* () {
        const targets: Array<{ entity: "track" | "album" | "artist"; id: string }> = []
        for (const id of params.all("id")) {
          const kind = yield* kindOf(id)
          if (kind === undefined) return yield* notFound("Item")
          targets.push({ entity: kind, id })
        }
        for (const id of params.all("albumId")) targets.push({ entity: "album", id: yield* uuidOr70(id, "Album") })
        for (const id of params.all("artistId")) targets.push({ entity: "artist", id: yield* uuidOr70(id, "Artist") })
        if (targets.length === 0) return yield* Effect.fail(missingParameter("id"))
        return targets
      })

    const star = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        for (const target of yield* starTargets(params)) {
          yield* orNotFound(
            likes.like(user.id, target.entity, target.id),
            target.entity === "track" ? "Song" : target.entity,
          )
        }
        return {} satisfies SubsonicPayload
      })

    const unstar = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        for (const target of yield* starTargets(params)) yield* likes.unlike(user.id, target.entity, target.id)
        return {} satisfies SubsonicPayload
      })

    const starredLists = (user: SessionUser) =>
      Effect.gen(function* () {
        const liked = yield* likes.list(user.id)
        return liked
      })

    const getStarred = (user: SessionUser) =>
      Effect.gen(function* () {
        const liked = yield* starredLists(user)
        const [artist, album, song] = yield* Effect.all(
          [indexArtistList(user, liked.artists), albumChildren(user, liked.albums), songs(user, liked.tracks)],
          { concurrency: "unbounded" },
        )
        return { starred: { artist, album, song } } satisfies SubsonicPayload
      })

    const getStarred2 = (user: SessionUser) =>
      Effect.gen(function* () {
        const liked = yield* starredLists(user)
        const [artist, album, song] = yield* Effect.all(
          [artistsID3(user, liked.artists), albumsID3(user, liked.albums), songs(user, liked.tracks)],
          { concurrency: "unbounded" },
        )
        return { starred2: { artist, album, song } } satisfies SubsonicPayload
      })

    // ---- plays -----------------------------------------------------------------------------------------

    /**
     * scrobble: `submission=false` reports a play starting (play_started); `true` (the default) a completed
     * play. The device class comes from the client name `c`; the client id is `c` too. Subsonic tells no
     * play source, so the play has none (the metrics baseline).
     */
    const scrobble = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        // `time` pairs with `id` by position, so both are read with their empty values.
        const ids = params.allGiven("id")
        if (ids.every((id) => id === "")) return yield* Effect.fail(missingParameter("id"))
        const times = params.allGiven("time")
        const submission = params.bool("submission", true)
        const client = params.get("c")?.trim() || "subsonic"
        const device_class = deviceClassOfClient(params.get("c"))
        for (const [index, raw] of ids.entries()) {
          if (raw === "") continue
          const track_id = TrackId.make(yield* uuidOr70(raw, "Song"))
          const event = { track_id, client_id: client.slice(0, 200), source: null, device_class }
          if (!submission) {
            yield* orNotFound(plays.report(user.id, { type: "play_started", ...event }), "Song")
            continue
          }
          const time = Number(times[index])
          const at =
            times[index] !== undefined && times[index] !== "" && Number.isFinite(time)
              ? DateTime.unsafeMake(time)
              : DateTime.unsafeMake(yield* currentDate)
          yield* orNotFound(plays.completed(user.id, { ...event, at }), "Song")
        }
        return {} satisfies SubsonicPayload
      })

    const getNowPlaying = (user: SessionUser) =>
      Effect.gen(function* () {
        const rows = yield* plays.nowPlaying(NOW_PLAYING_MINUTES)
        const tracks = yield* library.tracksByIds([...new Set(rows.map((row) => row.track_id))])
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
      })

    // ---- recommendations -------------------------------------------------------------------------------

    /** getSimilarSongs: a radio from the song, album or artist (the recommendation engine's radio). */
    const similarSongs = (user: SessionUser, params: SubsonicParams, artistOnly: boolean) =>
      Effect.gen(function* () {
        const id = yield* params.required("id")
        const count = clamp(yield* params.int("count", 50), 200)
        const kind = yield* kindOf(id)
        if (kind === undefined || (artistOnly && kind !== "artist"))
          return yield* notFound(artistOnly ? "Artist" : "Item")
        if (count === 0) return []
        const seed =
          kind === "track"
            ? { kind, id: TrackId.make(id) }
            : kind === "album"
              ? { kind, id: AlbumId.make(id) }
              : { kind, id: ArtistId.make(id) }
        const started = yield* orNotFound(radio.start(user.id, { seed, size: count }), "Item")
        return yield* songs(
          user,
          started.tracks.filter((track) => track.id !== id),
        )
      })

    const getSimilarSongs = (user: SessionUser, params: SubsonicParams) =>
      Effect.map(similarSongs(user, params, false), (song) => ({ similarSongs: { song } }) satisfies SubsonicPayload)
    const getSimilarSongs2 = (user: SessionUser, params: SubsonicParams) =>
      Effect.map(similarSongs(user, params, true), (song) => ({ similarSongs2: { song } }) satisfies SubsonicPayload)

    /** getTopSongs names the artist: the caller's most-played songs of the in-library artist of that name. */
    const getTopSongs = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const name = yield* params.required("artist")
        const count = clamp(yield* params.int("count", 50), 500)
        const found = yield* library.search(name, 100)
        const artist = found.artists.find((candidate) => candidate.name.toLowerCase() === name.trim().toLowerCase())
        if (artist === undefined) return { topSongs: { song: [] } } satisfies SubsonicPayload
        const top = yield* orNotFound(plays.topTracks(user.id, artist.id), "Artist")
        return { topSongs: { song: yield* songs(user, top.tracks.slice(0, count)) } } satisfies SubsonicPayload
      })

    // ---- play queue, user, scans -----------------------------------------------------------------------

    const getPlayQueue = (user: SessionUser) =>
      Effect.gen(function* () {
        const found = yield* queues.stored(user.id)
        if (Option.isNone(found)) return {} satisfies SubsonicPayload
        const queue = found.value
        const entry = yield* songs(user, yield* library.tracksByIds(queue.track_ids))
        return {
          playQueue: {
            ...(queue.current_id === null ? {} : { current: queue.current_id }),
            position: queue.position_ms,
            username: user.username,
            changed: DateTime.formatIso(queue.changed_at),
            changedBy: queue.changed_by,
            entry,
          },
        } satisfies SubsonicPayload
      })

    /** savePlayQueue without ids clears the queue (OpenSubsonic). Unknown songs are 70, like elsewhere. */
    const savePlayQueue = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const ids = yield* Effect.forEach(params.all("id"), (raw) => uuidOr70(raw, "Song"))
        if (ids.length === 0) {
          yield* queues.clear(user.id)
          return {} satisfies SubsonicPayload
        }
        const known = new Set((yield* library.tracksByIds(ids)).map((track) => track.id as string))
        if (ids.some((id) => !known.has(id))) return yield* notFound("Song")
        const current = params.get("current")
        if (current !== undefined && !ids.includes(current)) return yield* notFound("Current song")
        yield* queues.store(user.id, {
          trackIds: ids,
          currentId: current ?? null,
          // Subsonic names the current song only: its first entry (the web player stores the exact entry).
          currentIndex: current === undefined ? null : ids.indexOf(current),
          positionMs: Math.max(0, yield* params.int("position", 0)),
          source: null,
          changedBy: (params.get("c") ?? "subsonic").slice(0, 200),
        })
        return {} satisfies SubsonicPayload
      })

    /** A user may read their own record; an admin anyone's. Roles follow what Tonearm lets each do. */
    const getUser = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const username = yield* params.required("username")
        if (username !== user.username && !user.isAdmin) return yield* notAuthorized("Only admins can read other users")
        const target = username === user.username ? Option.some(user) : yield* accounts.userByName(username)
        if (Option.isNone(target)) return yield* notFound("User")
        const me = yield* accounts.me(target.value.id).pipe(Effect.catchTag("Unauthenticated", () => notFound("User")))
        const admin = target.value.isAdmin
        return {
          user: {
            username: me.username,
            ...(me.email === null ? {} : { email: me.email }),
            scrobblingEnabled: true,
            adminRole: admin,
            settingsRole: true,
            downloadRole: true,
            uploadRole: false,
            playlistRole: true,
            coverArtRole: false,
            commentRole: false,
            podcastRole: false,
            streamRole: true,
            jukeboxRole: false,
            shareRole: false,
            videoConversionRole: false,
            folder: [SUBSONIC_MUSIC_FOLDER_ID],
          },
        } satisfies SubsonicPayload
      })

    const scanStatus = Effect.map(scans.status, (status) => ({
      scanStatus: { scanning: status.state === "running", count: status.files_seen },
    }))

    const startScan = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        if (!user.isAdmin) return yield* notAuthorized("Only admins can start a scan")
        yield* scans.start(params.bool("fullScan", false))
        return yield* scanStatus
      })

    return {
      getMusicFolders,
      getIndexes,
      getArtists,
      getArtist,
      getAlbum,
      getSong,
      getMusicDirectory,
      getGenres,
      getArtistInfo,
      getArtistInfo2,
      getAlbumInfo,
      getAlbumList,
      getAlbumList2,
      getRandomSongs,
      getSongsByGenre,
      search2,
      search3,
      getPlaylists,
      getPlaylist,
      createPlaylist,
      updatePlaylist,
      deletePlaylist,
      star,
      unstar,
      getStarred,
      getStarred2,
      scrobble,
      getNowPlaying,
      getSimilarSongs,
      getSimilarSongs2,
      getTopSongs,
      getPlayQueue,
      savePlayQueue,
      getUser,
      getScanStatus: () => scanStatus,
      startScan,
    } as const
  }),
  dependencies: [PlayQueueService.Default],
}) {}

/** What songs show beyond the Track, and listed albums beyond the AlbumRef (`albumFactsOf`). */
interface SongFacts {
  /** Per album id: the year, cover and album artists of the songs' albums. */
  readonly albums: ReadonlyMap<string, AlbumFacts>
  /** Per track id: its TITLESORT, for the songs that have one. */
  readonly sortTitles: ReadonlyMap<string, string>
  /** Per album id: the listed albums' sort name, compilation flag and disc titles. */
  readonly extras: ReadonlyMap<string, AlbumExtras>
}

const optionalStar = (at: Date | undefined) => (at === undefined ? {} : { starred: at.toISOString() })
const optionalMbid = (mbid: string | null) => (mbid === null ? {} : { musicBrainzId: mbid })
