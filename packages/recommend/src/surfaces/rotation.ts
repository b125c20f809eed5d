import type { TrackId } from "@tonearm/core"
import { Effect } from "effect"
import { shuffled } from "./select.js"

/**
 * The system shuffle (spec "Rotation state"): tracks not yet heard this rotation (shuffled), then the
 * heard ones (shuffled). When every snapshot track is already in the set the rotation resets: the state
 * is cleared (the server writes that) and the full list is reshuffled.
 */
export const rotationShuffle = <A extends { readonly track_id: TrackId }>(
  tracks: ReadonlyArray<A>,
  playedTrackIds: ReadonlySet<TrackId>,
): Effect.Effect<{ readonly tracks: ReadonlyArray<A>; readonly reset: boolean }> =>
  Effect.gen(function* () {
    const fresh = tracks.filter((track) => !playedTrackIds.has(track.track_id))
    if (tracks.length > 0 && fresh.length === 0) return { tracks: yield* shuffled(tracks), reset: true }
    const heard = tracks.filter((track) => playedTrackIds.has(track.track_id))
    return { tracks: [...(yield* shuffled(fresh)), ...(yield* shuffled(heard))], reset: false }
  })
