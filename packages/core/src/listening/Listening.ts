import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"
import { PlayEventId, TrackId } from "../ids.js"
import { AlbumRef, Artist, Track } from "../library/Library.js"
import { PickKind } from "../recommendations/kinds.js"

const ClientId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))
/** A play's source: a system kind, `radio:<id>`, `album:<id>`, `artist:<id>` or `playlist:<id>`; null for none. */
const Source = Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))
const DeviceClassInput = Schema.NullOr(Schema.String.pipe(Schema.maxLength(64)))
/** Durations arrive as numbers and are clamped to [0, track length] by the server. */
const Milliseconds = Schema.Number.pipe(Schema.finite())

export const PlayStarted = Schema.Struct({
  type: Schema.Literal("play_started"),
  track_id: TrackId,
  client_id: ClientId,
  source: Schema.optional(Source),
  device_class: Schema.optional(DeviceClassInput),
})
export type PlayStarted = typeof PlayStarted.Type

export const PlayEnded = Schema.Struct({
  type: Schema.Literal("play_ended"),
  play_event_id: PlayEventId,
  duration_played_ms: Milliseconds,
})
export type PlayEnded = typeof PlayEnded.Type

export const PlaySkipped = Schema.Struct({
  type: Schema.Literal("play_skipped"),
  play_event_id: PlayEventId,
  position_ms: Milliseconds,
})
export type PlaySkipped = typeof PlaySkipped.Type

export const PlayOffline = Schema.Struct({
  type: Schema.Literal("play_offline"),
  track_id: TrackId,
  client_id: ClientId,
  /** The original start time (RFC 3339); clamped to [account creation, now + 5 minutes]. */
  at: Schema.DateTimeUtc,
  duration_played_ms: Milliseconds,
  source: Schema.optional(Source),
  device_class: Schema.optional(DeviceClassInput),
})
export type PlayOffline = typeof PlayOffline.Type

/** POST /api/events body, discriminated by `type` (contract "Play events"). */
export const PlayEventRequest = Schema.Union(PlayStarted, PlayEnded, PlaySkipped, PlayOffline)
export type PlayEventRequest = typeof PlayEventRequest.Type

export class PlayEventCreated extends Schema.Class<PlayEventCreated>("PlayEventCreated")({
  play_event_id: PlayEventId,
}) {}

/** Spec Limits: a client-supplied time may be at most 5 minutes in the future. */
export const CLIENT_CLOCK_SKEW_MS = 5 * 60_000

/** Clamps a client-supplied play time to [the user's account creation, now + 5 minutes]. */
export const clampClientTime = (atMs: number, accountCreatedMs: number, nowMs: number): number =>
  Math.min(Math.max(atMs, accountCreatedMs), nowMs + CLIENT_CLOCK_SKEW_MS)

/** One row of GET /api/me/plays (contract: listening history, newest first). */
export class PlayHistoryItem extends Schema.Class<PlayHistoryItem>("PlayHistoryItem")({
  id: PlayEventId,
  track_id: TrackId,
  started_at: Schema.DateTimeUtc,
  duration_played_ms: Schema.NullOr(Schema.Int),
  skipped: Schema.Boolean,
  source: Schema.NullOr(Schema.String),
  pick_kind: Schema.NullOr(PickKind),
  device_class: Schema.NullOr(Schema.String),
  client_id: Schema.String,
}) {}

export class PlayHistory extends Schema.Class<PlayHistory>("PlayHistory")({
  items: Schema.Array(PlayHistoryItem),
  cursor: Schema.NullOr(Schema.String),
}) {}

export const PLAY_HISTORY_DEFAULT = 50
export const PLAY_HISTORY_MAX = 500

export const PlayHistoryQuery = Schema.Struct({
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
  cursor: Schema.optional(Schema.String),
})

/** GET /api/likes (contract "Likes"). */
export class LikedItems extends Schema.Class<LikedItems>("LikedItems")({
  tracks: Schema.Array(Track),
  albums: Schema.Array(AlbumRef),
  artists: Schema.Array(Artist),
}) {}

/** GET /api/artists/{id}/top-tracks: the caller's most-played tracks of the artist, skips excluded. */
export class TopTracks extends Schema.Class<TopTracks>("TopTracks")({
  tracks: Schema.Array(Track),
}) {}
export const TOP_TRACKS_LIMIT = 20
