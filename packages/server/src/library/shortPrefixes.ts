import type { SearchQueryText, SearchWindow, SearchWindows } from "@tonearm/core"
import { Context } from "effect"

/**
 * Short prefixes answered ahead: a one-word search of at most SHORT_PREFIX_LETTERS letters (what search-as-you-type
 * sends first) is answered from a table made in one pass per library version and library set, instead of a walk
 * of the tie-order index per prefix (~7 ms each at 100k tracks, and there are hundreds of them). Shorter than
 * SEARCH_CLOSEST_MIN_LETTERS, so such a query never falls back to the closest items: no match is simply empty.
 */
export const SHORT_PREFIX_LETTERS = 2
/** The matches kept per prefix and kind: the first page of the JSON route and of Subsonic's search3. */
export const SHORT_PREFIX_KEEP = 20
/**
 * Prefixes matching fewer items than this keep no ids, only that they occur: 1 keeps them all. A rare prefix keeps
 * only its few ids, so the table holds at most the number of (item, prefix) pairs; at 100k generated tracks ~350
 * prefixes per kind occur, ~1.2 MB of ids in all. (A rare prefix was no faster searched: the planner walked the
 * tie-order index for `vs`, 38 ms.)
 */
export const SHORT_PREFIX_MIN_MATCHES = 1
/** How tables are made: the defaults above; a test raises `minMatches` so that rare prefixes are left to the search. */
export class ShortPrefixLimits extends Context.Reference<ShortPrefixLimits>()("@tonearm/server/ShortPrefixLimits", {
  defaultValue: () => ({
    letters: SHORT_PREFIX_LETTERS,
    keep: SHORT_PREFIX_KEEP,
    minMatches: SHORT_PREFIX_MIN_MATCHES,
  }),
}) {}

/** Library sets whose tables are kept at once (each listener's set: usually one or two). */
export const SHORT_PREFIX_TABLES_KEPT = 8

/** One kind's prefixes: how many items each matches, and the first ids in the search's order when kept. */
export type PrefixEntries = ReadonlyMap<
  string,
  { readonly matches: number; readonly ids: ReadonlyArray<string> | null }
>

export interface ShortPrefixTable {
  readonly version: string
  readonly artists: PrefixEntries
  readonly albums: PrefixEntries
  readonly tracks: PrefixEntries
}

/** The word a query asks for when it is a short prefix this table can answer, else undefined. */
export const shortPrefixOf = (query: SearchQueryText, letters: number): string | undefined => {
  const [word] = query.words
  return query.words.length === 1 && word !== undefined && [...word].length <= letters ? word : undefined
}

/** One kind's window of ids, or undefined when the table cannot tell (a rare prefix, or past the kept ids). */
const windowOf = (entries: PrefixEntries, word: string, window: SearchWindow): ReadonlyArray<string> | undefined => {
  if (window.limit === 0) return []
  const entry = entries.get(word)
  if (entry === undefined) return []
  if (entry.ids === null) return undefined
  const end = window.offset + window.limit
  if (end > entry.ids.length && entry.matches > entry.ids.length) return undefined
  return entry.ids.slice(window.offset, end)
}

/** The ids answering `word` in these windows from the table, or undefined when it must be searched. */
export const shortPrefixIds = (table: ShortPrefixTable, word: string, windows: SearchWindows) => {
  const artists = windowOf(table.artists, word, windows.artists)
  const albums = windowOf(table.albums, word, windows.albums)
  const tracks = windowOf(table.tracks, word, windows.tracks)
  return artists === undefined || albums === undefined || tracks === undefined ? undefined : { artists, albums, tracks }
}

/** A table from the repository's rows of each kind. */
export const prefixEntriesOf = (
  rows: ReadonlyArray<{
    readonly prefix: string
    readonly matches: number
    readonly ids: ReadonlyArray<string> | null
  }>,
): PrefixEntries => new Map(rows.map((row) => [row.prefix, { matches: Number(row.matches), ids: row.ids }]))
