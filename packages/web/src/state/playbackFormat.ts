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
