import { searchWordsOf } from "../library/search.js"

/**
 * Rules of the Navidrome import (issue 26; docs/decisions.md "Importing a Navidrome database"). Pure: the server
 * reads the SQLite file in a worker thread and applies these.
 */

/** More plays than this of one track are not recreated (a runaway counter is not a history). */
export const NAVIDROME_MAX_PLAYS_PER_TRACK = 5_000

/** Earlier plays are spaced at least this far apart when Navidrome does not say when the file was added. */
export const NAVIDROME_PLAY_SPACING_MS = 86_400_000

/**
 * A time as Navidrome's SQLite stores it: `2024-03-10 12:00:00`, with optional fractions and zone
 * (`…+00:00`, `…Z`), or RFC 3339 with a `T` (older rows). No zone means UTC (Navidrome writes UTC). Null for
 * empty, zero (`0000-00-00 00:00:00`) or unreadable values.
 */
export const parseNavidromeTime = (text: string | null | undefined): number | null => {
  if (text === null || text === undefined) return null
  const match =
    /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?(?:\s+[A-Z]{2,5})?$/.exec(
      text.trim(),
    )
  if (match === null) return null
  const [, y, mo, d, h, mi, s, fraction, zone] = match
  if (y === "0000") return null
  const ms = Math.floor(Number(`0${fraction ?? ""}`) * 1000)
  let offsetMinutes = 0
  if (zone !== undefined && zone !== "Z") {
    const digits = zone.replace(":", "")
    offsetMinutes = (digits.startsWith("-") ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)))
  }
  const at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms)
  return Number.isFinite(at) ? at - offsetMinutes * 60_000 : null
}

/**
 * When the plays a Navidrome play count stands for began: the last at `lastPlayedMs` (Navidrome's play_date), the
 * earlier ones spread evenly back over the time since the file was added (`addedMs`), each at least the track's
 * length apart (plays do not overlap); with no usable added time, a day apart. Times are whole seconds, so
 * importing the same database again lands on the same seconds (and adds nothing). Oldest first; empty when
 * there is no play count or no play date.
 */
export const spreadPlays = (input: {
  readonly playCount: number
  readonly lastPlayedMs: number | null
  readonly addedMs: number | null
  readonly trackDurationMs: number
}): ReadonlyArray<number> => {
  const count = Math.min(Math.max(0, Math.floor(input.playCount)), NAVIDROME_MAX_PLAYS_PER_TRACK)
  if (count === 0 || input.lastPlayedMs === null) return []
  const last = Math.floor(input.lastPlayedMs / 1000) * 1000
  const span = input.addedMs !== null && input.addedMs < last ? last - input.addedMs : null
  const minimum = Math.max(1000, Math.ceil(input.trackDurationMs / 1000) * 1000)
  const step = Math.max(span === null ? NAVIDROME_PLAY_SPACING_MS : Math.floor(span / count / 1000) * 1000, minimum)
  return Array.from({ length: count }, (_, index) => last - (count - 1 - index) * step)
}

/**
 * A media file's path relative to its library folder, `/`-separated: Navidrome before its 2025 scanner stored
 * absolute paths (stripped of the library's path, or of the longest folder prefix all paths share when no library
 * path fits); since then, paths relative to the library. Backslashes (a Windows server) become slashes.
 */
export const libraryRelativePath = (stored: string, libraryPaths: ReadonlyArray<string>, commonPrefix = ""): string => {
  const path = stored.replace(/\\/g, "/")
  for (const root of libraryPaths) {
    const prefix = `${root.replace(/\\/g, "/").replace(/\/+$/, "")}/`
    if (prefix.length > 1 && path.startsWith(prefix)) return path.slice(prefix.length)
  }
  if (commonPrefix !== "" && path.startsWith(commonPrefix)) return path.slice(commonPrefix.length)
  return path.replace(/^\/+/, "")
}

/**
 * The longest folder prefix (ending in `/`) that every absolute path shares: the library root of a database whose
 * library table does not name it. Empty when the paths are relative or share nothing.
 */
export const commonFolderOf = (paths: Iterable<string>): string => {
  let prefix: string | null = null
  for (const raw of paths) {
    const path = raw.replace(/\\/g, "/")
    if (!path.startsWith("/") && !/^[A-Za-z]:\//.test(path)) return ""
    const folder = path.slice(0, path.lastIndexOf("/") + 1)
    if (prefix === null) prefix = folder
    else {
      let end = 0
      while (end < prefix.length && end < folder.length && prefix[end] === folder[end]) end += 1
      prefix = prefix.slice(0, prefix.lastIndexOf("/", end - 1) + 1)
    }
    if (prefix === "" || prefix === "/") return ""
  }
  return prefix ?? ""
}

/** One of our libraries as the import places files in it: its id and folder. */
export interface NavidromeTarget {
  readonly id: number
  readonly folder: string
}

const slashed = (path: string) => path.replace(/\\/g, "/")

/** Whether a path is absolute (`/music/…`, or `C:/…` from a Windows server). */
export const isAbsoluteNavidromePath = (path: string): boolean => /^(?:\/|[A-Za-z]:[\\/])/.test(path)

/**
 * The library whose folder holds an absolute location (the deepest, should folders nest) and the location's path
 * within it, `/`-separated. Undefined when no folder holds it (Navidrome saw the music mounted elsewhere).
 */
export const libraryHolding = (
  location: string,
  libraries: ReadonlyArray<NavidromeTarget>,
): { readonly libraryId: number; readonly relative: string } | undefined => {
  const path = slashed(location)
  let best: { libraryId: number; relative: string; prefix: number } | undefined
  for (const library of libraries) {
    const prefix = `${slashed(library.folder).replace(/\/+$/, "")}/`
    if (prefix.length > 1 && path.startsWith(prefix) && (best === undefined || prefix.length > best.prefix))
      best = { libraryId: library.id, relative: path.slice(prefix.length), prefix: prefix.length }
  }
  return best === undefined ? undefined : { libraryId: best.libraryId, relative: best.relative }
}

/** Folder names, from the end, that two folders share (`/music` and `/srv/music` share 1). */
export const sharedFolderTail = (left: string, right: string): number => {
  const a = slashed(left)
    .split("/")
    .filter((part) => part !== "")
  const b = slashed(right)
    .split("/")
    .filter((part) => part !== "")
  let n = 0
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++
  return n
}

/**
 * Which of several libraries holding a file at the same relative path a Navidrome file is (the same album kept in
 * two libraries): the library where most files of its Navidrome library were found without doubt (`votes`), else
 * the one whose folder looks most like that Navidrome library's folder (`/srv/music` for `/music`), else the first.
 */
export const preferredLibrary = (
  candidates: ReadonlyArray<number>,
  votes: ReadonlyMap<number, number> | undefined,
  navidromeFolder: string | undefined,
  libraries: ReadonlyArray<NavidromeTarget>,
): number => {
  const sorted = [...new Set(candidates)].sort((a, b) => a - b)
  const best = (score: (id: number) => number) => {
    let found: { id: number; score: number } | undefined
    for (const id of sorted) {
      const value = score(id)
      if (value > 0 && (found === undefined || value > found.score)) found = { id, score: value }
    }
    return found?.id
  }
  const folderOf = new Map(libraries.map((library) => [library.id, library.folder]))
  return (
    best((id) => votes?.get(id) ?? 0) ??
    (navidromeFolder === undefined
      ? undefined
      : best((id) => sharedFolderTail(folderOf.get(id) ?? "", navidromeFolder))) ??
    sorted[0]!
  )
}

/** An artist name as the import compares it: search-folded words, without a leading "the". */
export const artistKeyOf = (name: string): string => {
  const words = searchWordsOf(name)
  return (words[0] === "the" && words.length > 1 ? words.slice(1) : words).join(" ")
}
