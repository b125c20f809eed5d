import { DateTime } from "effect"
import { splitGenres } from "../library/genres.js"
import type { AlbumRef, Artist, ReplayGain, Track } from "../library/Library.js"
import { extensionForFormat, mimeForFormat } from "../streaming/mime.js"
import { coverArtId } from "./protocol.js"
import type {
  AlbumID3,
  ArtistID3,
  ArtistID3Ref,
  Child,
  DiscTitle,
  IndexArtist,
  SubsonicReplayGain,
} from "./SubsonicModel.js"

/** What a song entry needs from its album: the year, whether it has a cover, and its album artists. */
export interface AlbumFacts {
  readonly year: number
  readonly hasCover: boolean
  /** The album artists in order (OpenSubsonic `albumArtists`). */
  readonly artists: ReadonlyArray<ArtistID3Ref>
  /** How the album artist reads (OpenSubsonic `displayAlbumArtist`). */
  readonly artistName: string
}

/** What an album entry shows beyond AlbumRef (read for the Subsonic adapter only). */
export interface AlbumExtras {
  /** What album lists sort by: ALBUMSORT when tagged, else the title less a leading article; folded. */
  readonly sortName: string
  readonly isCompilation: boolean
  /** The discs that have a subtitle (TSST / DISCSUBTITLE), in order. */
  readonly discTitles: ReadonlyArray<DiscTitle>
}

const iso = (at: DateTime.DateTime | Date) => (at instanceof Date ? at.toISOString() : DateTime.formatIso(at))
const seconds = (ms: number) => Math.round(ms / 1000)
const optional = <K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } =>
  (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V }

/** OpenSubsonic artist references: id and name only (the role of a credit is not part of the protocol). */
const artistRefs = (artists: ReadonlyArray<{ readonly id: string; readonly name: string }>): Array<ArtistID3Ref> =>
  artists.map((artist) => ({ id: artist.id, name: artist.name }))

export const albumFactsFrom = (album: AlbumRef): AlbumFacts => ({
  year: album.year,
  hasCover: album.cover_art_source !== null,
  artists: artistRefs(album.artists),
  artistName: album.artist_name,
})

/** OpenSubsonic `replayGain`: always there on a song, with only the values its tags give. */
export const subsonicReplayGainOf = (gain: ReplayGain): SubsonicReplayGain => ({
  ...optional("trackGain", gain.track_gain_db),
  ...optional("albumGain", gain.album_gain_db),
  ...optional("trackPeak", gain.track_peak),
  ...optional("albumPeak", gain.album_peak),
})

/** Subsonic's `genre` is one string: the first genre of the rule's split; OpenSubsonic `genres` lists them all. */
const genreFields = (raw: string | null) => {
  const genres = splitGenres(raw)
  return { ...optional("genre", genres[0]), genres: genres.map((name) => ({ name })) }
}

/** A virtual path (`Artist/Album/NN - Title.ext`): apps group by it; the real path is never shown. */
const virtualPath = (track: Track) => {
  const clean = (text: string) => text.replace(/[/\\]/g, "_")
  const number = track.track_number === null ? "" : `${String(track.track_number).padStart(2, "0")} - `
  return `${clean(track.artist_name)}/${clean(track.album_title)}/${number}${clean(track.title)}.${extensionForFormat(track.file_format)}`
}

/**
 * A song. The OpenSubsonic fields are always there (the spec: a supported field is sent even when empty):
 * `sortName` is TITLESORT when tagged (`sortTitle`), else the title; `musicBrainzId` "" when untagged.
 */
export const songOf = (
  track: Track,
  album: AlbumFacts | undefined,
  starred: Date | undefined,
  sortTitle: string | undefined,
  userRating?: number,
): Child => ({
  id: track.id,
  parent: track.album_id,
  isDir: false,
  title: track.title,
  album: track.album_title,
  artist: track.artist_name,
  ...optional("track", track.track_number),
  ...(album !== undefined && album.year > 0 ? { year: album.year } : {}),
  ...genreFields(track.genre),
  ...(album?.hasCover === false ? {} : { coverArt: coverArtId("album", track.album_id) }),
  size: track.size_bytes,
  contentType: mimeForFormat(track.file_format),
  suffix: extensionForFormat(track.file_format),
  duration: seconds(track.duration_ms),
  ...optional("bitRate", track.bitrate_kbps),
  path: virtualPath(track),
  isVideo: false,
  // A track with no disc number is on disc 1.
  discNumber: track.disc_number ?? 1,
  created: iso(track.added_at),
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
  ...optional("userRating", userRating),
  albumId: track.album_id,
  artistId: track.artist_id,
  type: "music",
  mediaType: "song",
  musicBrainzId: track.mbid ?? "",
  sortName: sortTitle ?? track.title,
  artists: artistRefs(track.artists),
  displayArtist: track.artist_name,
  albumArtists: album?.artists ?? [],
  displayAlbumArtist: album?.artistName ?? "",
  replayGain: subsonicReplayGainOf(track.replay_gain),
})

/**
 * `genres` undefined when the list did not look them up (album lists): the fields are left out, not emptied.
 * The OpenSubsonic fields are always there: `musicBrainzId` and `version` "" when there is none, `discTitles`
 * only the discs with a subtitle (possibly none).
 */
export const albumID3Of = (
  album: AlbumRef,
  genres: ReadonlyArray<string> | undefined,
  starred: Date | undefined,
  extras: AlbumExtras | undefined,
  userRating?: number,
): AlbumID3 => ({
  id: album.id,
  name: album.title,
  artist: album.artist_name,
  artistId: album.artist_id,
  ...(album.cover_art_source === null ? {} : { coverArt: coverArtId("album", album.id) }),
  songCount: album.track_count,
  duration: seconds(album.duration_ms),
  created: iso(album.added_at),
  ...(album.year > 0 ? { year: album.year } : {}),
  ...optional("genre", genres?.[0]),
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
  ...optional("userRating", userRating),
  musicBrainzId: album.mbid ?? "",
  ...(genres === undefined ? {} : { genres: genres.map((name) => ({ name })) }),
  sortName: extras?.sortName ?? album.title,
  artists: artistRefs(album.artists),
  displayArtist: album.artist_name,
  isCompilation: extras?.isCompilation ?? false,
  version: album.version ?? "",
  discTitles: extras?.discTitles ?? [],
})

/**
 * An album as a directory entry (getAlbumList, search2, getStarred, getMusicDirectory of an artist): its album
 * artists are both its `artists` and its `albumArtists`.
 */
export const albumChildOf = (
  album: AlbumRef,
  starred: Date | undefined,
  extras?: AlbumExtras,
  userRating?: number,
): Child => ({
  id: album.id,
  parent: album.artist_id,
  isDir: true,
  title: album.title,
  album: album.title,
  artist: album.artist_name,
  ...(album.year > 0 ? { year: album.year } : {}),
  ...(album.cover_art_source === null ? {} : { coverArt: coverArtId("album", album.id) }),
  duration: seconds(album.duration_ms),
  created: iso(album.added_at),
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
  ...optional("userRating", userRating),
  albumId: album.id,
  artistId: album.artist_id,
  mediaType: "album",
  musicBrainzId: album.mbid ?? "",
  sortName: extras?.sortName ?? album.title,
  artists: artistRefs(album.artists),
  displayArtist: album.artist_name,
  albumArtists: artistRefs(album.artists),
  displayAlbumArtist: album.artist_name,
})

export const artistID3Of = (artist: Artist, starred: Date | undefined, userRating?: number): ArtistID3 => ({
  id: artist.id,
  name: artist.name,
  coverArt: coverArtId("artist", artist.id),
  albumCount: artist.album_count,
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
  ...optional("userRating", userRating),
  musicBrainzId: artist.mbid ?? "",
  sortName: artist.sort_name,
})

export const indexArtistOf = (artist: Artist, starred: Date | undefined, userRating?: number): IndexArtist => ({
  id: artist.id,
  name: artist.name,
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
  ...optional("userRating", userRating),
})

/** Articles an index ignores (Navidrome's default list). */
export const IGNORED_ARTICLES = "The El La Los Las Le Les"

/** The index letter of an artist: the first letter of its sort name, `#` for anything that is not a letter. */
export const indexLetterOf = (sortName: string): string => {
  const first = sortName.trim().normalize("NFD").charAt(0).toUpperCase()
  return /[A-Z]/.test(first) ? first : "#"
}

/** Artists grouped under their index letters, letters in order and `#` last. */
export const indexArtists = <A>(
  artists: ReadonlyArray<{ readonly artist: Artist; readonly entry: A }>,
): Array<{ name: string; artist: Array<A> }> => {
  const groups = new Map<string, Array<A>>()
  for (const { artist, entry } of artists) {
    const letter = indexLetterOf(artist.sort_name || artist.name)
    const group = groups.get(letter) ?? []
    group.push(entry)
    groups.set(letter, group)
  }
  return [...groups.keys()]
    .sort((a, b) => (a === "#" ? 1 : b === "#" ? -1 : a < b ? -1 : a > b ? 1 : 0))
    .map((name) => ({ name, artist: groups.get(name)! }))
}
