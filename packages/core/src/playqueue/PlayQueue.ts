import { Schema } from "effect"
import { TrackId } from "../ids.js"
import { Track } from "../library/Library.js"

/** The most entries a saved play queue holds (a larger save is 400): several days of music, a bounded row. */
export const PLAY_QUEUE_MAX_TRACKS = 5000

/**
 * The caller's play queue, shared with Subsonic `getPlayQueue`/`savePlayQueue` (one per user): what a player
 * resumes. Nothing saved yet: no tracks, `current_index` null, `changed_at`/`changed_by` null.
 */
export class SavedPlayQueue extends Schema.Class<SavedPlayQueue>("SavedPlayQueue")({
  tracks: Schema.Array(Track),
  current_index: Schema.NullOr(Schema.NonNegativeInt),
  position_ms: Schema.NonNegativeInt,
  /** The play source the queue's plays report (`album:<id>`…); null when none, or saved by a Subsonic app. */
  source: Schema.NullOr(Schema.String),
  changed_at: Schema.NullOr(Schema.DateTimeUtc),
  /** The client that saved it: a Subsonic app's `c`, or the JSON body's `changed_by`. */
  changed_by: Schema.NullOr(Schema.String),
}) {}

/** `PUT /api/me/play-queue`: the whole queue; an empty `track_ids` clears it (as savePlayQueue without ids). */
export class SavePlayQueue extends Schema.Class<SavePlayQueue>("SavePlayQueue")({
  track_ids: Schema.Array(TrackId).pipe(Schema.maxItems(PLAY_QUEUE_MAX_TRACKS)),
  /** The playing entry; absent or null: none (the queue resumes at its first entry, from the start). */
  current_index: Schema.optional(Schema.NullOr(Schema.NonNegativeInt)),
  position_ms: Schema.optional(Schema.NonNegativeInt),
  source: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
  changed_by: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))),
}) {}

export interface StoredQueue {
  readonly trackIds: ReadonlyArray<string>
  readonly currentId: string | null
  readonly currentIndex: number | null
  readonly positionMs: number
}

/**
 * Where a stored queue resumes, once the tracks that no longer exist (`known` lacks them) are left out. The
 * current entry is the stored index when it still names the current song, else the song's first entry (a
 * Subsonic save names only the song). A gone current track resumes at the next entry that remains, from its start.
 */
export const resumePoint = (
  stored: StoredQueue,
  known: ReadonlySet<string>,
): { readonly trackIds: ReadonlyArray<string>; readonly currentIndex: number | null; readonly positionMs: number } => {
  const at =
    stored.currentIndex !== null && stored.trackIds[stored.currentIndex] === stored.currentId
      ? stored.currentIndex
      : stored.currentId === null
        ? -1
        : stored.trackIds.indexOf(stored.currentId)
  const trackIds = stored.trackIds.filter((id) => known.has(id))
  if (at < 0 || trackIds.length === 0)
    return { trackIds, currentIndex: trackIds.length === 0 ? null : 0, positionMs: 0 }
  const before = stored.trackIds.slice(0, at).filter((id) => known.has(id)).length
  const kept = known.has(stored.trackIds[at]!)
  if (kept) return { trackIds, currentIndex: before, positionMs: Math.max(0, Math.round(stored.positionMs)) }
  return before < trackIds.length
    ? { trackIds, currentIndex: before, positionMs: 0 }
    : { trackIds, currentIndex: trackIds.length - 1, positionMs: 0 }
}
