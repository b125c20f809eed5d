/**
 * Artist credits and album artists (contract "Library model"): who a track and an album are credited to,
 * read from the tags with no I/O. The scanner composes these; search, browse and taste read the result.
 */
import { isVariousArtists, VARIOUS_ARTISTS } from "./albumRules.js"

export type CreditRole = "main" | "featured"

export interface Credit {
  readonly name: string
  readonly role: CreditRole
}

/**
 * The separators an artist text is split on (a setting; matched case-insensitively, spaces included, so
 * `AC/DC` stays one name while `A / B` is two). Names after a featuring separator are `featured`.
 */
export const DEFAULT_ARTIST_SEPARATORS: ReadonlyArray<string> = [" feat. ", " ft. ", " featuring ", " / ", "; "]

const FEATURING = new Set(["feat.", "ft.", "featuring"])

const isFeaturing = (separator: string) => FEATURING.has(separator.trim().toLowerCase())

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** One name as people mean it: NUL padding, stray and doubled spaces gone. */
export const cleanName = (name: string): string => name.replace(/\0/g, "").trim().replace(/\s+/g, " ")

/** The key that decides whether two spellings are one artist: letter case and spacing do not count. */
export const creditKeyOf = (name: string): string => cleanName(name).normalize("NFC").toLowerCase()

const dedupe = (credits: ReadonlyArray<Credit>): Array<Credit> => {
  const seen = new Map<string, Credit>()
  for (const credit of credits) {
    const key = creditKeyOf(credit.name)
    if (key === "") continue
    const existing = seen.get(key)
    // A name credited both ways is a main artist.
    if (existing === undefined) seen.set(key, credit)
    else if (existing.role === "featured" && credit.role === "main") seen.set(key, { ...existing, role: "main" })
  }
  return [...seen.values()]
}

/** Each separator list's pattern, made once: a scan splits two or three artist texts per file. */
const separatorPatterns = new WeakMap<ReadonlyArray<string>, RegExp | undefined>()

/** One pattern matching any of the separators (captured, so a split keeps them), or none when all are blank. */
const separatorPatternOf = (separators: ReadonlyArray<string>): RegExp | undefined => {
  if (separatorPatterns.has(separators)) return separatorPatterns.get(separators)
  const usable = separators.filter((separator) => separator.trim() !== "")
  // Longest first, so `featuring` is not read as a shorter separator inside it.
  const pattern =
    usable.length === 0
      ? undefined
      : new RegExp(
          `(${[...usable]
            .sort((a, b) => b.length - a.length)
            .map(escape)
            .join("|")})`,
          "i",
        )
  separatorPatterns.set(separators, pattern)
  return pattern
}

/** Splits one artist text on the separators: `Alice feat. Bob; Carol` → Alice (main), Bob, Carol (featured). */
export const splitArtistText = (
  text: string,
  separators: ReadonlyArray<string> = DEFAULT_ARTIST_SEPARATORS,
): Array<Credit> => {
  const pattern = separatorPatternOf(separators)
  if (pattern === undefined) return dedupe([{ name: cleanName(text), role: "main" }])
  const parts = ` ${cleanName(text)} `.split(pattern)
  const credits: Array<Credit> = []
  let role: CreditRole = "main"
  for (let i = 0; i < parts.length; i++) {
    if (i % 2 === 1) {
      // Everything after a featuring separator is featured, whatever separates the guests.
      if (isFeaturing(parts[i]!)) role = "featured"
      continue
    }
    const name = cleanName(parts[i]!)
    if (name !== "") credits.push({ name, role })
  }
  return dedupe(credits)
}

/** What the tags of one file say about its artists. */
export interface ArtistTags {
  /** The explicit multi-valued tag (ARTISTS / ALBUMARTISTS), one name per value; empty when untagged. */
  readonly names: ReadonlyArray<string>
  /** The display tag (ARTIST / ALBUMARTIST), each value as tagged; empty when untagged. */
  readonly texts: ReadonlyArray<string>
}

/**
 * A file's credits, in tag order: the explicit multi-valued tag when present (a name the display text puts after
 * a featuring separator is featured), else every display value split on the separators.
 */
export const creditsOf = (tags: ArtistTags, separators: ReadonlyArray<string> = DEFAULT_ARTIST_SEPARATORS) => {
  const fromTexts = dedupe(tags.texts.flatMap((text) => splitArtistText(text, separators)))
  const names = tags.names.map(cleanName).filter((name) => name !== "")
  if (names.length === 0) return fromTexts
  const featured = new Set(fromTexts.filter((credit) => credit.role === "featured").map((c) => creditKeyOf(c.name)))
  return dedupe(names.map((name): Credit => ({ name, role: featured.has(creditKeyOf(name)) ? "featured" : "main" })))
}

/** The display text of a credit list as it reads when untagged: `Alice, Bob feat. Carol`. */
export const displayOf = (credits: ReadonlyArray<Credit>): string => {
  const main = credits.filter((credit) => credit.role === "main").map((credit) => credit.name)
  const featured = credits.filter((credit) => credit.role === "featured").map((credit) => credit.name)
  const head = main.join(", ")
  return featured.length === 0 ? head : head === "" ? featured.join(", ") : `${head} feat. ${featured.join(", ")}`
}

/** What the album-artist rule reads of one file. */
export interface AlbumCreditTags {
  /** The file's credits (creditsOf). */
  readonly credits: ReadonlyArray<Credit>
  /** Its album-artist tag, split the same way; empty when untagged. */
  readonly albumArtists: ReadonlyArray<Credit>
  /** The album-artist display text as tagged, or null. */
  readonly albumArtistText: string | null
  readonly compilation: boolean
}

export interface AlbumArtists {
  /** The album artists in order (one "Various Artists" credit for a compilation). */
  readonly names: ReadonlyArray<string>
  /** How the album's artist reads: the tag as written, or the chosen artist's name. */
  readonly display: string
  readonly compilation: boolean
}

const various: AlbumArtists = { names: [VARIOUS_ARTISTS], display: VARIOUS_ARTISTS, compilation: true }

/**
 * The album-artist rule (contract): the album-artist tag when present (the value most of the album's files carry);
 * else Various Artists when the compilation flag is set; else the main artist credited on the most tracks when
 * they are a main artist on at least half of them; else Various Artists.
 */
export const albumArtistsOf = (files: ReadonlyArray<AlbumCreditTags>): AlbumArtists => {
  const tagged = new Map<string, { count: number; file: AlbumCreditTags }>()
  for (const file of files) {
    if (file.albumArtists.length === 0) continue
    const key = file.albumArtists.map((credit) => creditKeyOf(credit.name)).join("\u001e")
    const entry = tagged.get(key)
    if (entry === undefined) tagged.set(key, { count: 1, file })
    else entry.count++
  }
  if (tagged.size > 0) {
    const { file } = [...tagged.values()].reduce((best, entry) => (entry.count > best.count ? entry : best))
    const display = cleanName(file.albumArtistText ?? displayOf(file.albumArtists))
    if (isVariousArtists(display) || file.albumArtists.some((credit) => isVariousArtists(credit.name))) return various
    return { names: file.albumArtists.map((credit) => credit.name), display, compilation: false }
  }
  if (files.some((file) => file.compilation)) return various
  const counts = new Map<string, { count: number; name: string; first: number }>()
  files.forEach((file, index) => {
    for (const credit of file.credits) {
      if (credit.role !== "main") continue
      const key = creditKeyOf(credit.name)
      const entry = counts.get(key)
      if (entry === undefined) counts.set(key, { count: 1, name: credit.name, first: index })
      else entry.count++
    }
  })
  let best: { count: number; name: string; first: number } | undefined
  for (const entry of counts.values()) {
    if (best === undefined || entry.count > best.count || (entry.count === best.count && entry.first < best.first)) {
      best = entry
    }
  }
  if (best === undefined || best.count * 2 < files.length || isVariousArtists(best.name)) return various
  return { names: [best.name], display: best.name, compilation: false }
}

/**
 * Sort names: the sort tag wins when tagged; otherwise a leading article from the list is moved to the end
 * ("The Beatles" → "Beatles, The"). The list is a setting; this is its default.
 */
export const DEFAULT_SORT_ARTICLES: ReadonlyArray<string> = ["The", "A", "An", "El", "La", "Los", "Las", "Le", "Les"]

export const sortNameWith = (
  name: string,
  sortTag: string | null | undefined,
  articles: ReadonlyArray<string> = DEFAULT_SORT_ARTICLES,
): string => {
  const tagged = sortTag === null || sortTag === undefined ? "" : cleanName(sortTag)
  if (tagged !== "") return tagged
  const clean = cleanName(name)
  const lower = clean.toLowerCase()
  for (const article of articles) {
    const prefix = `${article.toLowerCase()} `
    if (lower.startsWith(prefix) && clean.length > prefix.length) {
      return `${clean.slice(prefix.length)}, ${clean.slice(0, article.length)}`
    }
  }
  return clean
}

/** A name's sort name by the default article list ("The Beatles" sorts as "Beatles, The"). */
export const sortNameOf = (name: string): string => sortNameWith(name, null)
