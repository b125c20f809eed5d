import * as path from "node:path"
import {
  type Credit,
  cleanName,
  creditKeyOf,
  creditsOf,
  isVariousArtists,
  r128ToReplayGainDb,
  replayGainNumberOf,
  splitArtistText,
} from "@tonearm/core"
import type { CatalogSettings } from "../config/TonearmConfig.js"
import type { RawTags } from "./ParsePool.js"
import type { FoundFile } from "./walk.js"

export const UNKNOWN_ARTIST = "Unknown Artist"
export const UNKNOWN_ALBUM = "Unknown Album"

/** ReplayGain as tagged (contract: each null when untagged; R128 converted to dB relative to -18 LUFS). */
export interface ReplayGain {
  readonly trackGainDb: number | null
  readonly trackPeak: number | null
  readonly albumGainDb: number | null
  readonly albumPeak: number | null
}

/** A file's tags, normalised into what the catalogue stores. */
export interface ScannedFile extends FoundFile {
  readonly folder: string
  readonly title: string
  /** The artist text as tagged (`Alice feat. Bob`): the track's display artist. */
  readonly artist: string
  /** Every credited artist in tag order, with its role (contract "Artist credits"). */
  readonly credits: ReadonlyArray<Credit>
  /** No artist tag at all: the album's artist is credited instead (catalogRows). */
  readonly artistUntagged: boolean
  /** The album-artist text as tagged, or null. */
  readonly albumArtist: string | null
  /** The album-artist tag as credits (empty when untagged). */
  readonly albumArtistCredits: ReadonlyArray<Credit>
  readonly album: string
  /** Whether the album tag was missing (the title then came from the folder or a sibling). */
  readonly albumUntagged: boolean
  readonly compilation: boolean
  readonly trackNumber: number | null
  /** A file without a disc number is on disc 1. */
  readonly discNumber: number
  readonly discSubtitle: string | null
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
  /** MusicBrainz's release comment (disambiguation): what tells two editions apart. */
  readonly releaseComment: string | null
  readonly artistSort: string | null
  readonly albumArtistSort: string | null
  readonly albumSort: string | null
  readonly titleSort: string | null
  readonly replayGain: ReplayGain
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

const values = (tags: RawTags, name: string): ReadonlyArray<string> =>
  (tags.native?.[name] ?? []).flatMap((value) => {
    const clean = text(value)
    return clean === null ? [] : [clean]
  })

const firstValue = (tags: RawTags, name: string): string | null => values(tags, name)[0] ?? null

export const replayGainOf = (tags: RawTags): ReplayGain => ({
  trackGainDb:
    replayGainNumberOf(firstValue(tags, "REPLAYGAIN_TRACK_GAIN")) ??
    r128ToReplayGainDb(firstValue(tags, "R128_TRACK_GAIN")),
  trackPeak: replayGainNumberOf(firstValue(tags, "REPLAYGAIN_TRACK_PEAK")),
  albumGainDb:
    replayGainNumberOf(firstValue(tags, "REPLAYGAIN_ALBUM_GAIN")) ??
    r128ToReplayGainDb(firstValue(tags, "R128_ALBUM_GAIN")),
  albumPeak: replayGainNumberOf(firstValue(tags, "REPLAYGAIN_ALBUM_PEAK")),
})

export const scannedFile = (
  file: FoundFile,
  folder: string,
  tags: RawTags,
  rules: Pick<CatalogSettings, "artistSeparators">,
): ScannedFile => {
  const extension = path.posix.extname(file.path).slice(1).toLowerCase()
  const folderName = folder === "" ? null : path.posix.basename(folder)
  // Raw text: each value kept as tagged (the genre rule trims later), NUL padding and blank values dropped.
  const genres = tags.genre.map((genre) => genre.replace(/\0/g, "")).filter((genre) => genre.trim() !== "")
  const separators = rules.artistSeparators
  // The display tags: the native values when the parser kept them apart, else its common field.
  const artistTexts = values(tags, "ARTIST")
  const texts = artistTexts.length > 0 ? artistTexts : [text(tags.artist)].filter((name) => name !== null)
  const albumArtistTexts = values(tags, "ALBUMARTIST")
  const albumTexts =
    albumArtistTexts.length > 0 ? albumArtistTexts : [text(tags.albumartist)].filter((name) => name !== null)
  const albumArtistCredits = creditsOf({ names: values(tags, "ALBUMARTISTS"), texts: albumTexts }, separators)
  let credits = creditsOf({ names: values(tags, "ARTISTS"), texts }, separators)
  const albumArtist = albumTexts.length > 0 ? cleanName(albumTexts.join(", ")) : null
  // No artist tag at all: the album artist stands in (never "Various Artists" as a track artist).
  if (credits.length === 0 && albumArtist !== null && !isVariousArtists(albumArtist)) {
    credits = albumArtistCredits.length > 0 ? albumArtistCredits : splitArtistText(albumArtist, separators)
  }
  if (credits.length === 0) credits = [{ name: UNKNOWN_ARTIST, role: "main" }]
  const artist = texts.length > 0 ? cleanName(texts.join(", ")) : credits.map((credit) => credit.name).join(", ")
  const album = text(tags.album)
  return {
    ...file,
    folder,
    title: text(tags.title) ?? path.posix.basename(file.path, path.posix.extname(file.path)),
    artist,
    credits,
    artistUntagged: texts.length === 0 && values(tags, "ARTISTS").length === 0,
    albumArtist,
    albumArtistCredits,
    album: album ?? folderName ?? UNKNOWN_ALBUM,
    albumUntagged: album === null,
    compilation: tags.compilation,
    trackNumber: positive(tags.track),
    discNumber: positive(tags.disk) ?? 1,
    discSubtitle: firstValue(tags, "DISCSUBTITLE"),
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
    releaseComment: firstValue(tags, "MUSICBRAINZ_ALBUMCOMMENT"),
    artistSort: firstValue(tags, "ARTISTSORT"),
    albumArtistSort: firstValue(tags, "ALBUMARTISTSORT"),
    albumSort: firstValue(tags, "ALBUMSORT"),
    titleSort: firstValue(tags, "TITLESORT"),
    replayGain: replayGainOf(tags),
    hasPicture: tags.hasPicture,
  }
}

/** Artists are one row per name, whatever its letter case or spacing. */
export const artistKeyOf = creditKeyOf

/**
 * Albums are one row per album artist, title and MusicBrainz release (two editions never merge), or, without a
 * release id, per album artist, title and album folder (an artist's self-titled albums in two folders stay apart;
 * `CD1`/`CD2` sub-folders count as their parent, so discs join their album).
 */
export const albumKeyOf = (
  albumArtist: string,
  title: string,
  releaseMbid: string | null,
  albumFolder: string,
): string =>
  `${artistKeyOf(albumArtist)}\u001f${artistKeyOf(title)}\u001f${releaseMbid === null ? `dir:${albumFolder}` : releaseMbid.toLowerCase()}`
