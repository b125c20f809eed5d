import { Option, Schema } from "effect"
import { searchKeyOf } from "./albumRules.js"

/**
 * Lyrics (contract "Library model": Lyrics). Read on demand from the files, never stored: a sidecar `.lrc` next
 * to the audio file (same base name), the file's own tags, a sidecar `.txt`. Everything here is pure: the
 * server reads the bytes and the tags, these rules decide what they say.
 */

export const LYRICS_SOURCES = ["embedded", "lrc", "txt"] as const
export const LyricsSource = Schema.Literal(...LYRICS_SOURCES)
export type LyricsSource = typeof LyricsSource.Type

/** One line; `start_ms` is null in unsynced lyrics. */
export const LyricLine = Schema.Struct({ start_ms: Schema.NullOr(Schema.NonNegativeInt), text: Schema.String })
export type LyricLine = typeof LyricLine.Type

/** `GET /api/tracks/{id}/lyrics`. `lang` is an ISO 639 code when the tag or the `[la:]` line names one. */
export class Lyrics extends Schema.Class<Lyrics>("Lyrics")({
  synced: Schema.Boolean,
  lang: Schema.NullOr(Schema.String),
  source: LyricsSource,
  lines: Schema.Array(LyricLine),
}) {}

/** Sidecar `.lrc` / `.txt` files larger than this are not read (no lyrics file is anywhere near it). */
export const LYRICS_SIDECAR_MAX_BYTES = 1024 * 1024

/**
 * A lyrics tag as the parse worker reads it from a file: an ID3 SYLT frame (`sylt`, its timestamps in
 * milliseconds when `millis`, else MPEG frames), or a text (ID3 USLT, Vorbis/FLAC/APE `LYRICS` or
 * `UNSYNCEDLYRICS`, MP4 `©lyr`, ASF `WM/Lyrics`), with the tag's language when it has one.
 */
export type EmbeddedLyricsTag =
  | {
      readonly kind: "sylt"
      readonly lang: string | null
      /** ID3 SYLT content type: 0 other, 1 lyrics, 2 text transcription, 3+ movements, events, chords, trivia. */
      readonly contentType: number
      readonly millis: boolean
      readonly entries: ReadonlyArray<{ readonly ms: number; readonly text: string }>
    }
  | { readonly kind: "text"; readonly lang: string | null; readonly text: string }

// ---- language ------------------------------------------------------------------------------------------

/** ISO 639 codes for "unknown" and "undetermined": no language. */
const NO_LANGUAGE: ReadonlySet<string> = new Set(["xxx", "und"])

/** A language tag as the API answers it: an ISO 639 code (optionally with subtags), lower case; `xxx`, `und`, blank or junk → null. */
export const lyricsLanguage = (raw: string | null | undefined): string | null => {
  if (raw === null || raw === undefined) return null
  // ID3 pads a missing code with NULs.
  const code = raw.replace(/\0/g, "").trim().toLowerCase()
  if (!/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/.test(code)) return null
  return NO_LANGUAGE.has(code) ? null : code
}

// ---- LRC -----------------------------------------------------------------------------------------------

/** What an LRC (or plain) text says: timed lines when it has any (`synced`), else its text lines. */
export interface ParsedLrc {
  readonly synced: boolean
  /** The `[la:]` line's language, normalised. */
  readonly lang: string | null
  /** `[offset:±ms]`, already applied to the lines' times. */
  readonly offsetMs: number
  readonly lines: ReadonlyArray<LyricLine>
}

/** A leading `[mm:ss]`, `[mm:ss.x]`, `[mm:ss.xx]`, `[mm:ss.xxx]` (a colon before the fraction is accepted too). */
const TIMESTAMP = /^\s*\[(\d{1,3}):(\d{1,2})(?:[.:](\d{1,3}))?\]/
/** Enhanced LRC's per-word times inside a line's text: dropped. */
const WORD_TIME = /<\d{1,3}:\d{1,2}(?:[.:]\d{1,3})?>/g
/** A whole-line ID tag of the LRC format (`[ar:Artist]`, `[offset:+250]`, …); other bracketed lines are lyrics. */
const ID_TAG = /^\s*\[(ar|al|ti|au|by|re|ve|tool|version|length|offset|la|lang|id|#)\s*:(.*)\]\s*$/i

const LINE_BREAK = /\r\n|\r|\n/

const fractionMs = (digits: string | undefined) =>
  digits === undefined ? 0 : Number(digits) * 10 ** (3 - digits.length)

/** Text lines with the blank ones at both ends dropped (blank lines inside separate verses and stay). */
const textLines = (lines: ReadonlyArray<string>): Array<string> => {
  const trimmed = lines.map((line) => line.trim())
  let start = 0
  let end = trimmed.length
  while (start < end && trimmed[start] === "") start++
  while (end > start && trimmed[end - 1] === "") end--
  return trimmed.slice(start, end)
}

/**
 * The LRC rule: each `[mm:ss.xx]` at a line's start times the rest of the line (several stamps repeat it at
 * each time); `[offset:±ms]` moves every time earlier by that much (positive = lyrics sooner), never below 0;
 * ID tags (`[ar:]`, `[ti:]`, `[length:]`, …) are not lyrics, `[la:]` gives the language; lines are sorted by
 * time (ties keep file order). A text with no timed line is unsynced: its lines, as written.
 */
export const parseLrc = (text: string): ParsedLrc => {
  const timed: Array<{ readonly at: number; readonly order: number; readonly text: string }> = []
  const plain: Array<string> = []
  let lang: string | null = null
  let offsetMs = 0
  for (const raw of text.split(LINE_BREAK)) {
    let rest = raw
    const times: Array<number> = []
    for (let match = TIMESTAMP.exec(rest); match !== null; match = TIMESTAMP.exec(rest)) {
      times.push(Number(match[1]) * 60_000 + Number(match[2]) * 1_000 + fractionMs(match[3]))
      rest = rest.slice(match[0].length)
    }
    if (times.length > 0) {
      const line = rest.replace(WORD_TIME, "").trim()
      for (const at of times) timed.push({ at, order: timed.length, text: line })
      continue
    }
    const tag = ID_TAG.exec(raw)
    if (tag !== null) {
      const key = tag[1]!.toLowerCase()
      const value = tag[2]!.trim()
      if (key === "offset" && /^[+-]?\d+$/.test(value)) offsetMs = Number(value)
      else if (key === "la" || key === "lang") lang = lyricsLanguage(value)
      continue
    }
    plain.push(raw)
  }
  if (timed.length === 0) {
    return { synced: false, lang, offsetMs: 0, lines: textLines(plain).map((line) => ({ start_ms: null, text: line })) }
  }
  const lines = timed
    .map((line) => ({ ...line, at: Math.max(0, line.at - offsetMs) }))
    .sort((a, b) => a.at - b.at || a.order - b.order)
    .map((line) => ({ start_ms: line.at, text: line.text }))
  return { synced: true, lang, offsetMs, lines }
}

/** LRC-formatted: at least one line starts with a `[mm:ss]` timestamp. */
export const isLrc = (text: string): boolean => text.split(LINE_BREAK).some((line) => TIMESTAMP.test(line))

const hasWords = (lines: ReadonlyArray<LyricLine>) => lines.some((line) => line.text !== "")

/**
 * A text's lyrics, from whichever source: LRC-formatted text is synced, anything else is its lines unsynced.
 * The tag's language wins over `[la:]`. None when it holds no words.
 */
export const lyricsOfText = (
  text: string,
  source: LyricsSource,
  tagLang: string | null = null,
): Option.Option<Lyrics> => {
  const parsed = parseLrc(text)
  if (!hasWords(parsed.lines)) return Option.none()
  return Option.some(
    new Lyrics({
      synced: parsed.synced,
      lang: lyricsLanguage(tagLang) ?? parsed.lang,
      source,
      lines: parsed.lines,
    }),
  )
}

// ---- ID3 SYLT --------------------------------------------------------------------------------------------

/** SYLT content types that are words to show: other, lyrics, text transcription. */
const SYLT_WORDS_MAX_CONTENT_TYPE = 2

const startsWithBreak = (text: string) => /^[\r\n]/.test(text)

/**
 * A SYLT frame's lines. Entries may be whole lines or syllables; when any entry after the first starts with a
 * line break (the ID3 convention for a new line), entries are joined into lines at those breaks and a line
 * starts at its first syllable's time. Sorted by time. Timestamps in MPEG frames cannot be placed: unsynced.
 */
export const syltLines = (tag: Extract<EmbeddedLyricsTag, { kind: "sylt" }>): ReadonlyArray<LyricLine> => {
  const entries = tag.entries
  const syllables = entries.some((entry, index) => index > 0 && startsWithBreak(entry.text))
  const grouped: Array<{ at: number; text: string }> = []
  for (const entry of entries) {
    const last = grouped[grouped.length - 1]
    if (syllables && last !== undefined && !startsWithBreak(entry.text)) last.text += entry.text
    else grouped.push({ at: entry.ms, text: entry.text })
  }
  const lines = grouped.map((line) => ({ at: Math.max(0, Math.round(line.at)), text: line.text.trim() }))
  if (!tag.millis) return lines.map((line) => ({ start_ms: null, text: line.text }))
  return lines
    .map((line, order) => ({ ...line, order }))
    .sort((a, b) => a.at - b.at || a.order - b.order)
    .map((line) => ({ start_ms: line.at, text: line.text }))
}

/**
 * The embedded rule: the first synced tag in the file (a SYLT frame in milliseconds, or a text that is
 * LRC-formatted), else the first unsynced one (USLT, `LYRICS`, …; a SYLT in MPEG frames counts here).
 * Tags with no words, and SYLT frames of chords, events or trivia, are skipped.
 */
export const embeddedLyrics = (tags: ReadonlyArray<EmbeddedLyricsTag>): Option.Option<Lyrics> => {
  const candidates: Array<Lyrics> = []
  for (const tag of tags) {
    if (tag.kind === "text") {
      Option.map(lyricsOfText(tag.text, "embedded", tag.lang), (lyrics) => candidates.push(lyrics))
    } else if (tag.contentType <= SYLT_WORDS_MAX_CONTENT_TYPE) {
      const lines = syltLines(tag)
      if (hasWords(lines)) {
        candidates.push(
          new Lyrics({ synced: tag.millis, lang: lyricsLanguage(tag.lang), source: "embedded", lines: [...lines] }),
        )
      }
    }
  }
  return Option.orElse(Option.fromNullable(candidates.find((lyrics) => lyrics.synced)), () =>
    Option.fromNullable(candidates[0]),
  )
}

// ---- source order ----------------------------------------------------------------------------------------

/** What the server found for a track; a source it did not find (or did not read) is undefined. */
export interface LyricsFound {
  readonly lrc?: string | undefined
  readonly embedded?: ReadonlyArray<EmbeddedLyricsTag> | undefined
  readonly txt?: string | undefined
}

/**
 * The source order: a sidecar `.lrc`, the file's tags (synced before unsynced, see `embeddedLyrics`), a sidecar
 * `.txt`. The first that holds lyrics answers, so a reader can stop at the first hit.
 */
export const LYRICS_SOURCE_ORDER = ["lrc", "embedded", "txt"] as const satisfies ReadonlyArray<keyof LyricsFound>

/** One source's lyrics (the `.lrc` and `.txt` sidecars are texts like any other: LRC-formatted is synced). */
export const lyricsFromSource = <K extends keyof LyricsFound>(
  source: K,
  found: NonNullable<LyricsFound[K]>,
): Option.Option<Lyrics> =>
  source === "embedded"
    ? embeddedLyrics(found as ReadonlyArray<EmbeddedLyricsTag>)
    : lyricsOfText(found as string, source as "lrc" | "txt")

/** The source-priority rule over everything found: the first source, in `LYRICS_SOURCE_ORDER`, that holds lyrics. */
export const chooseLyrics = (found: LyricsFound): Option.Option<Lyrics> => {
  for (const source of LYRICS_SOURCE_ORDER) {
    const content = found[source]
    if (content === undefined) continue
    const lyrics = lyricsFromSource(source, content)
    if (Option.isSome(lyrics)) return lyrics
  }
  return Option.none()
}

// ---- sidecar text ----------------------------------------------------------------------------------------

/**
 * A sidecar file's text: UTF-8 with its byte-order mark dropped (a UTF-16 file with a byte-order mark, as
 * Windows editors write, is read as UTF-16); bytes that are not valid UTF-8 become U+FFFD.
 */
export const decodeLyricsText = (bytes: Uint8Array): string => {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes)
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes)
  return new TextDecoder("utf-8").decode(bytes)
}

// ---- Subsonic getLyrics?artist=&title= -------------------------------------------------------------------

/** Case, accents, punctuation and spacing folded away, words kept apart. */
const matchKey = (text: string) =>
  searchKeyOf(text)
    .replace(/[^\p{L}\p{N}\s]+/gu, "")
    .replace(/\s+/g, " ")
    .trim()

/**
 * How well a track answers `getLyrics?artist=&title=`: its title must equal the asked title, ignoring case,
 * accents and punctuation; then 0 when no artist is asked or the track's artist equals it, 1 when the asked
 * artist is one of the names in the track's artist text (`Alice feat. Bob` for `Bob`); undefined: no match.
 */
export const lyricsMatchRank = (
  track: { readonly title: string; readonly artist_name: string },
  wanted: { readonly artist?: string | undefined; readonly title: string },
): number | undefined => {
  const title = matchKey(wanted.title)
  if (title === "" || matchKey(track.title) !== title) return undefined
  const artist = matchKey(wanted.artist ?? "")
  if (artist === "") return 0
  const trackArtist = matchKey(track.artist_name)
  if (trackArtist === artist) return 0
  return ` ${trackArtist} `.includes(` ${artist} `) ? 1 : undefined
}

/**
 * What `getLyrics` looks up in the library search: the title as asked, and with its punctuation folded away
 * (`Don't Stop!` → `dont stop`); the artist is checked on the results (`lyricsMatches`).
 */
export const lyricsSearchQueries = (title: string): ReadonlyArray<string> =>
  [...new Set([title.trim(), matchKey(title)])].filter((query) => query !== "")

/** The tracks that match, best first (ties keep the given order). */
export const lyricsMatches = <T extends { readonly title: string; readonly artist_name: string }>(
  tracks: ReadonlyArray<T>,
  wanted: { readonly artist?: string | undefined; readonly title: string },
): ReadonlyArray<T> =>
  tracks
    .map((track, order) => ({ track, order, rank: lyricsMatchRank(track, wanted) }))
    .filter((entry): entry is { track: T; order: number; rank: number } => entry.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .map((entry) => entry.track)
