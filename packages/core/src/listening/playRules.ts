import { Schema } from "effect"

/**
 * Play-event rules (contract "Play events"). A play is a skip when BOTH thresholds hold: it stopped
 * before 30 seconds AND before half the track. A long track abandoned at 40 s is not a skip; a 50 s
 * interlude stopped at 20 s is.
 */
export const SKIP_MAX_PLAYED_MS = 30_000
export const SKIP_MAX_PLAYED_FRACTION = 0.5

/** Played durations are clamped to [0, track length] (play_ended and play_offline alike). */
export const clampPlayedMs = (durationPlayedMs: number, trackLengthMs: number): number =>
  Math.min(Math.max(0, durationPlayedMs), Math.max(0, trackLengthMs))

export const isSkip = (durationPlayedMs: number, trackLengthMs: number): boolean => {
  const played = clampPlayedMs(durationPlayedMs, trackLengthMs)
  return played < SKIP_MAX_PLAYED_MS && played < SKIP_MAX_PLAYED_FRACTION * trackLengthMs
}

/**
 * The completion of a finished play: played / length in [0, 1]. A play with no end (null duration) or a
 * track of unknown length has no completion value; it still counts as a play (not a skip).
 */
export const completionOf = (durationPlayedMs: number | null, trackLengthMs: number): number | null => {
  if (durationPlayedMs === null || !(trackLengthMs > 0)) return null
  return clampPlayedMs(durationPlayedMs, trackLengthMs) / trackLengthMs
}

/** The device classes stored as themselves (contract); anything else non-empty is `other`. */
export const DEVICE_CLASSES = ["mobile", "tablet", "desktop", "web", "tv", "car", "speaker", "watch"] as const
export const DeviceClass = Schema.Literal(...DEVICE_CLASSES, "other")
export type DeviceClass = typeof DeviceClass.Type

const isDeviceClass = Schema.is(DeviceClass)

/**
 * The server's normalisation of a client's device class (there is no database CHECK): whitelisted values
 * match case-insensitively and are stored lowercase, any other non-empty value is `other`, and an empty or
 * absent value is null.
 */
export const normalizeDeviceClass = (raw: string | null | undefined): DeviceClass | null => {
  if (raw === null || raw === undefined) return null
  const value = raw.trim().toLowerCase()
  if (value === "") return null
  return isDeviceClass(value) ? value : "other"
}
