import {
  ALBUM_PAGE_DEFAULT,
  ALBUM_PAGE_MAX,
  AlbumDetail,
  type AlbumExtras,
  type AlbumId,
  AlbumPage,
  type AlbumQuery,
  AlbumRef,
  Artist,
  ArtistDetail,
  type ArtistId,
  ArtistPage,
  type ArtistQuery,
  ConflictingFilters,
  CoverCoverage,
  CoverProvider,
  CoverSources,
  clampLimit,
  Disc,
  EXTERNAL_COVER_PROVIDERS,
  GenreRow,
  HOME_RECENTLY_ADDED,
  InvertedYearRange,
  isValidArtSource,
  LOCAL_COVER_PROVIDERS,
  NotFound,
  SEARCH_DEFAULT,
  SEARCH_MAX,
  type SearchQueryText,
  SearchResult,
  type SearchWindows,
  SHUFFLE_DEFAULT,
  SHUFFLE_MAX,
  ShuffleResult,
  searchQueryOf,
  searchWantsClosest,
  Track,
  type UserId,
  YearRow,
} from "@tonearm/core"
import { Effect, Option, Random } from "effect"
import { ChangeLog } from "../changes/index.js"
import { scopeKey } from "../db/libraryScope.js"
import { type AlbumRecord, type ArtistRecord, BrowseRepository, type TrackRecord } from "./BrowseRepository.js"
import { byId, inOrder } from "./idOrder.js"
import { LibraryAccess } from "./LibraryAccess.js"
import {
  prefixEntriesOf,
  SHORT_PREFIX_TABLES_KEPT,
  ShortPrefixLimits,
  type ShortPrefixTable,
  shortPrefixIds,
  shortPrefixOf,
} from "./shortPrefixes.js"
import { type VersionedAnswers, versionedAnswers } from "./versionedAnswers.js"

/** Distinct searches whose answers are kept (each ~20 KB of JSON at the default page: a few MB at most). */
export const SEARCH_ANSWERS_KEPT = 128

/** Artist pages kept (each up to ~100 KB of objects with 200 albums embedded: a few MB at most). */
export const ARTIST_DETAILS_KEPT = 64

/** Home's recently added row, one per library set seen (most servers: one). */
export const RECENTLY_ADDED_SETS_KEPT = 16

/** Distinct album pages kept (each ~50 KB of objects at the default page of 50: about 6 MB at most). */
export const ALBUM_PAGES_KEPT = 128
/** Library sets whose genre index is kept (usually one or two: every library, and a limited listener's). */
export const GENRE_INDEXES_KEPT = 8

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

/** The items a short-prefix table names, by id, read once with it. */
interface PrefixHits {
  readonly artists: ReadonlyMap<string, ArtistRecord>
  readonly albums: ReadonlyMap<string, AlbumRecord>
  readonly tracks: ReadonlyMap<string, TrackRecord>
}

const idsOf = (table: ShortPrefixTable) => {
  const of = (entries: ShortPrefixTable["tracks"]) => [...new Set([...entries.values()].flatMap((e) => e.ids ?? []))]
  return { artists: of(table.artists), albums: of(table.albums), tracks: of(table.tracks) }
}

/** An answer's items from the kept ones, or undefined when one is missing (then it is searched). */
const hitsOf = (
  hits: PrefixHits,
  ids: {
    readonly artists: ReadonlyArray<string>
    readonly albums: ReadonlyArray<string>
    readonly tracks: ReadonlyArray<string>
  },
) => {
  const artists = ids.artists.map((id) => hits.artists.get(id))
  const albums = ids.albums.map((id) => hits.albums.get(id))
  const tracks = ids.tracks.map((id) => hits.tracks.get(id))
  const whole = <A>(rows: ReadonlyArray<A | undefined>): rows is ReadonlyArray<A> =>
    rows.every((row) => row !== undefined)
  return whole(artists) && whole(albums) && whole(tracks) ? { artists, albums, tracks } : undefined
}

export class LibraryService extends Effect.Service<LibraryService>()("@tonearm/server/LibraryService", {
  effect: Effect.gen(function* () {
    const browse = yield* BrowseRepository
    const changes = yield* ChangeLog
    const access = yield* LibraryAccess

    const genresRead = Effect.map(browse.genres, (rows) => rows.map((row) => new GenreRow(row, true)))
    const years = Effect.map(browse.years, (rows) => rows.map((row) => new YearRow(row, true)))

    /** `compute`'s answer for `key`, kept in `answers` until the library's version moves on. */
    const keptPerVersion = <A, E>(answers: VersionedAnswers<A>, key: string, compute: Effect.Effect<A, E>) =>
      Effect.gen(function* () {
        const version = yield* changes.libraryVersion
        // Per library set: an answer computed for some libraries is never served to a caller of others.
        const scoped = `${scopeKey(yield* access.current)}|${key}`
        const kept = answers.get(scoped, version)
        if (kept !== undefined) return kept
        const answer = yield* compute
        answers.set(scoped, version, answer)
        return answer
      })

    // The genre index per library version and library set: every library's is a derived table (cheap), but a
    // listener limited to some libraries has it counted over their tracks (78 ms at 50k tracks, 1 s p99 at c=16).
    const genreIndexes = versionedAnswers<ReadonlyArray<GenreRow>>(GENRE_INDEXES_KEPT)
    const genres = keptPerVersion(genreIndexes, "genres", genresRead)

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
      const artist =
        query.artist_id === undefined ? undefined : { id: query.artist_id, role: query.role ?? "album_artist" }
      const key = JSON.stringify([
        genre ?? null,
        query.year_from ?? null,
        query.year_to ?? null,
        sort,
        offset,
        limit,
        artist?.id ?? null,
        artist?.role ?? null,
      ])
      const page = browse.albumPage(
        { genre, yearFrom: query.year_from, yearTo: query.year_to, artist },
        artist === undefined ? sort : (query.sort ?? "year"),
        offset,
        limit,
      )
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
        Effect.map((found) => ({ found, degraded: false })),
        Effect.catchAll(() =>
          Effect.all([row, chips(genres, what)], { concurrency: 2 }).pipe(
            Effect.map(([found, names]) => ({
              found: Option.map(found, (value) => ({ ...value, genres: names })),
              // The chips may have failed: such an answer is never kept.
              degraded: true,
            })),
          ),
        ),
      )

    // A detail's reads run one after another: under load, side by side costs more (a fiber and a pooled connection
    // each, queued behind other requests' reads) than the round trips it overlaps; an unknown id reads nothing more.
    const album = Effect.fn("LibraryService.album")(function* (id: AlbumId) {
      const { found } = yield* withChips(
        browse.albumWithGenres(id),
        browse.album(id),
        browse.albumGenres(id),
        `album ${id}`,
      )
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such album", resource: "album" })
      const tracks = yield* browse.albumTracks(id)
      const discs = yield* browse.albumDiscs(id)
      const { genres, ...row } = found.value
      return new AlbumDetail(
        {
          ...toAlbumRef(row),
          tracks: tracks.map(toTrack),
          discs:
            discs.length > 0 ? discs.map((disc) => new Disc(disc, true)) : [new Disc({ number: 1, subtitle: null })],
          genres,
        },
        true,
      )
    })

    /** `albumsMax` caps each embedded album list (the JSON route: ARTIST_DETAIL_ALBUMS_MAX); absent, all of them. */
    // Artist pages per library version, like album pages: the same for every listener until the library changes,
    // and a large artist's page (hundreds of credited albums) costs several index walks to build.
    const artistDetails = versionedAnswers<ArtistDetail>(ARTIST_DETAILS_KEPT)
    const artist = Effect.fn("LibraryService.artist")(function* (id: ArtistId, albumsMax?: number) {
      const version = yield* changes.libraryVersion
      const key = `${scopeKey(yield* access.current)}|${albumsMax ?? "all"}:${id}`
      const kept = artistDetails.get(key, version)
      if (kept !== undefined) return kept
      const { detail, degraded } = yield* artistDetail(id, albumsMax)
      if (!degraded) artistDetails.set(key, version, detail)
      return detail
    })

    const artistDetail = Effect.fn("LibraryService.artistDetail")(function* (id: ArtistId, albumsMax?: number) {
      const { found, degraded } = yield* withChips(
        browse.artistWithGenres(id),
        browse.artist(id),
        browse.artistGenres(id),
        `artist ${id}`,
      )
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such artist", resource: "artist" })
      const own = yield* browse.albumsBy(id, albumsMax)
      const appearsOn = yield* browse.appearsOn(id, albumsMax)
      const { genres, ...row } = found.value
      const detail = new ArtistDetail(
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
      return { detail, degraded }
    })

    /** Library › Artists: every credited artist A–Z by sort name, paged like albums. */
    const artists = Effect.fn("LibraryService.artists")(function* (query: ArtistQuery) {
      const offset = query.offset ?? 0
      const limit = clampLimit(query.limit, ALBUM_PAGE_DEFAULT, ALBUM_PAGE_MAX)
      const page = yield* browse.artistPage(offset, limit)
      return new ArtistPage({ items: page.items.map(toArtist), total: page.total, offset, limit }, true)
    })

    // Search answers per library version: the same words give the same answer to everyone until the library
    // changes, and search-as-you-type sends the same few prefixes over and over. A hit costs one read of the
    // version (one index entry) instead of three planned searches.
    const answers = versionedAnswers<SearchResult>(SEARCH_ANSWERS_KEPT)
    const noResult = new SearchResult({ artists: [], albums: [], tracks: [] })
    const toResult = (rows: {
      readonly artists: ReadonlyArray<ArtistRecord>
      readonly albums: ReadonlyArray<AlbumRecord>
      readonly tracks: ReadonlyArray<TrackRecord>
    }) =>
      new SearchResult(
        { artists: rows.artists.map(toArtist), albums: rows.albums.map(toAlbumRef), tracks: rows.tracks.map(toTrack) },
        true,
      )

    // Short prefixes answered ahead (shortPrefixes.ts): one table per library set, made in the background on the
    // first short search after the library changed; until it is there, short searches run as any other. The table's
    // items are read with it (the popular ones lead many prefixes, so there are few), so an answer reads nothing.
    const prefixLimits = yield* ShortPrefixLimits
    const prefixTables = new Map<string, { readonly table: ShortPrefixTable; readonly hits: PrefixHits }>()
    const prefixWarming = new Set<string>()
    const currentPrefixTable = Effect.gen(function* () {
      const version = yield* changes.libraryVersion
      const scope = scopeKey(yield* access.current)
      const kept = prefixTables.get(scope)
      return { scope, version, kept: kept?.table.version === version ? kept : undefined }
    })
    const makePrefixTable = (scope: string, version: string) =>
      Effect.gen(function* () {
        const rows = yield* browse.shortPrefixes(prefixLimits)
        const table: ShortPrefixTable = {
          version,
          artists: prefixEntriesOf(rows.artists),
          albums: prefixEntriesOf(rows.albums),
          tracks: prefixEntriesOf(rows.tracks),
        }
        const found = yield* browse.searchHitsByIds(idsOf(table))
        const hits: PrefixHits = {
          artists: new Map(found.artists.map((row) => [row.id as string, row])),
          albums: new Map(found.albums.map((row) => [row.id as string, row])),
          tracks: new Map(found.tracks.map((row) => [row.id as string, row])),
        }
        prefixTables.delete(scope)
        prefixTables.set(scope, { table, hits })
        if (prefixTables.size > SHORT_PREFIX_TABLES_KEPT) {
          prefixTables.delete(prefixTables.keys().next().value as string)
        }
        yield* Effect.logDebug(
          `short search prefixes: ${table.tracks.size} track, ${table.albums.size} album, ${table.artists.size} artist prefixes; ${hits.tracks.size + hits.albums.size + hits.artists.size} items kept`,
        )
      })
    /** The caller's library set's table at the current version, made now when missing (tests; after a scan). */
    const prepareShortPrefixes = Effect.gen(function* () {
      const { scope, version, kept } = yield* currentPrefixTable
      if (kept === undefined) yield* makePrefixTable(scope, version)
    })
    const answeredAhead = (query: SearchQueryText, windows: SearchWindows) =>
      Effect.gen(function* () {
        const word = shortPrefixOf(query, prefixLimits.letters)
        if (word === undefined) return undefined
        const { scope, version, kept } = yield* currentPrefixTable
        if (kept !== undefined) {
          const ids = shortPrefixIds(kept.table, word, windows)
          return ids === undefined ? undefined : hitsOf(kept.hits, ids)
        }
        const warming = `${scope}@${version}`
        if (!prefixWarming.has(warming)) {
          prefixWarming.add(warming)
          // Forked with the caller's library set (the fiber inherits it) and detached from the request. A failed
          // table is not retried at this version (its mark stays): short searches then run as any other.
          yield* Effect.forkDaemon(
            makePrefixTable(scope, version).pipe(
              Effect.tap(() => Effect.sync(() => prefixWarming.delete(warming))),
              Effect.catchAllCause((cause) => Effect.logWarning("short search prefixes not made", cause)),
            ),
          )
        }
        return undefined
      })

    /**
     * The search rule (contract "Library model", Search), one window of each kind: the query's folded words
     * (core `searchQueryOf`) must each match a field of an item, the last as a prefix, ranked by the repository
     * (whole-field equal, then all-prefix, then the rest; ties by popularity in the library). When nothing matches
     * at all, the closest items by trigram similarity are the answer (typos), for a query of at least
     * SEARCH_CLOSEST_MIN_LETTERS letters. A query of nothing but spaces and punctuation finds nothing.
     */
    const searchWindows = Effect.fn("LibraryService.searchWindows")(function* (q: string, windows: SearchWindows) {
      const query = searchQueryOf(q)
      const asked = [windows.artists, windows.albums, windows.tracks].filter((window) => window.limit > 0)
      if (query.words.length === 0 || asked.length === 0) return noResult
      const key = JSON.stringify([
        query.words,
        [windows.artists.offset, windows.artists.limit],
        [windows.albums.offset, windows.albums.limit],
        [windows.tracks.offset, windows.tracks.limit],
      ])
      const compute = Effect.gen(function* () {
        const ahead = yield* answeredAhead(query, windows)
        if (ahead !== undefined) return toResult(ahead)
        const found = yield* browse.search(query, windows)
        if (found.artists.length > 0 || found.albums.length > 0 || found.tracks.length > 0) return toResult(found)
        // Empty windows that all start at the first match mean no match; a later window may be past the end of
        // matches that exist (and a kind not asked for may have some), so that is asked then.
        const fromStart = asked.length === 3 && asked.every((window) => window.offset === 0)
        if (!searchWantsClosest(query)) return toResult(found)
        if (!fromStart && (yield* browse.searchHasMatches(query))) return toResult(found)
        return toResult(yield* browse.searchSimilar(query, windows))
      })
      return yield* keptPerVersion(answers, key, compute)
    })

    /** The JSON route's search: the first `limit` (default 20, at most 100) of each kind. */
    const search = Effect.fn("LibraryService.search")(function* (q: string, limit: number | undefined) {
      const capped = clampLimit(limit, SEARCH_DEFAULT, SEARCH_MAX)
      const window = { offset: 0, limit: capped }
      return yield* searchWindows(q, { artists: window, albums: window, tracks: window })
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
    const recentlyAddedKept = versionedAnswers<ReadonlyArray<AlbumRef>>(RECENTLY_ADDED_SETS_KEPT)
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
      const [counts, artistCounts] = yield* Effect.all([browse.coverCounts, browse.artistArtCounts], {
        concurrency: 2,
      })
      const bySource: Record<string, number> = {}
      let albums = 0
      for (const row of counts) {
        albums += row.albums
        if (row.source !== null) bySource[row.source] = row.albums
      }
      // Artist images the same way (an `artist.*` in the artist's folder is the `sidecar` source).
      const artistsBySource: Record<string, number> = {}
      let artists = 0
      for (const row of artistCounts) {
        artists += row.artists
        if (row.source !== null) artistsBySource[row.source] = row.artists
      }
      const coveredOf = (by: Record<string, number>) =>
        Object.entries(by).reduce((sum, [source, n]) => sum + (isValidArtSource(source) ? n : 0), 0)
      const known = [...LOCAL_COVER_PROVIDERS, ...EXTERNAL_COVER_PROVIDERS] as ReadonlyArray<string>
      const seen = [...Object.keys(bySource), ...Object.keys(artistsBySource)]
      const providers = [...known, ...new Set(seen.filter((id) => !known.includes(id)))].map(
        (id) =>
          new CoverProvider({
            id,
            enabled: (LOCAL_COVER_PROVIDERS as ReadonlyArray<string>).includes(id) || externalEnabled.has(id),
            covered_albums: bySource[id] ?? 0,
            covered_artists: artistsBySource[id] ?? 0,
          }),
      )
      return new CoverSources({
        providers,
        coverage: new CoverCoverage({
          albums,
          covered: coveredOf(bySource),
          by_source: bySource,
          artists,
          covered_artists: coveredOf(artistsBySource),
          artists_by_source: artistsBySource,
        }),
      })
    })

    /** Entities in the order of `ids`; ids that no longer exist are left out. */
    const tracksByIds = (ids: ReadonlyArray<string>) =>
      Effect.map(browse.tracksByIds(ids), (rows) => inOrder(ids, byId(rows)).map(toTrack))
    const albumsByIds = (ids: ReadonlyArray<string>) =>
      Effect.map(browse.albumsByIds(ids), (rows) => inOrder(ids, byId(rows)).map(toAlbumRef))
    const artistsByIds = (ids: ReadonlyArray<string>) =>
      Effect.map(browse.artistsByIds(ids), (rows) => inOrder(ids, byId(rows)).map(toArtist))

    /**
     * The Subsonic adapter's facts beyond the wire classes: per track id its tagged TITLESORT (tracks without
     * one are absent), per album id its sort key, compilation flag and disc titles (OpenSubsonic `discTitles`).
     */
    const subsonicFacts = Effect.fn("LibraryService.subsonicFacts")(function* (
      trackIds: ReadonlyArray<string>,
      albumIds: ReadonlyArray<string>,
    ) {
      const found =
        trackIds.length === 0 && albumIds.length === 0
          ? { tracks: [], albums: [] }
          : yield* browse.subsonicFacts(trackIds, albumIds)
      return {
        sortTitles: new Map(found.tracks.map((track) => [track.id, track.sort_title])),
        albums: new Map(
          found.albums.map((album) => [
            album.id,
            { sortName: album.sort_key, isCompilation: album.compilation, discTitles: album.discs },
          ]),
        ),
      } satisfies { sortTitles: ReadonlyMap<string, string>; albums: ReadonlyMap<string, AlbumExtras> }
    })

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
      artists,
      search,
      searchWindows,
      prepareShortPrefixes,
      shuffle,
      recentlyAdded,
      coverSources,
      tracksByIds,
      albumsByIds,
      artistsByIds,
      subsonicFacts,
      catalogText: browse.catalogText,
    } as const
  }),
  dependencies: [BrowseRepository.Default, ChangeLog.Default, LibraryAccess.Default],
}) {}
