import { Schema } from "effect"

/**
 * Transcoding rules (issue 11 "Transcoding"): which bytes a stream request gets, and the ffmpeg command that
 * makes them. Pure: the server's Transcoder runs the command, the Subsonic and JSON stream routes share it.
 */

/** What a client may ask for: `raw` is always the original file. */
export const TRANSCODE_FORMATS = ["mp3", "opus", "raw"] as const
export type TranscodeFormat = (typeof TRANSCODE_FORMATS)[number]
export type TargetFormat = Exclude<TranscodeFormat, "raw">

/** Bit rates (kbit/s) each encoder is held to, and what "no limit" (`maxBitRate=0` or absent) means. */
export const TRANSCODE_BITRATES: Record<
  TargetFormat,
  { readonly min: number; readonly max: number; readonly default: number }
> = {
  mp3: { min: 32, max: 320, default: 192 },
  opus: { min: 16, max: 256, default: 128 },
}

/** The format a request transcodes to when it only limits the bit rate or seeks (Subsonic's default). */
export const DEFAULT_TARGET_FORMAT: TargetFormat = "mp3"

export const TRANSCODE_MIME: Record<TargetFormat, string> = { mp3: "audio/mpeg", opus: "audio/ogg" }

/** A stream request's transcoding options, decoded. */
export interface TranscodeRequest {
  readonly format?: TranscodeFormat | undefined
  /** kbit/s; 0 or absent: no limit. */
  readonly maxBitRate?: number | undefined
  /** Seconds into the track where the output starts; 0 or absent: the start. */
  readonly timeOffset?: number | undefined
}

/** The stream route's query parameters (with the stream token's): bad values are a 400 from the schema. */
export const TranscodeParams = Schema.Struct({
  format: Schema.optional(Schema.Literal(...TRANSCODE_FORMATS)),
  maxBitRate: Schema.optional(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 100_000, { message: () => "an integer from 0" })),
  ),
  timeOffset: Schema.optional(
    Schema.NumberFromString.pipe(
      Schema.finite(),
      Schema.between(0, 1_000_000, { message: () => "seconds, zero or more" }),
    ),
  ),
})

/** The original file, as the scan indexed it. */
export interface OriginalAudio {
  /** `file_format` of the track (mp3, flac, opus, ogg, …). */
  readonly format: string
  /** Average bit rate in kbit/s, when known. */
  readonly bitrateKbps: number | null
}

export type StreamDecision =
  | { readonly _tag: "Original"; readonly reason: "raw" | "no_ffmpeg" | "not_asked" | "fits" }
  | {
      readonly _tag: "Transcode"
      readonly format: TargetFormat
      readonly bitrateKbps: number
      readonly offsetSeconds: number
    }

/** A requested bit rate held to the encoder's range; 0 or absent is the format's default. */
export const clampBitrate = (format: TargetFormat, maxBitRate: number | undefined): number => {
  const range = TRANSCODE_BITRATES[format]
  if (maxBitRate === undefined || maxBitRate <= 0) return range.default
  return Math.min(range.max, Math.max(range.min, Math.round(maxBitRate)))
}

const sameCodec = (target: TargetFormat, original: string): boolean => {
  const format = original.trim().toLowerCase()
  return target === "mp3" ? format === "mp3" || format === "mpeg" : format === "opus"
}

/**
 * Transcode or serve the original:
 * - `format=raw`, or no ffmpeg: the original (a seek is then ignored).
 * - no format: the original unless the file is above `maxBitRate` (or its rate is unknown) or a `timeOffset`
 *   asks for a seek, which transcode to mp3 (what Subsonic servers do);
 * - a format: the original when it already is that codec, no seek is asked, and its bit rate is known and
 *   within `maxBitRate` (any, when there is no limit); else that format at the clamped bit rate.
 */
export const decideStream = (
  request: TranscodeRequest,
  original: OriginalAudio,
  ffmpegAvailable: boolean,
): StreamDecision => {
  if (request.format === "raw") return { _tag: "Original", reason: "raw" }
  const limit = request.maxBitRate !== undefined && request.maxBitRate > 0 ? request.maxBitRate : undefined
  const offsetSeconds = request.timeOffset !== undefined && request.timeOffset > 0 ? request.timeOffset : 0
  const withinLimit = limit === undefined || (original.bitrateKbps !== null && original.bitrateKbps <= limit)
  if (request.format === undefined && withinLimit && offsetSeconds === 0)
    return { _tag: "Original", reason: "not_asked" }
  const format = request.format ?? DEFAULT_TARGET_FORMAT
  if (offsetSeconds === 0 && sameCodec(format, original.format) && withinLimit)
    return { _tag: "Original", reason: "fits" }
  if (!ffmpegAvailable) return { _tag: "Original", reason: "no_ffmpeg" }
  return { _tag: "Transcode", format, bitrateKbps: clampBitrate(format, limit), offsetSeconds }
}

/**
 * ffmpeg's arguments: seek before `-i` (fast, input-side), first audio stream only, no cover or tags carried
 * over, CBR mp3 or VBR opus in Ogg, written to stdout as it encodes.
 */
export const ffmpegArguments = (
  input: string,
  decision: Extract<StreamDecision, { readonly _tag: "Transcode" }>,
): ReadonlyArray<string> => [
  "-hide_banner",
  "-nostdin",
  "-loglevel",
  "error",
  ...(decision.offsetSeconds > 0 ? ["-ss", String(decision.offsetSeconds)] : []),
  "-i",
  input,
  "-map",
  "0:a:0",
  "-vn",
  "-map_metadata",
  "-1",
  ...(decision.format === "mp3"
    ? ["-c:a", "libmp3lame", "-b:a", `${decision.bitrateKbps}k`, "-write_xing", "0", "-f", "mp3"]
    : ["-c:a", "libopus", "-b:a", `${decision.bitrateKbps}k`, "-vbr", "on", "-f", "ogg"]),
  "pipe:1",
]
