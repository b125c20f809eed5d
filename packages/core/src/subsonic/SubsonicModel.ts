import { Schema } from "effect"

/**
 * The OpenSubsonic response shapes Tonearm emits (opensubsonic.netlify.app "Responses"), as schemas: the
 * server builds its answers as these types and the tests decode JSON answers with them. Keys are the
 * protocol's camelCase; ids are Tonearm's UUIDs as strings; times ISO 8601; durations in seconds.
 */
const opt = Schema.optional
const Str = Schema.String
const Int = Schema.Int
const Bool = Schema.Boolean

export const ItemGenre = Schema.Struct({ name: Str })

/** OpenSubsonic: an artist named in a song or album (`artists`, `albumArtists`): ArtistID3's required fields only. */
export const ArtistID3Ref = Schema.Struct({ id: Str, name: Str })
export type ArtistID3Ref = typeof ArtistID3Ref.Type

/** OpenSubsonic ReplayGain (gains in dB, peaks positive): a value is present only when it is known. */
export const SubsonicReplayGain = Schema.Struct({
  trackGain: opt(Schema.Number),
  albumGain: opt(Schema.Number),
  trackPeak: opt(Schema.Number),
  albumPeak: opt(Schema.Number),
  baseGain: opt(Schema.Number),
  fallbackGain: opt(Schema.Number),
})
export type SubsonicReplayGain = typeof SubsonicReplayGain.Type

/** OpenSubsonic DiscTitle: one disc of an album that has a subtitle. */
export const DiscTitle = Schema.Struct({ disc: Int, title: Str, coverArt: opt(Str) })
export type DiscTitle = typeof DiscTitle.Type

/** A song (or, with isDir, an album as a directory entry). */
export const Child = Schema.Struct({
  id: Str,
  parent: opt(Str),
  isDir: Bool,
  title: Str,
  album: opt(Str),
  artist: opt(Str),
  track: opt(Int),
  year: opt(Int),
  genre: opt(Str),
  coverArt: opt(Str),
  size: opt(Int),
  contentType: opt(Str),
  suffix: opt(Str),
  duration: opt(Int),
  bitRate: opt(Int),
  path: opt(Str),
  isVideo: opt(Bool),
  playCount: opt(Int),
  discNumber: opt(Int),
  created: opt(Str),
  starred: opt(Str),
  /** The caller's rating, 1–5; absent when unrated. */
  userRating: opt(Int),
  albumId: opt(Str),
  artistId: opt(Str),
  type: opt(Schema.Literal("music")),
  mediaType: opt(Schema.Literal("song", "album", "artist")),
  musicBrainzId: opt(Str),
  genres: opt(Schema.Array(ItemGenre)),
  sortName: opt(Str),
  artists: opt(Schema.Array(ArtistID3Ref)),
  displayArtist: opt(Str),
  albumArtists: opt(Schema.Array(ArtistID3Ref)),
  displayAlbumArtist: opt(Str),
  replayGain: opt(SubsonicReplayGain),
})
export type Child = typeof Child.Type

export const ArtistID3 = Schema.Struct({
  id: Str,
  name: Str,
  coverArt: opt(Str),
  albumCount: Int,
  starred: opt(Str),
  userRating: opt(Int),
  musicBrainzId: opt(Str),
  sortName: opt(Str),
})
export type ArtistID3 = typeof ArtistID3.Type

/** An artist as a directory (getIndexes, search2, getStarred). */
export const IndexArtist = Schema.Struct({ id: Str, name: Str, starred: opt(Str), userRating: opt(Int) })
export type IndexArtist = typeof IndexArtist.Type

export const AlbumID3 = Schema.Struct({
  id: Str,
  name: Str,
  artist: Str,
  artistId: Str,
  coverArt: opt(Str),
  songCount: Int,
  duration: Int,
  created: Str,
  year: opt(Int),
  genre: opt(Str),
  starred: opt(Str),
  userRating: opt(Int),
  playCount: opt(Int),
  musicBrainzId: opt(Str),
  genres: opt(Schema.Array(ItemGenre)),
  sortName: opt(Str),
  artists: opt(Schema.Array(ArtistID3Ref)),
  displayArtist: opt(Str),
  isCompilation: opt(Bool),
  version: opt(Str),
  discTitles: opt(Schema.Array(DiscTitle)),
})
export type AlbumID3 = typeof AlbumID3.Type

export const AlbumWithSongsID3 = Schema.Struct({ ...AlbumID3.fields, song: Schema.Array(Child) })
export const ArtistWithAlbumsID3 = Schema.Struct({ ...ArtistID3.fields, album: Schema.Array(AlbumID3) })

export const MusicFolders = Schema.Struct({ musicFolder: Schema.Array(Schema.Struct({ id: Int, name: Str })) })
export const Indexes = Schema.Struct({
  lastModified: Schema.Number,
  ignoredArticles: Str,
  index: Schema.Array(Schema.Struct({ name: Str, artist: Schema.Array(IndexArtist) })),
})
export const ArtistsID3 = Schema.Struct({
  /** Not in the XSD; Navidrome's, for `ifModifiedSince` (epoch milliseconds, as in Indexes). */
  lastModified: opt(Schema.Number),
  ignoredArticles: Str,
  index: Schema.Array(Schema.Struct({ name: Str, artist: Schema.Array(ArtistID3) })),
})
export const Directory = Schema.Struct({
  id: Str,
  parent: opt(Str),
  name: Str,
  starred: opt(Str),
  child: Schema.Array(Child),
})
export const ArtistInfo = Schema.Struct({
  biography: opt(Str),
  musicBrainzId: opt(Str),
  lastFmUrl: opt(Str),
  smallImageUrl: opt(Str),
  mediumImageUrl: opt(Str),
  largeImageUrl: opt(Str),
  similarArtist: Schema.Array(IndexArtist),
})
export const ArtistInfo2 = Schema.Struct({ ...ArtistInfo.fields, similarArtist: Schema.Array(ArtistID3) })
export const AlbumInfo = Schema.Struct({
  notes: opt(Str),
  musicBrainzId: opt(Str),
  lastFmUrl: opt(Str),
  smallImageUrl: opt(Str),
  mediumImageUrl: opt(Str),
  largeImageUrl: opt(Str),
})
export const AlbumList = Schema.Struct({ album: Schema.Array(Child) })
export const AlbumList2 = Schema.Struct({ album: Schema.Array(AlbumID3) })
export const Songs = Schema.Struct({ song: Schema.Array(Child) })
export const Genres = Schema.Struct({
  genre: Schema.Array(Schema.Struct({ value: Str, songCount: Int, albumCount: Int })),
})
export const SearchResult2 = Schema.Struct({
  artist: Schema.Array(IndexArtist),
  album: Schema.Array(Child),
  song: Schema.Array(Child),
})
export const SearchResult3 = Schema.Struct({
  artist: Schema.Array(ArtistID3),
  album: Schema.Array(AlbumID3),
  song: Schema.Array(Child),
})
export const Playlist = Schema.Struct({
  id: Str,
  name: Str,
  comment: opt(Str),
  owner: Str,
  public: Bool,
  songCount: Int,
  duration: Int,
  created: Str,
  changed: Str,
  coverArt: opt(Str),
  readonly: opt(Bool),
})
export type Playlist = typeof Playlist.Type
export const Playlists = Schema.Struct({ playlist: Schema.Array(Playlist) })
export const PlaylistWithSongs = Schema.Struct({ ...Playlist.fields, entry: Schema.Array(Child) })
export const Starred = SearchResult2
export const Starred2 = SearchResult3
export const NowPlayingEntry = Schema.Struct({
  ...Child.fields,
  username: Str,
  minutesAgo: Int,
  playerId: Int,
  playerName: opt(Str),
})
export const NowPlaying = Schema.Struct({ entry: Schema.Array(NowPlayingEntry) })
export const PlayQueue = Schema.Struct({
  current: opt(Str),
  position: opt(Schema.Number),
  username: Str,
  changed: Str,
  changedBy: Str,
  entry: Schema.Array(Child),
})
export const SubsonicUser = Schema.Struct({
  username: Str,
  email: opt(Str),
  scrobblingEnabled: Bool,
  adminRole: Bool,
  settingsRole: Bool,
  downloadRole: Bool,
  uploadRole: Bool,
  playlistRole: Bool,
  coverArtRole: Bool,
  commentRole: Bool,
  podcastRole: Bool,
  streamRole: Bool,
  jukeboxRole: Bool,
  shareRole: Bool,
  videoConversionRole: Bool,
  folder: Schema.Array(Int),
})
export const SubsonicScanStatus = Schema.Struct({ scanning: Bool, count: opt(Int) })
export const License = Schema.Struct({ valid: Bool, email: opt(Str), licenseExpires: opt(Str) })
export const OpenSubsonicExtension = Schema.Struct({ name: Str, versions: Schema.Array(Int) })
/** getLyrics: the lyrics as one text (every field absent when none were found). */
export const SubsonicLyrics = Schema.Struct({ artist: opt(Str), title: opt(Str), value: opt(Str) })
/** OpenSubsonic songLyrics: one line; `start` in milliseconds, only in synced lyrics. */
export const StructuredLyricsLine = Schema.Struct({ start: opt(Int), value: Str })
export const StructuredLyrics = Schema.Struct({
  displayArtist: opt(Str),
  displayTitle: opt(Str),
  lang: Str,
  offset: opt(Int),
  synced: Bool,
  line: Schema.Array(StructuredLyricsLine),
})
export type StructuredLyrics = typeof StructuredLyrics.Type
export const LyricsList = Schema.Struct({ structuredLyrics: Schema.Array(StructuredLyrics) })
/** tokenInfo (OpenSubsonic apiKeyAuthentication): whose the key is. */
export const TokenInfo = Schema.Struct({ username: Str })
export const SubsonicErrorBody = Schema.Struct({ code: Int, message: opt(Str) })

/** Every payload key a response may carry, with its shape. */
export const SubsonicPayloads = {
  musicFolders: MusicFolders,
  indexes: Indexes,
  artists: ArtistsID3,
  artist: ArtistWithAlbumsID3,
  artistInfo: ArtistInfo,
  artistInfo2: ArtistInfo2,
  album: AlbumWithSongsID3,
  albumInfo: AlbumInfo,
  song: Child,
  directory: Directory,
  albumList: AlbumList,
  albumList2: AlbumList2,
  randomSongs: Songs,
  songsByGenre: Songs,
  genres: Genres,
  searchResult2: SearchResult2,
  searchResult3: SearchResult3,
  playlists: Playlists,
  playlist: PlaylistWithSongs,
  starred: Starred,
  starred2: Starred2,
  nowPlaying: NowPlaying,
  similarSongs: Songs,
  similarSongs2: Songs,
  topSongs: Songs,
  playQueue: PlayQueue,
  user: SubsonicUser,
  scanStatus: SubsonicScanStatus,
  license: License,
  openSubsonicExtensions: Schema.Array(OpenSubsonicExtension),
  lyrics: SubsonicLyrics,
  lyricsList: LyricsList,
  tokenInfo: TokenInfo,
  error: SubsonicErrorBody,
} as const
export type SubsonicPayloadKey = keyof typeof SubsonicPayloads
export type SubsonicPayload = { readonly [K in SubsonicPayloadKey]?: (typeof SubsonicPayloads)[K]["Type"] }

/** The envelope every answer carries (`subsonic-response` in JSON, the root element in XML). */
export const SubsonicEnvelope = Schema.Struct({
  status: Schema.Literal("ok", "failed"),
  version: Str,
  type: Str,
  serverVersion: Str,
  openSubsonic: Schema.Literal(true),
})

/** A whole JSON answer: the envelope, then at most the payloads this schema knows, each in its shape. */
export const SubsonicJsonResponse = Schema.Struct({
  "subsonic-response": Schema.Struct({
    ...SubsonicEnvelope.fields,
    ...Object.fromEntries(Object.entries(SubsonicPayloads).map(([key, schema]) => [key, opt(schema)])),
  } as typeof SubsonicEnvelope.fields & { [K in SubsonicPayloadKey]: Schema.optional<(typeof SubsonicPayloads)[K]> }),
})

/** Elements whose scalar fields are text children in XML rather than attributes (subsonic-rest-api.xsd). */
export const SUBSONIC_XML_TEXT_CHILDREN: Readonly<Record<string, ReadonlyArray<string>>> = {
  artistInfo: ["biography", "musicBrainzId", "lastFmUrl", "smallImageUrl", "mediumImageUrl", "largeImageUrl"],
  artistInfo2: ["biography", "musicBrainzId", "lastFmUrl", "smallImageUrl", "mediumImageUrl", "largeImageUrl"],
  albumInfo: ["notes", "musicBrainzId", "lastFmUrl", "smallImageUrl", "mediumImageUrl", "largeImageUrl"],
}
