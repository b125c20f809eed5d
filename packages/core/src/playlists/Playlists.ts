import { Schema } from "effect"
import { PlaylistId, TrackId } from "../ids.js"
import { Track } from "../library/Library.js"
import { PickKind, SystemVariant } from "../recommendations/kinds.js"
import { PickReason } from "../recommendations/reasons.js"

export const PlaylistEntryId = Schema.UUID.pipe(Schema.brand("PlaylistEntryId"))
export type PlaylistEntryId = typeof PlaylistEntryId.Type

/** Playlist row view (contract "Playlists"); `refreshable` is true exactly for singleton system kinds. */
export const PlaylistRowFields = {
  id: PlaylistId,
  name: Schema.String,
  track_count: Schema.Int,
  duration_ms: Schema.Int,
  system_variant: Schema.NullOr(SystemVariant),
  refreshable: Schema.Boolean,
  /** A system mix withheld below its minimum size: listed with no tracks, so a client shows its unlock placeholder. */
  locked: Schema.Boolean,
  locked_reason: Schema.NullOr(Schema.String),
  /** A smart playlist (issue 28): the server fills its entries from its rules (GET /api/smart-playlists/{id}). */
  smart: Schema.Boolean,
  updated_at: Schema.DateTimeUtc,
}
export class PlaylistRow extends Schema.Class<PlaylistRow>("PlaylistRow")(PlaylistRowFields) {}

export class PlaylistEntry extends Schema.Class<PlaylistEntry>("PlaylistEntry")({
  entry_id: PlaylistEntryId,
  position: Schema.Int,
  pick_kind: Schema.NullOr(PickKind),
  /**
   * Why the track is on a system playlist (issue 28): kind, a short line, the seed and the weighted terms
   * behind its score. Null on user playlists and on snapshot entries built before reasons were stored.
   */
  reason: Schema.NullOr(PickReason),
  track: Track,
}) {}

export class PlaylistDetail extends Schema.Class<PlaylistDetail>("PlaylistDetail")({
  ...PlaylistRowFields,
  description: Schema.NullOr(Schema.String),
  tracks: Schema.Array(PlaylistEntry),
}) {}

/** A playlist's name and description (also a smart playlist's). */
export const PlaylistName = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(200, { message: () => "name must be at most 200 characters" }),
)
export const PlaylistDescription = Schema.NullOr(Schema.String.pipe(Schema.maxLength(4000)))
const Name = PlaylistName
const Description = PlaylistDescription
/** One request may add at most this many tracks. */
export const PLAYLIST_BATCH_MAX = 5000
const TrackIds = Schema.Array(TrackId).pipe(Schema.maxItems(PLAYLIST_BATCH_MAX))
const EntryIds = Schema.Array(PlaylistEntryId).pipe(Schema.maxItems(100_000))

export const NewPlaylist = Schema.Struct({
  name: Name,
  description: Schema.optional(Description),
  track_ids: Schema.optional(TrackIds),
})
export type NewPlaylist = typeof NewPlaylist.Type

export const PlaylistPatch = Schema.Struct({
  name: Schema.optional(Name),
  description: Schema.optional(Description),
})
export type PlaylistPatch = typeof PlaylistPatch.Type

/** Append, or insert before `position` (0-based; past the end appends). */
export const AddTracks = Schema.Struct({
  track_ids: TrackIds.pipe(Schema.minItems(1)),
  position: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
})
export const RemoveEntries = Schema.Struct({ entry_ids: EntryIds.pipe(Schema.minItems(1)) })
/** The full new order: every current entry exactly once. */
export const ReorderEntries = Schema.Struct({ entry_ids: EntryIds })
