import { DateTime } from "effect"
import { splitGenres } from "../library/genres.js"
import type { AlbumRef, Artist, Track } from "../library/Library.js"
import { extensionForFormat, mimeForFormat } from "../streaming/mime.js"
import { coverArtId } from "./protocol.js"
import type { AlbumID3, ArtistID3, Child, IndexArtist } from "./SubsonicModel.js"

/** What a song entry needs from its album: the year and whether it has a cover. */
export interface AlbumFacts {
  readonly year: number
  readonly hasCover: boolean
}

const iso = (at: DateTime.DateTime | Date) => (at instanceof Date ? at.toISOString() : DateTime.formatIso(at))
const seconds = (ms: number) => Math.round(ms / 1000)
const optional = <K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } =>
  (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V }

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

export const songOf = (track: Track, album: AlbumFacts | undefined, starred: Date | undefined): Child => ({
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
  ...optional("discNumber", track.disc_number),
  created: iso(track.added_at),
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
  albumId: track.album_id,
  artistId: track.artist_id,
  type: "music",
  mediaType: "song",
  ...optional("musicBrainzId", track.mbid),
})

/** `genres` undefined when the list did not look them up (album lists): the fields are left out, not emptied. */
export const albumID3Of = (
  album: AlbumRef,
  genres: ReadonlyArray<string> | undefined,
  starred: Date | undefined,
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
  ...optional("musicBrainzId", album.mbid),
  ...(genres === undefined ? {} : { genres: genres.map((name) => ({ name })) }),
})

/** An album as a directory entry (getAlbumList, search2, getStarred, getMusicDirectory of an artist). */
export const albumChildOf = (album: AlbumRef, starred: Date | undefined): Child => ({
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
  albumId: album.id,
  artistId: album.artist_id,
  mediaType: "album",
  ...optional("musicBrainzId", album.mbid),
})

export const artistID3Of = (artist: Artist, starred: Date | undefined): ArtistID3 => ({
  id: artist.id,
  name: artist.name,
  coverArt: coverArtId("artist", artist.id),
  albumCount: artist.album_count,
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
  ...optional("musicBrainzId", artist.mbid),
  sortName: artist.sort_name,
})

export const indexArtistOf = (artist: Artist, starred: Date | undefined): IndexArtist => ({
  id: artist.id,
  name: artist.name,
  ...optional("starred", starred === undefined ? undefined : starred.toISOString()),
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
