import { clampPlayedMs, isSkip } from "@tonearm/core"

/**
 * The web player's play-reporting rules (spec "Play events"), pure so they are unit-tested without a browser.
 * The skip threshold and the clamp are the server's own (`isSkip`, `clampPlayedMs` from @tonearm/core): the
 * player only decides what it measured and which event says it.
 */

/**
 * A jump between two position updates of at least this many seconds is a seek, not listening. Media elements
 * report the position about four times a second, so steady playback (even at 1.5×) moves far less than this.
 */
export const SEEK_JUMP_SECONDS = 2

/** Milliseconds listened while the position moved from `from` to `to` seconds: steady forward playback only. */
export const listenedBetween = (from: number, to: number): number => {
  const delta = to - from
  return delta > 0 && delta < SEEK_JUMP_SECONDS ? delta * 1000 : 0
}

/** How a play closed: it ran to its end (or faded into the next), or the listener moved on before that. */
export type PlayClose = "ended" | "left"

export type PlayEnd =
  | { readonly type: "play_skipped"; readonly play_event_id: string; readonly position_ms: number }
  | { readonly type: "play_ended"; readonly play_event_id: string; readonly duration_played_ms: number }

/**
 * The event that closes a play. Leaving early is `play_skipped` at the position only while what was listened
 * still counts as a skip by the server's rule, so listening to most of a track and pressing next is a play
 * (`play_ended`). Both figures are whole milliseconds clamped to [0, track length], as the server stores them
 * (a replay after seeking back can listen longer than the track; an unknown length of 0 stores 0).
 */
export const playEnd = (
  playEventId: string,
  how: PlayClose,
  listenedMs: number,
  positionSeconds: number,
  trackLengthMs: number,
): PlayEnd => {
  const listened = clampPlayedMs(Math.round(listenedMs), trackLengthMs)
  return how === "left" && isSkip(listened, trackLengthMs)
    ? {
        type: "play_skipped",
        play_event_id: playEventId,
        position_ms: clampPlayedMs(Math.round(positionSeconds * 1000), trackLengthMs),
      }
    : { type: "play_ended", play_event_id: playEventId, duration_played_ms: listened }
}

/** The listened time an offline play keeps (sent later as `play_offline`), by the same clamp. */
export const offlinePlayedMs = (listenedMs: number, trackLengthMs: number): number =>
  clampPlayedMs(Math.round(listenedMs), trackLengthMs)
