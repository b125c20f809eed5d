import * as path from "node:path"
import type { RawTags } from "./ParsePool.js"
import type { FoundFile } from "./walk.js"

export const UNKNOWN_ARTIST = "Unknown Artist"
export const UNKNOWN_ALBUM = "Unknown Album"

/** A file's tags, normalised into what the catalogue stores. */
export interface ScannedFile extends FoundFile {
  readonly folder: string
  readonly title: string
  readonly artist: string
  readonly albumArtist: string | null
  readonly album: string
  readonly compilation: boolean
  readonly trackNumber: number | null
  readonly discNumber: number | null
  readonly date: string | null
  readonly year: number | null
  /** The raw genre text: a multi-valued tag joined with `; ` (contract), before the genre rule applies. */
  readonly genre: string | null
  readonly fileFormat: string
  readonly durationMs: number
  readonly bitrateKbps: number | null
  readonly trackMbid: string | null
  readonly albumMbid: string | null
  readonly artistMbid: string | null
  readonly albumArtistMbid: string | null
  readonly hasPicture: boolean
}

/** Tags from the wild carry NUL padding and stray whitespace; PostgreSQL text refuses NUL. */
const text = (value: string | null | undefined): string | null => {
  const trimmed = value?.replace(/\0/g, "").trim()
  return trimmed === undefined || trimmed === "" ? null : trimmed
}

const positive = (value: number | null): number | null =>
  value !== null && Number.isInteger(value) && value > 0 && value < 100_000 ? value : null

/** Why a parsed file is not indexed, or undefined when it is fine. */
export const unusableReason = (tags: RawTags, file: FoundFile): string | undefined => {
  if (file.sizeBytes === 0) return "empty file"
  // No audio stream found and no tags either: junk with an audio extension. Tags alone are kept, as
  // players often cope with streams the parser could not frame.
  if (tags.container === null && text(tags.title) === null && text(tags.artist) === null && text(tags.album) === null) {
    return "not a recognisable audio file"
  }
  return undefined
}

export const scannedFile = (file: FoundFile, folder: string, tags: RawTags): ScannedFile => {
  const extension = path.posix.extname(file.path).slice(1).toLowerCase()
  const folderName = folder === "" ? null : path.posix.basename(folder)
  // Raw text: each value kept as tagged (the genre rule trims later), NUL padding and blank values dropped.
  const genres = tags.genre.map((genre) => genre.replace(/\0/g, "")).filter((genre) => genre.trim() !== "")
  return {
    ...file,
    folder,
    title: text(tags.title) ?? path.posix.basename(file.path, path.posix.extname(file.path)),
    artist: text(tags.artist) ?? text(tags.albumartist) ?? UNKNOWN_ARTIST,
    albumArtist: text(tags.albumartist),
    album: text(tags.album) ?? folderName ?? UNKNOWN_ALBUM,
    compilation: tags.compilation,
    trackNumber: positive(tags.track),
    discNumber: positive(tags.disk),
    date: text(tags.date),
    year: tags.year,
    genre: genres.length > 0 ? genres.join("; ") : null,
    fileFormat: extension,
    durationMs: tags.duration !== null && Number.isFinite(tags.duration) ? Math.round(tags.duration * 1000) : 0,
    bitrateKbps: tags.bitrate !== null && Number.isFinite(tags.bitrate) ? Math.round(tags.bitrate / 1000) : null,
    trackMbid: text(tags.trackMbid),
    albumMbid: text(tags.albumMbid),
    artistMbid: text(tags.artistMbid),
    albumArtistMbid: text(tags.albumArtistMbid),
    hasPicture: tags.hasPicture,
  }
}

/** Artists are one row per name, whatever its letter case or spacing. */
export const artistKeyOf = (name: string): string => name.normalize("NFC").trim().replace(/\s+/g, " ").toLowerCase()

/** Albums are one row per album artist and title; discs in sub-folders join their album. */
export const albumKeyOf = (albumArtist: string, title: string): string =>
  `${artistKeyOf(albumArtist)}\u001f${artistKeyOf(title)}`
