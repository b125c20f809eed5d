/**
 * Matching imported listens to library tracks (contract "Listening history in and out"). Pure and synchronous:
 * an import builds one index of the library in its worker thread, then asks it once per listen.
 *
 * First version: recording MBID, then folded artist + title (+ album narrowing). The fuzzy pass follows.
 */
import { isVariousArtists } from "../library/albumRules.js"
import { searchQueryOf } from "../library/search.js"

/** One library track as the matcher sees it (the import reads these from the catalogue). */
export interface MatchCandidate {
  readonly track_id: string
  readonly title: string
  /** Every credited artist name, as the scanner split them. */
  readonly artists: ReadonlyArray<string>
  readonly album_artist: string | null
  readonly album: string | null
  /** The recording MBID, when tagged. */
  readonly mbid: string | null
  readonly duration_ms: number
}

/** What one listen says about its track. */
export interface MatchQuery {
  readonly artist: string
  readonly title: string
  readonly album: string | null
  readonly recording_mbid: string | null
}

/**
 * How a listen matched: `mbid` by its recording MBID; `exact` by folded artist, title and album; `exact_no_album`
 * by folded artist and title (no album given, or none of the candidates on it); `fuzzy` by the fuzzy pass.
 */
export type MatchHow = "mbid" | "exact" | "exact_no_album" | "fuzzy"

export interface MatchResult {
  readonly track_id: string
  readonly how: MatchHow
}

interface Entry {
  readonly candidate: MatchCandidate
  readonly artistKeys: ReadonlyArray<string>
  readonly albumKey: string
  /** On an album of one of its own artists (not a compilation): preferred when candidates tie. */
  readonly own: boolean
}

/** The library as the matcher looks it up. Opaque: build it with buildMatchIndex. */
export interface MatchIndex {
  readonly byMbid: ReadonlyMap<string, ReadonlyArray<Entry>>
  readonly byTitle: ReadonlyMap<string, ReadonlyArray<Entry>>
}

/** A text as one key: the search folding's words (case, accents, apostrophes, punctuation gone), run together. */
const keyOf = (text: string): string => searchQueryOf(text).words.join("")

const artistKeysOf = (name: string): Array<string> => {
  const words = searchQueryOf(name).words
  const keys = [words.join("")]
  if (words.length > 1 && words[0] === "the") keys.push(words.slice(1).join(""))
  return keys
}

const push = <K, V>(map: Map<K, Array<V>>, key: K, value: V) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}

export const buildMatchIndex = (candidates: Iterable<MatchCandidate>): MatchIndex => {
  const byMbid = new Map<string, Array<Entry>>()
  const byTitle = new Map<string, Array<Entry>>()
  for (const candidate of candidates) {
    const credited = candidate.artists.flatMap(artistKeysOf)
    const albumArtist =
      candidate.album_artist === null || isVariousArtists(candidate.album_artist)
        ? []
        : artistKeysOf(candidate.album_artist)
    const entry: Entry = {
      candidate,
      artistKeys: [...new Set([...credited, ...albumArtist])],
      albumKey: candidate.album === null ? "" : keyOf(candidate.album),
      own: albumArtist.some((key) => credited.includes(key)),
    }
    if (candidate.mbid !== null && candidate.mbid !== "") push(byMbid, candidate.mbid.toLowerCase(), entry)
    push(byTitle, keyOf(candidate.title), entry)
  }
  return { byMbid, byTitle }
}

/** Ties: the album given, else the artist's own album, else the lowest track id (stable). */
const best = (entries: ReadonlyArray<Entry>, albumKey: string): { entry: Entry; onAlbum: boolean } => {
  const onAlbum = albumKey === "" ? [] : entries.filter((entry) => entry.albumKey === albumKey)
  const pool = onAlbum.length > 0 ? onAlbum : entries
  const own = pool.filter((entry) => entry.own)
  const chosen = (own.length > 0 ? own : pool).reduce((a, b) => (b.candidate.track_id < a.candidate.track_id ? b : a))
  return { entry: chosen, onAlbum: onAlbum.length > 0 }
}

export const matchListen = (index: MatchIndex, query: MatchQuery): MatchResult | null => {
  const albumKey = query.album === null ? "" : keyOf(query.album)
  if (query.recording_mbid !== null && query.recording_mbid !== "") {
    const byMbid = index.byMbid.get(query.recording_mbid.toLowerCase())
    if (byMbid !== undefined) return { track_id: best(byMbid, albumKey).entry.candidate.track_id, how: "mbid" }
  }
  const titled = index.byTitle.get(keyOf(query.title))
  if (titled === undefined) return null
  const artistKeys = artistKeysOf(query.artist)
  const matching = titled.filter((entry) => entry.artistKeys.some((key) => artistKeys.includes(key)))
  if (matching.length === 0) return null
  const { entry, onAlbum } = best(matching, albumKey)
  return { track_id: entry.candidate.track_id, how: onAlbum ? "exact" : "exact_no_album" }
}
