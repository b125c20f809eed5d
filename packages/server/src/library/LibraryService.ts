import {
  ALBUM_PAGE_DEFAULT,
  ALBUM_PAGE_MAX,
  AlbumDetail,
  type AlbumId,
  AlbumPage,
  type AlbumQuery,
  AlbumRef,
  Artist,
  ArtistDetail,
  type ArtistId,
  ConflictingFilters,
  CoverCoverage,
  CoverProvider,
  CoverSources,
  clampLimit,
  EXTERNAL_COVER_PROVIDERS,
  GenreRow,
  HOME_RECENTLY_ADDED,
  InvertedYearRange,
  isValidArtSource,
  LOCAL_COVER_PROVIDERS,
  NotFound,
  SEARCH_DEFAULT,
  SEARCH_MAX,
  SearchResult,
  SHUFFLE_DEFAULT,
  SHUFFLE_MAX,
  ShuffleResult,
  searchKeyOf,
  Track,
  type UserId,
  YearRow,
} from "@tonearm/core"
import { Effect, Option, Random } from "effect"
import { ChangeLog } from "../changes/index.js"
import { type AlbumRecord, type ArtistRecord, BrowseRepository, type TrackRecord } from "./BrowseRepository.js"
import { byId, inOrder } from "./idOrder.js"
import { type VersionedAnswers, versionedAnswers } from "./versionedAnswers.js"

/** Distinct searches whose answers are kept (each ~20 KB of JSON at the default page: a few MB at most). */
export const SEARCH_ANSWERS_KEPT = 128

/** Distinct album pages kept (each ~50 KB of objects at the default page of 50: about 6 MB at most). */
export const ALBUM_PAGES_KEPT = 128

export const coverUrlOf = (id: AlbumId, source: string | null) => (source === null ? null : `/api/albums/${id}/cover`)

/**
 * Wire classes built from rows the repository already decoded are not validated a second time (`true`: the
 * constructor's disableValidation); HttpApi still encodes each answer against its schema.
 */
export const toAlbumRef = (row: AlbumRecord) =>
  new AlbumRef({ ...row, cover_url: coverUrlOf(row.id, row.cover_art_source) }, true)

export const toTrack = (row: TrackRecord) => new Track(row, true)

/** An artist's image (fetched by enrichment) is served at its image route when it has an art source. */
export const toArtist = (row: ArtistRecord) =>
  new Artist({ ...row, cover_url: row.art_source === null ? null : `/api/artists/${row.id}/image` }, true)

export class LibraryService extends Effect.Service<LibraryService>()("@tonearm/server/LibraryService", {
  effect: Effect.gen(function* () {
    const browse = yield* BrowseRepository
    const changes = yield* ChangeLog

    const genres = Effect.map(browse.genres, (rows) => rows.map((row) => new GenreRow(row, true)))
    const years = Effect.map(browse.years, (rows) => rows.map((row) => new YearRow(row, true)))

    /** `compute`'s answer for `key`, kept in `answers` until the library's version moves on. */
    const keptPerVersion = <A, E>(answers: VersionedAnswers<A>, key: string, compute: Effect.Effect<A, E>) =>
      Effect.gen(function* () {
        const version = yield* changes.libraryVersion
        const kept = answers.get(key, version)
        if (kept !== undefined) return kept
        const answer = yield* compute
        answers.set(key, version, answer)
        return answer
      })

    // Album pages per library version, like search answers: every listener browses the same pages, and a hit
    // costs one read of the version instead of the page's query and decoding.
    const albumPages = versionedAnswers<AlbumPage>(ALBUM_PAGES_KEPT)
    /** Genre XOR a year range (either edge open); an inverted range is refused, never swapped. */
    const albums = Effect.fn("LibraryService.albums")(function* (query: AlbumQuery) {
      const genre = query.genre?.trim() === "" ? undefined : query.genre?.trim()
      const ranged = query.year_from !== undefined || query.year_to !== undefined
      if (genre !== undefined && ranged) {
        return yield* new ConflictingFilters({ message: "filter by genre or by year range, not both" })
      }
      if (query.year_from !== undefined && query.year_to !== undefined && query.year_from > query.year_to) {
        return yield* new InvertedYearRange({
          message: `year_from (${query.year_from}) is after year_to (${query.year_to})`,
        })
      }
      const offset = query.offset ?? 0
      const limit = clampLimit(query.limit, ALBUM_PAGE_DEFAULT, ALBUM_PAGE_MAX)
      const sort = query.sort ?? "title"
      const key = JSON.stringify([genre ?? null, query.year_from ?? null, query.year_to ?? null, sort, offset, limit])
      const page = browse.albumPage({ genre, yearFrom: query.year_from, yearTo: query.year_to }, sort, offset, limit)
      return yield* keptPerVersion(
        albumPages,
        key,
        Effect.map(
          page,
          (found) => new AlbumPage({ items: found.items.map(toAlbumRef), total: found.total, offset, limit }, true),
        ),
      )
    })

    /** Chips are derived at read time; a failed lookup is logged and answered as no genres. */
    const chips = (lookup: Effect.Effect<ReadonlyArray<string>, unknown>, what: string) =>
      lookup.pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError(`genre lookup for ${what} failed; answering no genres`, cause).pipe(Effect.as([])),
        ),
      )

    /**
     * A detail's row with its chips in one statement; when that fails, the row alone and the chips apart, so a
     * failing genre lookup still degrades to no genres (and a failing row still fails).
     */
    const withChips = <A, E1, E2>(
      together: Effect.Effect<Option.Option<A & { readonly genres: ReadonlyArray<string> }>, E1>,
      row: Effect.Effect<Option.Option<A>, E2>,
      genres: Effect.Effect<ReadonlyArray<string>, unknown>,
      what: string,
    ) =>
      together.pipe(
        Effect.catchAll(() =>
          Effect.all([row, chips(genres, what)], { concurrency: 2 }).pipe(
            Effect.map(([found, names]) => Option.map(found, (value) => ({ ...value, genres: names }))),
          ),
        ),
      )

    // A detail's reads run one after another: under load, side by side costs more (a fiber and a pooled connection
    // each, queued behind other requests' reads) than the round trips it overlaps; an unknown id reads nothing more.
    const album = Effect.fn("LibraryService.album")(function* (id: AlbumId) {
      const found = yield* withChips(
        browse.albumWithGenres(id),
        browse.album(id),
        browse.albumGenres(id),
        `album ${id}`,
      )
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such album" })
      const tracks = yield* browse.albumTracks(id)
      const { genres, ...row } = found.value
      return new AlbumDetail({ ...toAlbumRef(row), tracks: tracks.map(toTrack), genres }, true)
    })

    /** `albumsMax` caps each embedded album list (the JSON route: ARTIST_DETAIL_ALBUMS_MAX); absent, all of them. */
    const artist = Effect.fn("LibraryService.artist")(function* (id: ArtistId, albumsMax?: number) {
      const found = yield* withChips(
        browse.artistWithGenres(id),
        browse.artist(id),
        browse.artistGenres(id),
        `artist ${id}`,
      )
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such artist" })
      const own = yield* browse.albumsBy(id, albumsMax)
      const appearsOn = yield* browse.appearsOn(id, albumsMax)
      const { genres, ...row } = found.value
      return new ArtistDetail(
        {
          ...toArtist(row),
          genres,
          albums: own.items.map(toAlbumRef),
          albums_total: own.total,
          appears_on: appearsOn.items.map(toAlbumRef),
          appears_on_total: appearsOn.total,
        },
        true,
      )
    })

    // Search answers per library version: the same words give the same answer to everyone until the library
    // changes, and search-as-you-type sends the same few prefixes over and over. A hit costs one read of the
    // version (one index entry) instead of three planned searches (~7 ms of server and database CPU at 100k).
    const answers = versionedAnswers<SearchResult>(SEARCH_ANSWERS_KEPT)
    const search = Effect.fn("LibraryService.search")(function* (q: string, limit: number | undefined) {
      const key = searchKeyOf(q)
      if (key === "") return new SearchResult({ artists: [], albums: [], tracks: [] })
      const capped = clampLimit(limit, SEARCH_DEFAULT, SEARCH_MAX)
      const found = browse.search(key, capped)
      return yield* keptPerVersion(
        answers,
        `${capped}:${key}`,
        Effect.map(
          found,
          (rows) =>
            new SearchResult(
              {
                artists: rows.artists.map(toArtist),
                albums: rows.albums.map(toAlbumRef),
                tracks: rows.tracks.map(toTrack),
              },
              true,
            ),
        ),
      )
    })

    /**
     * Random tracks; the seed comes from Effect's Random so a test can fix it. For a listener, the tracks
     * they flagged (quarantine) stay out.
     */
    const shuffle = Effect.fn("LibraryService.shuffle")(function* (limit: number | undefined, user?: UserId) {
      const seed = String(yield* Random.nextIntBetween(0, 2 ** 31 - 1))
      const tracks = yield* browse.shuffle(seed, clampLimit(limit, SHUFFLE_DEFAULT, SHUFFLE_MAX), user)
      return new ShuffleResult({ tracks: tracks.map(toTrack) })
    })

    // Home's first row is the same for everyone until the library changes: kept like the album pages.
    const recentlyAddedKept = versionedAnswers<ReadonlyArray<AlbumRef>>(1)
    const recentlyAdded = keptPerVersion(
      recentlyAddedKept,
      "home",
      Effect.map(browse.recentlyAdded(HOME_RECENTLY_ADDED), (rows) => rows.map(toAlbumRef)),
    )

    /**
     * The cover providers with what each covers, and the coverage roll-up: an album is covered when its source
     * is any valid source of the registry, every external provider included. `externalEnabled` are the
     * external providers an admin switched on.
     */
    const coverSources = Effect.fn("LibraryService.coverSources")(function* (externalEnabled: ReadonlySet<string>) {
      const counts = yield* browse.coverCounts
      const bySource: Record<string, number> = {}
      let albums = 0
      for (const row of counts) {
        albums += row.albums
        if (row.source !== null) bySource[row.source] = row.albums
      }
      const covered = Object.entries(bySource).reduce((sum, [source, n]) => sum + (isValidArtSource(source) ? n : 0), 0)
      const known = [...LOCAL_COVER_PROVIDERS, ...EXTERNAL_COVER_PROVIDERS] as ReadonlyArray<string>
      const providers = [...known, ...Object.keys(bySource).filter((id) => !known.includes(id))].map(
        (id) =>
          new CoverProvider({
            id,
            enabled: (LOCAL_COVER_PROVIDERS as ReadonlyArray<string>).includes(id) || externalEnabled.has(id),
            covered_albums: bySource[id] ?? 0,
          }),
      )
      return new CoverSources({ providers, coverage: new CoverCoverage({ albums, covered, by_source: bySource }) })
    })

    /** Entities in the order of `ids`; ids that no longer exist are left out. */
    const tracksByIds = (ids: ReadonlyArray<string>) =>
      Effect.map(browse.tracksByIds(ids), (rows) => inOrder(ids, byId(rows)).map(toTrack))
    const albumsByIds = (ids: ReadonlyArray<string>) =>
      Effect.map(browse.albumsByIds(ids), (rows) => inOrder(ids, byId(rows)).map(toAlbumRef))
    const artistsByIds = (ids: ReadonlyArray<string>) =>
      Effect.map(browse.artistsByIds(ids), (rows) => inOrder(ids, byId(rows)).map(toArtist))

    /** Genres with track and album counts (the Subsonic getGenres index): the genre rule's one index. */
    const genreCounts = browse.genreCounts
    const allArtists = Effect.map(browse.allArtists, (rows) => rows.map(toArtist))

    const randomAlbums = Effect.fn("LibraryService.randomAlbums")(function* (limit: number) {
      const seed = String(yield* Random.nextIntBetween(0, 2 ** 31 - 1))
      return (yield* browse.randomAlbums(seed, clampLimit(limit, ALBUM_PAGE_DEFAULT, ALBUM_PAGE_MAX))).map(toAlbumRef)
    })

    /**
     * Albums of a year range in the Subsonic sense: `from` after `to` lists the range newest first instead of
     * being refused. Undated albums match no range (the library rule).
     */
    const albumsBetweenYears = Effect.fn("LibraryService.albumsBetweenYears")(function* (
      from: number,
      to: number,
      offset: number,
      limit: number,
    ) {
      const page = yield* browse.albumPage(
        { yearFrom: Math.min(from, to), yearTo: Math.max(from, to) },
        from > to ? "year_desc" : "year",
        offset,
        clampLimit(limit, ALBUM_PAGE_DEFAULT, ALBUM_PAGE_MAX),
      )
      return page.items.map(toAlbumRef)
    })

    /**
     * Random tracks, optionally within one genre (the genre rule) and an album-year range; for a listener,
     * the tracks they flagged (quarantine) stay out, as in `shuffle`.
     */
    const randomTracks = Effect.fn("LibraryService.randomTracks")(function* (
      filter: {
        readonly genre?: string | undefined
        readonly yearFrom?: number | undefined
        readonly yearTo?: number | undefined
      },
      limit: number,
      user?: UserId,
    ) {
      const seed = String(yield* Random.nextIntBetween(0, 2 ** 31 - 1))
      const genre = filter.genre?.trim() === "" ? undefined : filter.genre?.trim()
      const rows = yield* browse.shuffleWhere(
        seed,
        clampLimit(limit, SHUFFLE_DEFAULT, SHUFFLE_MAX),
        {
          genre,
          yearFrom: filter.yearFrom,
          yearTo: filter.yearTo,
        },
        user,
      )
      return rows.map(toTrack)
    })

    /** Tracks of one genre (the genre rule), paged. */
    const tracksByGenre = (genre: string, offset: number, limit: number) =>
      Effect.map(browse.tracksByGenre(genre.trim(), offset, clampLimit(limit, SHUFFLE_DEFAULT, SHUFFLE_MAX)), (rows) =>
        rows.map(toTrack),
      )

    /** Every track, paged in title order. */
    const trackPage = (offset: number, limit: number) =>
      Effect.map(browse.trackPage(offset, clampLimit(limit, SHUFFLE_DEFAULT, SHUFFLE_MAX)), (rows) => rows.map(toTrack))

    return {
      genreCounts,
      allArtists,
      randomAlbums,
      albumsBetweenYears,
      randomTracks,
      tracksByGenre,
      trackPage,
      genres,
      years,
      albums,
      album,
      artist,
      search,
      shuffle,
      recentlyAdded,
      coverSources,
      tracksByIds,
      albumsByIds,
      artistsByIds,
      catalogText: browse.catalogText,
    } as const
  }),
  dependencies: [BrowseRepository.Default, ChangeLog.Default],
}) {}
