/** MIME types by file format (contract "Streaming and casting"); the stream route and cast tokens share it. */
const MIME_BY_FORMAT: Record<string, string> = {
  mp3: "audio/mpeg",
  mpeg: "audio/mpeg",
  flac: "audio/flac",
  m4a: "audio/mp4",
  aac: "audio/aac",
  ogg: "audio/ogg",
  vorbis: "audio/ogg",
  opus: "audio/opus",
  wav: "audio/wav",
  wave: "audio/wav",
}

/** Unknown formats stream as audio/mpeg (spec). */
export const mimeForFormat = (format: string): string => MIME_BY_FORMAT[format.trim().toLowerCase()] ?? "audio/mpeg"

const EXTENSION_BY_FORMAT: Record<string, string> = {
  mp3: "mp3",
  mpeg: "mp3",
  flac: "flac",
  m4a: "m4a",
  aac: "aac",
  ogg: "ogg",
  vorbis: "ogg",
  opus: "opus",
  wav: "wav",
  wave: "wav",
}

/** The extension a speaker expects on a stream URL, so it can tell format and duration. */
export const extensionForFormat = (format: string): string => EXTENSION_BY_FORMAT[format.trim().toLowerCase()] ?? "mp3"
