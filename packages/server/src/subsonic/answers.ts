import {
  type AlbumExtras,
  type AlbumFacts,
  type AlbumRef,
  type Artist,
  albumChildOf,
  albumFactsFrom,
  albumID3Of,
  artistID3Of,
  indexArtistOf,
  type SessionUser,
  songOf,
  type Track,
} from "@tonearm/core"
import { Effect, Schema } from "effect"
import { LibraryService } from "../library/index.js"
import { type LikedAt, RatingsService } from "../listening/index.js"

/**
 * What several areas answer with: songs, albums and artists in the protocol's shapes, each with the caller's star.
 * No rule lives here, only the protocol's shapes over the services the JSON API uses.
 */

export const isUuid = Schema.is(Schema.UUID)

/** Subsonic's page-size caps (Navidrome's): lists 500, searches 500, random songs 500. */
export const clamp = (n: number, max: number) => Math.max(0, Math.min(n, max))

export const ids = (items: ReadonlyArray<{ readonly id: string }>) => items.map((item) => item.id)

export const optionalStar = (at: Date | undefined) => (at === undefined ? {} : { starred: at.toISOString() })
export const optionalMbid = (mbid: string | null) => (mbid === null ? {} : { musicBrainzId: mbid })

/** What songs show beyond the Track, and listed albums beyond the AlbumRef (`albumFactsOf`). */
export interface SongFacts {
  /** Per album id: the year, cover and album artists of the songs' albums. */
  readonly albums: ReadonlyMap<string, AlbumFacts>
  /** Per track id: its TITLESORT, for the songs that have one. */
  readonly sortTitles: ReadonlyMap<string, string>
  /** Per album id: the listed albums' sort name, compilation flag and disc titles. */
  readonly extras: ReadonlyMap<string, AlbumExtras>
}

/**
 * The caller's marks on these ids, every kind asked at once: called with a kind and id, when they starred it;
 * `.rating(kind, id)`, their rating (Subsonic `userRating`).
 */
export type Marks = LikedAt & {
  readonly rating: (entity: "track" | "album" | "artist", id: string) => number | undefined
}

/** When the caller starred each of these ids, and their ratings (one query each for every kind asked). */
export const starredAmong = (user: SessionUser, wanted: Parameters<RatingsService["annotations"]>[1]) =>
  Effect.map(
    Effect.flatMap(RatingsService, (ratings) => ratings.annotations(user.id, wanted)),
    (marks): Marks =>
      Object.assign((entity: Parameters<LikedAt>[0], id: string) => marks.starred(entity, id), {
        rating: marks.rating,
      }),
  )

/** Items of one kind, each answered with the caller's star on it. */
const withStars = <T extends { readonly id: string }, R>(
  user: SessionUser,
  kind: "album" | "artist",
  items: ReadonlyArray<T>,
  answer: (item: T, starred: Date | undefined, rating: number | undefined) => R,
) =>
  Effect.map(starredAmong(user, { [kind]: items.map((item) => item.id) }), (starred) =>
    items.map((item) => answer(item, starred(kind, item.id), starred.rating(kind, item.id))),
  )

/**
 * What songs show beyond the Track (their album's year, cover and album artists; their TITLESORT) and what the
 * `listed` albums show beyond the AlbumRef (OpenSubsonic sortName, isCompilation, discTitles). `known` spares
 * the album read when the caller has it.
 */
export const albumFactsOf = (tracks: ReadonlyArray<Track>, known?: AlbumRef, listed: ReadonlyArray<AlbumRef> = []) =>
  Effect.gen(function* () {
    const library = yield* LibraryService
    const albumIds = [...new Set(tracks.map((track) => track.album_id as string))]
    const albums =
      known !== undefined && albumIds.every((id) => id === known.id) ? [known] : yield* library.albumsByIds(albumIds)
    const more = yield* library.subsonicFacts(ids(tracks), ids(listed))
    return {
      albums: new Map(albums.map((album) => [album.id as string, albumFactsFrom(album)])),
      sortTitles: more.sortTitles,
      extras: more.albums,
    } satisfies SongFacts
  })

export const songsOf = (tracks: ReadonlyArray<Track>, facts: SongFacts, starred: Marks) =>
  tracks.map((track) =>
    songOf(
      track,
      facts.albums.get(track.album_id),
      starred("track", track.id),
      facts.sortTitles.get(track.id),
      starred.rating("track", track.id),
    ),
  )

/** Songs with their album's year and cover, and the caller's stars. */
export const songs = (user: SessionUser, tracks: ReadonlyArray<Track>, known?: AlbumRef) =>
  Effect.map(
    Effect.all([albumFactsOf(tracks, known), starredAmong(user, { track: ids(tracks) })]),
    ([facts, starred]) => songsOf(tracks, facts, starred),
  )

export const albumID3 = (
  album: AlbumRef,
  starred: Date | undefined,
  extras: AlbumExtras | undefined,
  rating?: number | undefined,
) => albumID3Of(album, undefined, starred, extras, rating)

/** Albums as one kind of entry, each with its extras (one read) and the caller's star. */
const albumEntries = <R>(
  user: SessionUser,
  albums: ReadonlyArray<AlbumRef>,
  answer: (
    album: AlbumRef,
    starred: Date | undefined,
    extras: AlbumExtras | undefined,
    rating: number | undefined,
  ) => R,
) =>
  Effect.flatMap(LibraryService, (library) =>
    Effect.flatMap(library.subsonicFacts([], ids(albums)), (facts) =>
      withStars(user, "album", albums, (album, starred, rating) =>
        answer(album, starred, facts.albums.get(album.id), rating),
      ),
    ),
  )

export const albumsID3 = (user: SessionUser, albums: ReadonlyArray<AlbumRef>) => albumEntries(user, albums, albumID3)
export const albumChildren = (user: SessionUser, albums: ReadonlyArray<AlbumRef>) =>
  albumEntries(user, albums, albumChildOf)
export const artistsID3 = (user: SessionUser, artists: ReadonlyArray<Artist>) =>
  withStars(user, "artist", artists, artistID3Of)
export const indexArtistList = (user: SessionUser, artists: ReadonlyArray<Artist>) =>
  withStars(user, "artist", artists, indexArtistOf)

/** Which kind of entity a bare Subsonic id names (getMusicDirectory, star, getSimilarSongs). */
export const kindOf = (id: string) =>
  Effect.gen(function* () {
    if (!isUuid(id)) return undefined
    const library = yield* LibraryService
    if ((yield* library.tracksByIds([id])).length > 0) return "track" as const
    if ((yield* library.albumsByIds([id])).length > 0) return "album" as const
    if ((yield* library.artistsByIds([id])).length > 0) return "artist" as const
    return undefined
  })
