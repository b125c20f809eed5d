/**
 * Export records → listens (contract "Listening history in and out"). Pure: each function takes one parsed JSON
 * record and says what it is. A record that is not of its format at all is `invalid` (a file made of them is not
 * that export); one of the format without artist or title is `incomplete` (listed as unmatched); Spotify's podcast
 * and video entries are `ignored` (not music: not counted).
 */
import { Either, Schema } from "effect"
import type { Listen } from "./Imports.js"

export type ParsedRecord =
  | { readonly _tag: "listen"; readonly listen: Listen }
  | {
      readonly _tag: "incomplete"
      readonly artist: string
      readonly title: string
      readonly album: string | null
      readonly started_at_ms: number
    }
  | { readonly _tag: "ignored" }
  | { readonly _tag: "invalid" }

const INVALID: ParsedRecord = { _tag: "invalid" }
const IGNORED: ParsedRecord = { _tag: "ignored" }

const OptionalText = Schema.optional(Schema.NullOr(Schema.String))
const OptionalNumber = Schema.optional(Schema.NullOr(Schema.Number))
const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const text = (value: string | null | undefined): string => (value ?? "").trim()
const textOrNull = (value: string | null | undefined): string | null => {
  const trimmed = text(value)
  return trimmed === "" ? null : trimmed
}
const mbidOrNull = (value: string | null | undefined): string | null => {
  const trimmed = text(value).toLowerCase()
  return MBID.test(trimmed) ? trimmed : null
}
const playedOrNull = (value: number | null | undefined): number | null =>
  value === null || value === undefined || !Number.isFinite(value) || value < 0 ? null : Math.round(value)

/** Earliest and latest listen times accepted (1990 … 2200): anything outside is a broken record. */
const MIN_MS = Date.UTC(1990, 0, 1)
const MAX_MS = Date.UTC(2200, 0, 1)
const plausible = (ms: number) => Number.isFinite(ms) && ms >= MIN_MS && ms <= MAX_MS

const finish = (
  artist: string,
  title: string,
  album: string | null,
  recording_mbid: string | null,
  started_at_ms: number,
  ms_played: number | null,
): ParsedRecord =>
  artist === "" || title === ""
    ? { _tag: "incomplete", artist, title, album, started_at_ms }
    : { _tag: "listen", listen: { artist, title, album, recording_mbid, started_at_ms, ms_played } }

// ListenBrainz: `listened_at` in epoch seconds; the recording MBID in `additional_info` or in the newer
// exports' `mbid_mapping`. Tonearm's own export adds the milliseconds played.
const ListenBrainzRecord = Schema.Struct({
  listened_at: Schema.Number,
  track_metadata: Schema.Struct({
    artist_name: OptionalText,
    track_name: OptionalText,
    release_name: OptionalText,
    additional_info: Schema.optional(
      Schema.NullOr(
        Schema.Struct({
          recording_mbid: OptionalText,
          tonearm_duration_played_ms: OptionalNumber,
          tonearm_track_id: OptionalText,
        }),
      ),
    ),
    mbid_mapping: Schema.optional(Schema.NullOr(Schema.Struct({ recording_mbid: OptionalText }))),
  }),
})
const decodeListenBrainz = Schema.decodeUnknownEither(ListenBrainzRecord)

export const listenBrainzRecord = (record: unknown): ParsedRecord => {
  const decoded = decodeListenBrainz(record)
  if (Either.isLeft(decoded)) return INVALID
  const { listened_at, track_metadata: meta } = decoded.right
  const startedAt = Math.floor(listened_at) * 1000
  if (!plausible(startedAt)) return INVALID
  const info = meta.additional_info ?? undefined
  const parsed = finish(
    text(meta.artist_name),
    text(meta.track_name),
    textOrNull(meta.release_name),
    mbidOrNull(info?.recording_mbid) ?? mbidOrNull(meta.mbid_mapping?.recording_mbid),
    startedAt,
    playedOrNull(info?.tonearm_duration_played_ms),
  )
  const tonearmTrack = mbidOrNull(info?.tonearm_track_id)
  return parsed._tag === "listen" && tonearmTrack !== null
    ? { _tag: "listen", listen: { ...parsed.listen, tonearm_track_id: tonearmTrack } }
    : parsed
}

// Spotify's extended streaming history: `ts` is when the stream ENDED, so the listen started `ms_played` earlier.
// Entries without a track name are podcast episodes, audiobooks or videos.
const SpotifyExtendedRecord = Schema.Struct({
  ts: Schema.String,
  ms_played: Schema.Number,
  master_metadata_track_name: OptionalText,
  master_metadata_album_artist_name: OptionalText,
  master_metadata_album_album_name: OptionalText,
})
// The shorter "account data" history (StreamingHistory_music_*.json): `endTime` "YYYY-MM-DD HH:mm" in UTC.
const SpotifyAccountRecord = Schema.Struct({
  endTime: Schema.String,
  msPlayed: Schema.Number,
  artistName: OptionalText,
  trackName: OptionalText,
})
const decodeSpotifyExtended = Schema.decodeUnknownEither(SpotifyExtendedRecord)
const decodeSpotifyAccount = Schema.decodeUnknownEither(SpotifyAccountRecord)

export const spotifyRecord = (record: unknown): ParsedRecord => {
  const extended = decodeSpotifyExtended(record)
  if (Either.isRight(extended)) {
    const entry = extended.right
    const endedAt = Date.parse(entry.ts)
    const played = playedOrNull(entry.ms_played) ?? 0
    if (!plausible(endedAt)) return INVALID
    const title = text(entry.master_metadata_track_name)
    if (title === "") return IGNORED
    return finish(
      text(entry.master_metadata_album_artist_name),
      title,
      textOrNull(entry.master_metadata_album_album_name),
      null,
      endedAt - played,
      played,
    )
  }
  const account = decodeSpotifyAccount(record)
  if (Either.isLeft(account)) return INVALID
  const entry = account.right
  const endedAt = Date.parse(`${entry.endTime.replace(" ", "T")}Z`)
  const played = playedOrNull(entry.msPlayed) ?? 0
  if (!plausible(endedAt)) return INVALID
  const title = text(entry.trackName)
  if (title === "") return IGNORED
  return finish(text(entry.artistName), title, null, null, endedAt - played, played)
}

/** Which file source reads a record. */
export type FileFormat = "listenbrainz_export" | "spotify_extended"

export const parseRecord = (format: FileFormat, record: unknown): ParsedRecord =>
  format === "listenbrainz_export" ? listenBrainzRecord(record) : spotifyRecord(record)

/**
 * Which entries of an uploaded zip hold listens: Spotify's audio history files (video history left out), and a
 * ListenBrainz export's `listens/…` JSON lines (its user, feedback and pin files left out).
 */
export const isListensEntry = (format: FileFormat, name: string): boolean => {
  const base = name.slice(name.lastIndexOf("/") + 1)
  if (name.startsWith("__MACOSX/") || base.startsWith(".")) return false
  if (format === "spotify_extended")
    return /^Streaming_History_Audio_.*\.json$/i.test(base) || /^StreamingHistory_?music_\d+\.json$/i.test(base)
  return (
    /(^|\/)listens\/.*\.jsonl?$/i.test(name) ||
    (/\.jsonl?$/i.test(base) && !/^(user|feedback|pinned|stats)/i.test(base))
  )
}

/** One play as `GET /api/me/plays/export` writes it. */
export interface ExportPlay {
  readonly started_at_ms: number
  readonly artist: string
  readonly title: string
  readonly album: string | null
  readonly recording_mbid: string | null
  readonly track_duration_ms: number
  readonly duration_played_ms: number | null
  readonly track_id: string
  readonly source: string | null
  readonly skipped: boolean
}

/**
 * One export line: a ListenBrainz listen (`listened_at` in seconds, `track_metadata`), with Tonearm's own facts in
 * `additional_info` (`tonearm_*`) so the import reads back the milliseconds played.
 */
export const exportLine = (play: ExportPlay): string =>
  JSON.stringify({
    listened_at: Math.floor(play.started_at_ms / 1000),
    track_metadata: {
      artist_name: play.artist,
      track_name: play.title,
      release_name: play.album,
      additional_info: {
        recording_mbid: play.recording_mbid,
        duration_ms: play.track_duration_ms,
        tonearm_track_id: play.track_id,
        tonearm_source: play.source,
        tonearm_skipped: play.skipped,
        tonearm_duration_played_ms: play.duration_played_ms,
        submission_client: "Tonearm",
      },
    },
  })
