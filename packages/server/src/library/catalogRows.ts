import * as path from "node:path"
import { albumArtistOf, releaseDateOf, searchKeyOf, sortNameOf, splitGenres, VARIOUS_ARTISTS } from "@tonearm/core"
import { albumKeyOf, artistKeyOf, type ScannedFile } from "./scannedFile.js"

export interface ArtistRow {
  readonly name: string
  readonly name_key: string
  readonly sort_name: string
  /** What artist lists sort by: the sort name without case or accents. */
  readonly sort_key: string
  readonly search_key: string
  readonly mbid: string | null
}

export interface AlbumRow {
  readonly album_key: string
  readonly title: string
  readonly artist_key: string
  readonly search_key: string
  readonly release_date: string | null
  readonly year: number
  readonly mbid: string | null
  readonly compilation: boolean
  readonly cover_art_source: "sidecar" | "embedded" | null
  readonly cover_path: string | null
}

export interface TrackRow {
  readonly path: string
  readonly directory: string
  readonly size_bytes: number
  readonly mtime_ms: number
  readonly title: string
  readonly search_key: string
  readonly album_key: string
  readonly artist_key: string
  readonly track_number: number | null
  readonly disc_number: number | null
  readonly duration_ms: number
  readonly genre: string | null
  readonly file_format: string
  readonly bitrate_kbps: number | null
  readonly mbid: string | null
  readonly has_embedded_cover: boolean
  /** The genre rule applied once, here, for the genre index. */
  readonly genres: ReadonlyArray<string>
}

export interface CatalogRows {
  readonly artists: Map<string, ArtistRow>
  readonly albums: Map<string, AlbumRow>
  readonly tracks: Array<TrackRow>
}

export const emptyRows = (): CatalogRows => ({ artists: new Map(), albums: new Map(), tracks: [] })

const addArtist = (rows: CatalogRows, name: string, mbid: string | null) => {
  const key = artistKeyOf(name)
  const existing = rows.artists.get(key)
  if (existing === undefined || (existing.mbid === null && mbid !== null)) {
    const display = existing?.name ?? name
    rows.artists.set(key, {
      name: display,
      name_key: key,
      sort_name: sortNameOf(display),
      sort_key: searchKeyOf(sortNameOf(display)),
      search_key: searchKeyOf(display),
      mbid: existing?.mbid ?? mbid,
    })
  }
  return key
}

const byDiscAndTrack = (a: ScannedFile, b: ScannedFile) =>
  (a.discNumber ?? 0) - (b.discNumber ?? 0) || (a.trackNumber ?? 0) - (b.trackNumber ?? 0) || (a.path < b.path ? -1 : 1)

/**
 * Turns one folder's files into catalogue rows. The folder is the unit of change: its files are always
 * grouped together, so compilations and album artists are decided on the whole album.
 */
export const addFolder = (rows: CatalogRows, files: ReadonlyArray<ScannedFile>, sidecarPath: string | null) => {
  const byTitle = new Map<string, Array<ScannedFile>>()
  for (const file of files) {
    const key = artistKeyOf(file.album)
    const group = byTitle.get(key)
    if (group === undefined) byTitle.set(key, [file])
    else group.push(file)
  }
  for (const group of byTitle.values()) {
    group.sort(byDiscAndTrack)
    const albumArtist = albumArtistOf(group)
    const isVarious = albumArtist === VARIOUS_ARTISTS
    const albumArtistMbid = isVarious
      ? null
      : (group.find((file) => file.albumArtistMbid !== null)?.albumArtistMbid ?? null)
    const artistKey = addArtist(rows, albumArtist, albumArtistMbid)
    const dated = group.find((file) => file.date !== null) ?? group.find((file) => file.year !== null)
    const release = releaseDateOf(dated?.date, dated?.year)
    const embedded = group.find((file) => file.hasPicture)
    const title = group[0]!.album
    const albumKey = albumKeyOf(albumArtist, title)
    rows.albums.set(albumKey, {
      album_key: albumKey,
      title,
      artist_key: artistKey,
      search_key: searchKeyOf(title),
      release_date: release.releaseDate,
      year: release.year,
      mbid: group.find((file) => file.albumMbid !== null)?.albumMbid ?? null,
      compilation: isVarious,
      cover_art_source: sidecarPath !== null ? "sidecar" : embedded !== undefined ? "embedded" : null,
      cover_path: sidecarPath ?? embedded?.path ?? null,
    })
    for (const file of group) {
      const trackArtist = addArtist(rows, file.artist, file.artist === albumArtist ? albumArtistMbid : file.artistMbid)
      rows.tracks.push({
        path: file.path,
        directory: file.folder,
        size_bytes: file.sizeBytes,
        mtime_ms: file.mtimeMs,
        title: file.title,
        search_key: searchKeyOf(file.title),
        album_key: albumKey,
        artist_key: trackArtist,
        track_number: file.trackNumber,
        disc_number: file.discNumber,
        duration_ms: file.durationMs,
        genre: file.genre,
        file_format: file.fileFormat,
        bitrate_kbps: file.bitrateKbps,
        mbid: file.trackMbid,
        has_embedded_cover: file.hasPicture,
        genres: splitGenres(file.genre),
      })
    }
  }
}

/** Disc folders (`CD1`, `Disc 2`) usually keep the album's cover in their parent folder. */
export const isDiscFolder = (folder: string): boolean => /^(cd|disc|disk)\s*\d+$/i.test(path.posix.basename(folder))
