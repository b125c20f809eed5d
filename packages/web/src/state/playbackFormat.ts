/**
 * Which bytes the web player asks for (issue 25 item 4), and when two tracks crossfade (item 5). Pure: the browser's
 * answer to `canPlayType` comes in as a function, so the rules are tested without a browser.
 */

/** The original file, or a transcode by the server's stream route (`?format=opus|mp3`). */
export type StreamChoice = "original" | "opus" | "mp3"

/** Whether the browser says it can play a MIME type (`canPlayType` answered "maybe" or "probably"). */
export type CanPlay = (mime: string) => boolean

/**
 * The MIME type to ask the browser about, by `file_format`. A format missing here (wma, ape, wv, aiff, dsf…) is
 * one no browser plays: it is transcoded from the start. m4a (AAC or ALAC) and wav (PCM or ADPCM) name a container
 * whose codec the track does not expose: the original is tried and the decode error falls back to a transcode.
 */
const MIME_BY_FORMAT: Readonly<Record<string, string>> = {
  mp3: "audio/mpeg",
  mpeg: "audio/mpeg",
  flac: "audio/flac",
  m4a: "audio/mp4",
  mp4: "audio/mp4",
  aac: "audio/aac",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  vorbis: "audio/ogg",
  opus: 'audio/ogg; codecs="opus"',
  webm: "audio/webm",
  wav: "audio/wav",
  wave: "audio/wav",
}

const OPUS_MIME = 'audio/ogg; codecs="opus"'

/** The transcode this browser gets: opus (smaller at the same quality) where it plays Ogg Opus, else mp3. */
export const transcodeTarget = (canPlay: CanPlay): "opus" | "mp3" => (canPlay(OPUS_MIME) ? "opus" : "mp3")

/** The first try for a track: its original when the browser plays that format, else the transcode. */
export const firstChoice = (fileFormat: string, canPlay: CanPlay): StreamChoice => {
  const mime = MIME_BY_FORMAT[fileFormat.trim().toLowerCase()]
  return mime !== undefined && canPlay(mime) ? "original" : transcodeTarget(canPlay)
}

/** Whether the server would answer `?format=target` with the original bytes (it does when the codec is the same). */
const sameCodec = (target: "opus" | "mp3", fileFormat: string) => {
  const format = fileFormat.trim().toLowerCase()
  return target === "mp3" ? format === "mp3" || format === "mpeg" : format === "opus"
}

/**
 * The one fallback after `tried` failed to load or decode: a transcode when the original failed (the other target
 * when the preferred one is the file's own codec, as the server would then send the same bytes again), none after
 * a transcode failed: the track is skipped.
 */
export const fallbackChoice = (fileFormat: string, tried: StreamChoice, canPlay: CanPlay): StreamChoice | undefined => {
  if (tried !== "original") return undefined
  const target = transcodeTarget(canPlay)
  if (!sameCodec(target, fileFormat)) return target
  const other = target === "opus" ? "mp3" : "opus"
  return other === "mp3" || canPlay(OPUS_MIME) ? other : undefined
}

/** The stream route's query for a choice (`timeOffset` only for a transcode: the original seeks with Range). */
export const streamOptions = (
  choice: StreamChoice,
  offsetSeconds = 0,
): { readonly format?: "opus" | "mp3"; readonly timeOffset?: number } =>
  choice === "original"
    ? {}
    : offsetSeconds > 0
      ? { format: choice, timeOffset: Math.round(offsetSeconds * 1000) / 1000 }
      : { format: choice }

// ---- a transcode cut off mid-way -----------------------------------------------------------------------------------

/** How far a re-asked transcode must get before another break counts as a new drop rather than the re-ask failing. */
export const DROP_MIN_PROGRESS_SECONDS = 1
/** A transcode that stops within this much of the track's scanned length has reached its end. */
export const DROP_END_SLACK_SECONDS = 2

/** What to do when a transcode's stream broke: ask it again from `at`, end the track, or give it up. */
export type DropRecovery =
  | { readonly _tag: "reask"; readonly at: number }
  | { readonly _tag: "finished" }
  | { readonly _tag: "give_up" }

/**
 * A transcode has no Range, so a browser cannot fetch the rest of one whose connection ended (the server cuts a
 * connection that took no bytes for a minute: a long pause on a track longer than the browser's buffer). Chromium
 * then plays what it had and reports the track `ended` early, or an error. A stream that had delivered audio is
 * asked again from the position reached (`timeOffset`), once per stretch of progress: when the re-asked stream
 * breaks again before getting `DROP_MIN_PROGRESS_SECONDS` further, or a stream broke before delivering anything
 * (a load failure), it is given up (an error skips the track; an early end goes on to the next). An original is
 * not a drop (it has its own fallback), and a break within `DROP_END_SLACK_SECONDS` of the end is the track's end.
 */
export const recoverDrop = (stream: {
  readonly choice: StreamChoice
  /** The element had the stream's metadata (it delivered audio) before it broke. */
  readonly delivered: boolean
  /** Seconds into the track reached (the stream's offset plus the element's time). */
  readonly position: number
  /** The track's scanned length in seconds (0 when unknown). */
  readonly duration: number
  /** Where this track's stream was last asked again after a drop, if it was. */
  readonly reaskedAt: number | undefined
  /** The element says the stream ended (rather than failing). */
  readonly ended: boolean
}): DropRecovery => {
  if (stream.choice === "original" || !stream.delivered || !Number.isFinite(stream.position))
    return stream.ended ? { _tag: "finished" } : { _tag: "give_up" }
  const known = stream.duration > 0
  if ((stream.ended && !known) || (known && stream.position >= stream.duration - DROP_END_SLACK_SECONDS))
    return { _tag: "finished" }
  if (stream.reaskedAt !== undefined && stream.position < stream.reaskedAt + DROP_MIN_PROGRESS_SECONDS)
    return { _tag: "give_up" }
  return { _tag: "reask", at: Math.max(0, stream.position) }
}

// ---- crossfade --------------------------------------------------------------------------------------------------

export const CROSSFADE_MAX_SECONDS = 12

/** A stored setting, held to 0–12 whole seconds (anything unreadable is off). */
export const parseCrossfade = (stored: string | null): number => {
  const seconds = Number(stored ?? "0")
  if (!Number.isFinite(seconds)) return 0
  return Math.min(CROSSFADE_MAX_SECONDS, Math.max(0, Math.round(seconds)))
}

interface FadeTrack {
  readonly album_id: string
  readonly duration_ms: number
}

/**
 * How long `from` fades into `to`: the setting, except never between two tracks of one album (an album plays
 * gapless, as mastered) and never longer than half of either track.
 */
export const crossfadeSeconds = (setting: number, from: FadeTrack, to: FadeTrack | undefined): number => {
  if (setting <= 0 || to === undefined || from.album_id === to.album_id) return 0
  return Math.max(0, Math.min(setting, from.duration_ms / 2000, to.duration_ms / 2000))
}

/** Equal-power fade at `progress` (0–1): the outgoing and incoming levels, so the sum stays as loud. */
export const fadeLevels = (progress: number): { readonly out: number; readonly in: number } => {
  const p = Math.min(1, Math.max(0, progress))
  return { out: Math.cos((p * Math.PI) / 2), in: Math.sin((p * Math.PI) / 2) }
}
