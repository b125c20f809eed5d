import * as path from "node:path"
import {
  albumArtistsOf,
  type CreditRole,
  creditKeyOf,
  DEFAULT_SORT_ARTICLES,
  releaseDateOf,
  type SearchDocument,
  searchDocumentMaker,
  searchKeyOf,
  sortNameWith,
  splitGenres,
  VARIOUS_ARTISTS,
} from "@tonearm/core"
import { libraryOfStoredPath, PRIMARY_LIBRARY } from "./libraryPaths.js"
import { albumKeyOf, artistKeyOf, type ScannedFile } from "./scannedFile.js"

export interface ArtistRow {
  readonly name: string
  readonly name_key: string
  readonly sort_name: string
  /** What artist lists sort by: the sort name without case or accents. */
  readonly sort_key: string
  /** The sort name came from a sort tag (it then wins over one made from the name). */
  readonly sort_tagged: boolean
  readonly search_key: string
  /** The search document (core `searchDocumentOf`): the name. */
  readonly search_words: string
  readonly search_fields: string
  readonly mbid: string | null
}

export interface AlbumRow {
  readonly album_key: string
  readonly title: string
  /** The album artists in order (the first is the album's `artist_id`). */
  readonly artist_keys: ReadonlyArray<string>
  /** How the album artist reads: the tag as written, or the chosen artist's name. */
  readonly artist_display: string
  readonly search_key: string
  /** The search document (core `searchDocumentOf`): the title and every album artist's name. */
  readonly search_words: string
  readonly search_fields: string
  /** What album lists sort by: ALBUMSORT when tagged, else the title less a leading article; folded. */
  readonly sort_key: string
  readonly release_date: string | null
  readonly year: number
  readonly mbid: string | null
  /** MusicBrainz's release comment, or null. */
  readonly release_comment: string | null
  readonly compilation: boolean
  readonly cover_art_source: "sidecar" | "embedded" | null
  readonly cover_path: string | null
  /** The library its folder lies in (`libraryPaths.ts`). */
  readonly library_id: number
}

export interface CreditRow {
  readonly artist_key: string
  readonly role: CreditRole
}

export interface TrackRow {
  readonly path: string
  readonly directory: string
  readonly size_bytes: number
  readonly mtime_ms: number
  readonly title: string
  readonly search_key: string
  /** The search document (core `searchDocumentOf`): the title, the album title and every credited artist's name. */
  readonly search_words: string
  readonly search_fields: string
  readonly sort_title: string | null
  readonly album_key: string
  /** Every credited artist in tag order (the first main one is the track's `artist_id`). */
  readonly credits: ReadonlyArray<CreditRow>
  /** The artist text as tagged. */
  readonly artist_display: string
  readonly track_number: number | null
  readonly disc_number: number
  readonly disc_subtitle: string | null
  readonly duration_ms: number
  readonly genre: string | null
  readonly file_format: string
  readonly bitrate_kbps: number | null
  readonly mbid: string | null
  readonly has_embedded_cover: boolean
  readonly rg_track_gain: number | null
  readonly rg_track_peak: number | null
  readonly rg_album_gain: number | null
  readonly rg_album_peak: number | null
  /** The genre rule applied once, here, for the genre index. */
  readonly genres: ReadonlyArray<string>
}

export interface CatalogRows {
  readonly artists: Map<string, ArtistRow>
  readonly albums: Map<string, AlbumRow>
  readonly tracks: Array<TrackRow>
}

export const emptyRows = (): CatalogRows => ({ artists: new Map(), albums: new Map(), tracks: [] })

/** The track's artist: its first main credit (every file has at least one credit). */
export const leadArtistKey = (track: TrackRow): string =>
  (track.credits.find((credit) => credit.role === "main") ?? track.credits[0])!.artist_key

/** Search documents as core `searchDocumentOf` makes them, each distinct title and name folded once. */
const documentOf = searchDocumentMaker()

const documentColumns = (document: SearchDocument) => ({
  search_words: document.words,
  search_fields: document.fields,
})

/** The name an artist row (of this batch) is shown and found by. */
const artistName = (rows: CatalogRows, key: string) => rows.artists.get(key)?.name ?? key

const addArtist = (
  rows: CatalogRows,
  name: string,
  mbid: string | null,
  sortTag: string | null,
  articles: ReadonlyArray<string>,
) => {
  const key = artistKeyOf(name)
  const existing = rows.artists.get(key)
  const tagged = sortTag !== null && sortTag.trim() !== ""
  if (existing === undefined || (existing.mbid === null && mbid !== null) || (!existing.sort_tagged && tagged)) {
    const display = existing?.name ?? name
    const sortName = tagged
      ? sortNameWith(display, sortTag, articles)
      : (existing?.sort_name ?? sortNameWith(display, null, articles))
    rows.artists.set(key, {
      name: display,
      name_key: key,
      sort_name: sortName,
      sort_key: searchKeyOf(sortName),
      sort_tagged: tagged || (existing?.sort_tagged ?? false),
      search_key: searchKeyOf(display),
      ...documentColumns(documentOf([display])),
      mbid: existing?.mbid ?? mbid,
    })
  }
  return key
}

/** Disc, then track number (missing last), then title: the contract's track order. */
const byDiscAndTrack = (a: ScannedFile, b: ScannedFile) =>
  a.discNumber - b.discNumber ||
  (a.trackNumber ?? Number.MAX_SAFE_INTEGER) - (b.trackNumber ?? Number.MAX_SAFE_INTEGER) ||
  (a.title < b.title ? -1 : a.title > b.title ? 1 : a.path < b.path ? -1 : 1)

/**
 * A folder's files grouped into albums: by album title and MusicBrainz release (two editions never share an
 * album). A file with no album tag joins the folder's album when the folder has one title (a stray untagged
 * track of a tagged album); a file with no release id joins the only release of its title in the folder.
 */
const albumGroups = (files: ReadonlyArray<ScannedFile>): Array<Array<ScannedFile>> => {
  const taggedTitles = new Map<string, string>()
  for (const file of files) if (!file.albumUntagged) taggedTitles.set(artistKeyOf(file.album), file.album)
  const onlyTitle = taggedTitles.size === 1 ? [...taggedTitles.values()][0]! : undefined
  const titled = files.map((file) =>
    file.albumUntagged && onlyTitle !== undefined ? { ...file, album: onlyTitle } : file,
  )
  const releases = new Map<string, Set<string>>()
  for (const file of titled) {
    if (file.albumMbid === null) continue
    const title = artistKeyOf(file.album)
    const set = releases.get(title) ?? new Set<string>()
    set.add(file.albumMbid.toLowerCase())
    releases.set(title, set)
  }
  const groups = new Map<string, Array<ScannedFile>>()
  for (const file of titled) {
    const title = artistKeyOf(file.album)
    const known = releases.get(title)
    const release = file.albumMbid?.toLowerCase() ?? (known?.size === 1 ? [...known][0]! : "")
    const key = `${title}\u001f${release}`
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [file])
    else group.push(file)
  }
  return [...groups.values()]
}

/**
 * Turns one folder's files into catalogue rows. The folder is the unit of change: its files are always
 * grouped together, so compilations and album artists are decided on the whole album.
 */
export const addFolder = (
  rows: CatalogRows,
  files: ReadonlyArray<ScannedFile>,
  sidecarPath: string | null,
  articles: ReadonlyArray<string> = DEFAULT_SORT_ARTICLES,
) => {
  for (const group of albumGroups(files)) {
    group.sort(byDiscAndTrack)
    const albumArtists = albumArtistsOf(
      group.map((file) => ({
        credits: file.credits,
        albumArtists: file.albumArtistCredits,
        albumArtistText: file.albumArtist,
        compilation: file.compilation,
      })),
    )
    const single = albumArtists.names.length === 1
    const albumArtistMbid = albumArtists.compilation
      ? null
      : single
        ? (group.find((file) => file.albumArtistMbid !== null)?.albumArtistMbid ?? null)
        : null
    const albumArtistSort =
      single && !albumArtists.compilation
        ? (group.find((file) => file.albumArtistSort !== null)?.albumArtistSort ?? null)
        : null
    const artistKeys = albumArtists.names.map((name, index) =>
      addArtist(rows, name, index === 0 ? albumArtistMbid : null, index === 0 ? albumArtistSort : null, articles),
    )
    const dated = group.find((file) => file.date !== null) ?? group.find((file) => file.year !== null)
    const release = releaseDateOf(dated?.date, dated?.year)
    const embedded = group.find((file) => file.hasPicture)
    const title = group[0]!.album
    const mbid = group.find((file) => file.albumMbid !== null)?.albumMbid ?? null
    const folder = group[0]!.folder
    const albumFolder = folder !== "" && isDiscFolder(folder) ? path.posix.dirname(folder).replace(/^\.$/, "") : folder
    // An album is one library's: the same release in two libraries (a FLAC and an MP3 copy) is two albums.
    const libraryId = libraryOfStoredPath(albumFolder)
    const albumKey =
      albumKeyOf(albumArtists.names.join("\u001e"), title, mbid, albumFolder) +
      (libraryId === PRIMARY_LIBRARY ? "" : `\u001flibrary:${libraryId}`)
    const albumSort = group.find((file) => file.albumSort !== null)?.albumSort ?? null
    rows.albums.set(albumKey, {
      album_key: albumKey,
      title,
      artist_keys: artistKeys,
      artist_display: albumArtists.compilation ? VARIOUS_ARTISTS : albumArtists.display,
      search_key: searchKeyOf(title),
      ...documentColumns(documentOf([...artistKeys.map((key) => artistName(rows, key)), title])),
      sort_key: searchKeyOf(sortNameWith(title, albumSort, articles)),
      release_date: release.releaseDate,
      year: release.year,
      mbid,
      release_comment: group.find((file) => file.releaseComment !== null)?.releaseComment ?? null,
      compilation: albumArtists.compilation,
      cover_art_source: sidecarPath !== null ? "sidecar" : embedded !== undefined ? "embedded" : null,
      cover_path: sidecarPath ?? embedded?.path ?? null,
      library_id: libraryId,
    })
    const albumArtistKeys = new Set(artistKeys)
    for (const file of group) {
      // A file with no artist tag is credited to its album's artists (a compilation's stays unknown).
      const fileCredits =
        file.artistUntagged && !albumArtists.compilation
          ? albumArtists.names.map((name) => ({ name, role: "main" as const }))
          : file.credits
      const credits = fileCredits.map((credit, index): CreditRow => {
        const key = creditKeyOf(credit.name)
        // An album artist's MusicBrainz id is known; a lone credit takes the file's artist id and sort tag.
        const mbid = albumArtistKeys.has(key) ? albumArtistMbid : index === 0 ? file.artistMbid : null
        const sortTag = fileCredits.length === 1 ? file.artistSort : null
        return { artist_key: addArtist(rows, credit.name, mbid, sortTag, articles), role: credit.role }
      })
      rows.tracks.push({
        path: file.path,
        directory: file.folder,
        size_bytes: file.sizeBytes,
        mtime_ms: file.mtimeMs,
        title: file.title,
        search_key: searchKeyOf(file.title),
        ...documentColumns(
          // Names first: a document longer than core's cap loses the end of a long title, not who it is by.
          documentOf([...credits.map((credit) => artistName(rows, credit.artist_key)), title, file.title]),
        ),
        sort_title: file.titleSort,
        album_key: albumKey,
        credits,
        artist_display: file.artistUntagged && !albumArtists.compilation ? albumArtists.display : file.artist,
        track_number: file.trackNumber,
        disc_number: file.discNumber,
        disc_subtitle: file.discSubtitle,
        duration_ms: file.durationMs,
        genre: file.genre,
        file_format: file.fileFormat,
        bitrate_kbps: file.bitrateKbps,
        mbid: file.trackMbid,
        has_embedded_cover: file.hasPicture,
        rg_track_gain: file.replayGain.trackGainDb,
        rg_track_peak: file.replayGain.trackPeak,
        rg_album_gain: file.replayGain.albumGainDb,
        rg_album_peak: file.replayGain.albumPeak,
        genres: splitGenres(file.genre),
      })
    }
  }
}

/** Disc folders (`CD1`, `Disc 2`) usually keep the album's cover in their parent folder. */
export const isDiscFolder = (folder: string): boolean => /^(cd|disc|disk)\s*\d+$/i.test(path.posix.basename(folder))
