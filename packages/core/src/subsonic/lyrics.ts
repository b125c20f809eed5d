import type { Lyrics } from "../library/lyrics.js"
import type { StructuredLyrics } from "./SubsonicModel.js"

/** What the lyrics answers say about the song. */
export interface LyricsSong {
  readonly title: string
  readonly artist_name: string
}

/** OpenSubsonic's word for an unknown language (its `lang` is required). */
export const SUBSONIC_UNKNOWN_LANGUAGE = "xxx"

/**
 * OpenSubsonic songLyrics (`getLyricsBySongId`): one structured entry. Times are already moved by the LRC
 * `[offset:]`, so `offset` is 0; unsynced lines carry no `start`.
 */
export const structuredLyricsOf = (lyrics: Lyrics, song: LyricsSong): StructuredLyrics => ({
  displayArtist: song.artist_name,
  displayTitle: song.title,
  lang: lyrics.lang ?? SUBSONIC_UNKNOWN_LANGUAGE,
  offset: 0,
  synced: lyrics.synced,
  line: lyrics.lines.map((line) =>
    line.start_ms === null ? { value: line.text } : { start: line.start_ms, value: line.text },
  ),
})

/** Classic `getLyrics`: the song's artist and title, and the lines as one text (times dropped). */
export const classicLyricsOf = (lyrics: Lyrics, song: LyricsSong) => ({
  artist: song.artist_name,
  title: song.title,
  value: lyrics.lines.map((line) => line.text).join("\n"),
})
