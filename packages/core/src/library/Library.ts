import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"
import { AlbumId, ArtistId, TrackId } from "../ids.js"
import { LibraryFilter } from "./libraries.js"

/** YYYY-MM-DD (contract: date-only fields). */
export const DateOnly = Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/))

export class Artist extends Schema.Class<Artist>("Artist")({
  id: ArtistId,
  name: Schema.String,
  sort_name: Schema.String,
  mbid: Schema.NullOr(Schema.String),
  album_count: Schema.Int,
  track_count: Schema.Int,
  cover_url: Schema.NullOr(Schema.String),
  art_source: Schema.NullOr(Schema.String),
}) {}

/** An artist credited on a track, in tag order (contract "Artist credits"). */
export const CreditRoleSchema = Schema.Literal("main", "featured")

export class TrackArtist extends Schema.Class<TrackArtist>("TrackArtist")({
  id: ArtistId,
  name: Schema.String,
  role: CreditRoleSchema,
}) {}

/** One of an album's album artists, in order. */
export class AlbumArtist extends Schema.Class<AlbumArtist>("AlbumArtist")({
  id: ArtistId,
  name: Schema.String,
}) {}

/** ReplayGain as tagged: each null when untagged (R128 tags converted to dB relative to -18 LUFS). */
export class ReplayGain extends Schema.Class<ReplayGain>("ReplayGain")({
  track_gain_db: Schema.NullOr(Schema.Number),
  track_peak: Schema.NullOr(Schema.Number),
  album_gain_db: Schema.NullOr(Schema.Number),
  album_peak: Schema.NullOr(Schema.Number),
}) {}

/** An album reference: carried everywhere an album is listed. `year` is 0 when undated. */
export const AlbumRefFields = {
  id: AlbumId,
  title: Schema.String,
  /** The first album artist. */
  artist_id: ArtistId,
  /** How the album artist reads (the tag as written, or "Various Artists"). */
  artist_name: Schema.String,
  /** Every album artist, in order. */
  artists: Schema.Array(AlbumArtist),
  /** What tells two editions of one album apart (the release comment, else the year), or null. */
  version: Schema.NullOr(Schema.String),
  year: Schema.Int,
  release_date: Schema.NullOr(DateOnly),
  track_count: Schema.Int,
  duration_ms: Schema.Int,
  cover_url: Schema.NullOr(Schema.String),
  cover_art_source: Schema.NullOr(Schema.String),
  mbid: Schema.NullOr(Schema.String),
  added_at: Schema.DateTimeUtc,
}
export class AlbumRef extends Schema.Class<AlbumRef>("AlbumRef")(AlbumRefFields) {}

export class Track extends Schema.Class<Track>("Track")({
  id: TrackId,
  title: Schema.String,
  album_id: AlbumId,
  album_title: Schema.String,
  /** The first main credited artist. */
  artist_id: ArtistId,
  /** The track's artist text as tagged (`Alice feat. Bob`); an album's artist may be "Various Artists". */
  artist_name: Schema.String,
  /** Every credited artist in tag order, with its role. */
  artists: Schema.Array(TrackArtist),
  track_number: Schema.NullOr(Schema.Int),
  /** A track with no disc number is on disc 1. */
  disc_number: Schema.NullOr(Schema.Int),
  duration_ms: Schema.Int,
  /** The raw genre text, possibly several genres (see the genre rule). */
  genre: Schema.NullOr(Schema.String),
  file_format: Schema.String,
  bitrate_kbps: Schema.NullOr(Schema.Int),
  size_bytes: Schema.Int,
  mbid: Schema.NullOr(Schema.String),
  replay_gain: ReplayGain,
  added_at: Schema.DateTimeUtc,
}) {}

/** One disc of an album, with its subtitle (TSST / DISCSUBTITLE) when tagged. */
export class Disc extends Schema.Class<Disc>("Disc")({
  number: Schema.Int,
  subtitle: Schema.NullOr(Schema.String),
}) {}

/** Genres are derived at read time from the album's tracks with the genre rule; always an array. */
export class AlbumDetail extends Schema.Class<AlbumDetail>("AlbumDetail")({
  ...AlbumRefFields,
  tracks: Schema.Array(Track),
  /** The album's discs in order (every album has at least disc 1). */
  discs: Schema.Array(Disc),
  genres: Schema.Array(Schema.String),
}) {}

/**
 * The most albums (and, apart, appears-on albums) an artist's detail embeds: a compilation artist at 100k tracks
 * has over a thousand. The totals say how many there are; the album list (GET /api/library/albums) pages them all.
 */
export const ARTIST_DETAIL_ALBUMS_MAX = 100

export class ArtistDetail extends Schema.Class<ArtistDetail>("ArtistDetail")({
  ...Artist.fields,
  genres: Schema.Array(Schema.String),
  /** Albums where this artist is the album artist, each with its track_count (the first ARTIST_DETAIL_ALBUMS_MAX). */
  albums: Schema.Array(AlbumRef),
  /** How many albums there are in all (`albums` may hold fewer). */
  albums_total: Schema.Int,
  /** Compilations and other artists' albums this artist has tracks on (the first ARTIST_DETAIL_ALBUMS_MAX). */
  appears_on: Schema.Array(AlbumRef),
  /** How many appears-on albums there are in all. */
  appears_on_total: Schema.Int,
}) {}

export class GenreRow extends Schema.Class<GenreRow>("GenreRow")({
  genre: Schema.String,
  track_count: Schema.Int,
}) {}

export class YearRow extends Schema.Class<YearRow>("YearRow")({
  year: Schema.Int,
  album_count: Schema.Int,
}) {}

export const AlbumSort = Schema.Literal("title", "year", "added", "artist")
/** Which of an artist's albums a page lists (contract "Library model": albums, appears_on). */
export const AlbumArtistRole = Schema.Literal("album_artist", "appears_on")
export type AlbumArtistRole = typeof AlbumArtistRole.Type
export type AlbumSort = typeof AlbumSort.Type

/** Paging of GET /api/library/albums (contract): limit defaults to 50 and is clamped to 500. */
export const ALBUM_PAGE_DEFAULT = 50
export const ALBUM_PAGE_MAX = 500
export const SHUFFLE_DEFAULT = 50
export const SHUFFLE_MAX = 500
export const SEARCH_DEFAULT = 20
export const SEARCH_MAX = 100

export const AlbumQuery = Schema.Struct({
  genre: Schema.optional(Schema.String),
  year_from: Schema.optional(IntFromQuery),
  year_to: Schema.optional(IntFromQuery),
  sort: Schema.optional(AlbumSort),
  /** An artist's albums, paged to the end (their detail embeds the first ARTIST_DETAIL_ALBUMS_MAX). */
  artist_id: Schema.optional(ArtistId),
  /** With artist_id: `album_artist` (default) or `appears_on` (other albums crediting them). */
  role: Schema.optional(AlbumArtistRole),
  offset: Schema.optional(IntFromQuery.pipe(Schema.nonNegative())),
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
  /** One of the caller's libraries only (`GET /api/library/libraries`). */
  ...LibraryFilter,
})
export type AlbumQuery = typeof AlbumQuery.Type

/** The artist list (Library › Artists): A–Z by sort name, paged like the album list. */
export const ArtistQuery = Schema.Struct({
  offset: Schema.optional(IntFromQuery.pipe(Schema.nonNegative())),
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
  ...LibraryFilter,
})
export type ArtistQuery = typeof ArtistQuery.Type

export class ArtistPage extends Schema.Class<ArtistPage>("ArtistPage")({
  items: Schema.Array(Artist),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int,
}) {}

export class AlbumPage extends Schema.Class<AlbumPage>("AlbumPage")({
  items: Schema.Array(AlbumRef),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int,
}) {}

export const LimitQuery = Schema.Struct({
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
  ...LibraryFilter,
})

export class ShuffleResult extends Schema.Class<ShuffleResult>("ShuffleResult")({ tracks: Schema.Array(Track) }) {}

export const SearchQuery = Schema.Struct({
  q: Schema.String,
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
  ...LibraryFilter,
})

export class SearchResult extends Schema.Class<SearchResult>("SearchResult")({
  artists: Schema.Array(Artist),
  albums: Schema.Array(AlbumRef),
  tracks: Schema.Array(Track),
}) {}

export const CoverQuery = Schema.Struct({
  size: Schema.optional(IntFromQuery.pipe(Schema.between(16, 2048))),
})

/** A cover provider and how many albums it covers (GET /api/admin/cover-sources). */
export class CoverProvider extends Schema.Class<CoverProvider>("CoverProvider")({
  id: Schema.String,
  enabled: Schema.Boolean,
  covered_albums: Schema.Int,
  /** Artists whose image comes from this provider (`sidecar`: an `artist.*` in their folder). 0 from older servers. */
  covered_artists: Schema.optionalWith(Schema.Int, { default: () => 0 }),
}) {}

/** An album counts as covered when its cover_art_source is any valid source, external providers included. */
export class CoverCoverage extends Schema.Class<CoverCoverage>("CoverCoverage")({
  albums: Schema.Int,
  covered: Schema.Int,
  by_source: Schema.Record({ key: Schema.String, value: Schema.Int }),
  /** The same roll-up for artist images: present artists, those with an image of a valid source, and per source. */
  artists: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  covered_artists: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  artists_by_source: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Int }), {
    default: () => ({}),
  }),
}) {}

export class CoverSources extends Schema.Class<CoverSources>("CoverSources")({
  providers: Schema.Array(CoverProvider),
  coverage: CoverCoverage,
}) {}

/** Cover providers Tonearm knows (contract): local ones read at scan time, external ones by enrichment. */
export const LOCAL_COVER_PROVIDERS = ["sidecar", "embedded"] as const
export const EXTERNAL_COVER_PROVIDERS = ["coverartarchive", "lastfm"] as const
