/**
 * Search text (contract "Library model", Search): what a search query and a searchable item become before they
 * are compared. Pure: the scan stores each item's document (`searchDocumentOf`), a request folds its query
 * (`searchQueryOf`), and the database compares the two (BrowseRepository.search).
 *
 * The fold: NFKD, combining marks stripped, lower case, the special letters folded the way people type them
 * (`ø` → `o`, `ß` → `ss`, as `searchKeyOf`), apostrophes removed (`Don't` → `dont`, `Sinner's` → `sinners`), and
 * any other character that is not a letter or a digit a word break. A token that punctuation split in several
 * words also gives its words joined (`AC/DC` → `ac`, `dc` and `acdc`; `R&B` → `r`, `b`, `rb`), so a document
 * answers both `ac dc` and `acdc`.
 */

/** Letters that carry no combining mark to strip, folded the way people type them (as `searchKeyOf`). */
const FOLDS: Record<string, string> = { ð: "d", đ: "d", þ: "th", æ: "ae", ø: "o", œ: "oe", ß: "ss", ł: "l", ı: "i" }

/**
 * Apostrophes and the characters typed for them: straight, curly, modifier letter, grave and acute accent (the
 * acute is removed before NFKD, which would leave a space and a combining mark of it).
 */
const APOSTROPHES = /['’‘ʼ`´]/g

/** One token (text between spaces) folded and cut at every other non-letter, non-digit character. */
const partsOf = (token: string): Array<string> => token.split(/[^\p{L}\p{N}]+/u).filter((part) => part !== "")

/** Folded tokens: the text less case, accents and apostrophes, cut at white space (punctuation kept for now). */
const foldedTokens = (text: string): Array<string> =>
  text
    .replace(APOSTROPHES, "")
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[ðđþæøœßłı]/g, (letter) => FOLDS[letter] ?? letter)
    .replace(APOSTROPHES, "")
    .split(/\s+/)
    .filter((token) => token !== "")

/**
 * The words a text is found by, in order, each once: every word of the fold, and after a token that punctuation
 * split, its words joined (`"AC/DC"` → `["ac", "dc", "acdc"]`, `"Don't Explain"` → `["dont", "explain"]`).
 */
export const searchWordsOf = (text: string): Array<string> => {
  const words: Array<string> = []
  for (const token of foldedTokens(text)) {
    const parts = partsOf(token)
    words.push(...parts)
    if (parts.length > 1) words.push(parts.join(""))
  }
  return [...new Set(words)]
}

/**
 * A field as the ranking compares it, in one or two forms: its folded words between single spaces
 * (`"Don't Explain"` → `dont explain`, `"AC/DC"` → `ac dc`), and when punctuation split a token, the same with
 * that token's words joined (`acdc`), so both `ac dc` and `acdc` equal `AC/DC`. Every word of a form is a word of
 * the document (`searchWordsOf`), so a query that starts a form matches the item.
 */
export const searchFieldsOf = (text: string): Array<string> => {
  const tokens = foldedTokens(text)
    .map(partsOf)
    .filter((parts) => parts.length > 0)
  const split = tokens.flat().join(" ")
  const joined = tokens.map((parts) => parts.join("")).join(" ")
  return split === "" ? [] : split === joined ? [split] : [split, joined]
}

/**
 * What the scan stores for an item (a track: title, album title and every credited artist name; an album: title
 * and album artist names; an artist: name):
 * - `words`: every field's words (`searchWordsOf`), each once, between single spaces with a space before the first
 *   and after the last (`" uprising the resistance muse "`), so a whole word is `LIKE '% word %'` and a word
 *   prefix `LIKE '% pre%'`, both served by a trigram index of the column itself;
 * - `fields`: every field as the ranking compares it (`searchFieldsOf`), each once, between `|` with one before the
 *   first and after the last (`"|uprising|the resistance|muse|"`): the query's words between single spaces equal
 *   to a field is `LIKE '%|the resistance|%'`, starting one `LIKE '%|the res%'` (which also makes it a match:
 *   the field's words are words of the document).
 * Both keep whole items up to SEARCH_DOCUMENT_MAX_BYTES; `words` lists no more bytes than `fields` up to any field,
 * so a field kept in `fields` has its words in `words`.
 */
export interface SearchDocument {
  readonly words: string
  readonly fields: string
}

/**
 * The most UTF-8 bytes a document column holds: later words are left out (a title of hundreds of words is found by
 * its first ones; the scan lists a track's artists and album before its title, so those stay). The database keeps
 * both columns in a btree entry beside the sort key, which must stay under PostgreSQL's ~2.7 KB.
 */
export const SEARCH_DOCUMENT_MAX_BYTES = 500

const utf8Bytes = (text: string) => {
  let bytes = 0
  for (const char of text) {
    const code = char.codePointAt(0)!
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
  }
  return bytes
}

/** `' a b c '` (`separator` " ") : the items in order while they fit in SEARCH_DOCUMENT_MAX_BYTES; "" for none. */
const joinedWithin = (items: ReadonlyArray<string>, separator: string) => {
  const kept: Array<string> = []
  let bytes = 1
  for (const item of items) {
    bytes += utf8Bytes(item) + 1
    if (bytes > SEARCH_DOCUMENT_MAX_BYTES) break
    kept.push(item)
  }
  return kept.length === 0 ? "" : `${separator}${kept.join(separator)}${separator}`
}

const documentWith = (
  fields: ReadonlyArray<string>,
  wordsOf: (text: string) => ReadonlyArray<string>,
  formsOf: (text: string) => ReadonlyArray<string>,
): SearchDocument => ({
  words: joinedWithin([...new Set(fields.flatMap(wordsOf))], " "),
  fields: joinedWithin([...new Set(fields.flatMap(formsOf))], "|"),
})

export const searchDocumentOf = (fields: ReadonlyArray<string>): SearchDocument =>
  documentWith(fields, searchWordsOf, searchFieldsOf)

/**
 * `searchDocumentOf` that folds each distinct field text once while it keeps at most `kept` of them: a scan makes
 * a document per track from the same album title and artist names a dozen times over.
 */
export const searchDocumentMaker = (kept = 4_096): ((fields: ReadonlyArray<string>) => SearchDocument) => {
  const remembered = <A>(of: (text: string) => A) => {
    const seen = new Map<string, A>()
    return (text: string): A => {
      let found = seen.get(text)
      if (found === undefined) {
        if (seen.size >= kept) seen.clear()
        found = of(text)
        seen.set(text, found)
      }
      return found
    }
  }
  const wordsOf = remembered(searchWordsOf)
  const formsOf = remembered(searchFieldsOf)
  return (fields) => documentWith(fields, wordsOf, formsOf)
}

/**
 * A query as the search compares it: its folded words in order (no joined forms: `ac/dc` asks for `ac` and
 * `dc`, which `AC/DC`'s document has), and the same between single spaces as a field (`ac dc`), for the ranking.
 * No words: an empty search (nothing but spaces and punctuation).
 */
export interface SearchQueryText {
  readonly words: ReadonlyArray<string>
  readonly field: string
}

export const searchQueryOf = (query: string): SearchQueryText => {
  const words = foldedTokens(query).flatMap(partsOf)
  return { words, field: words.join(" ") }
}

/**
 * The match rule (contract): every word matches some field of the item as a whole word, but the last, which
 * matches as a word prefix. `words` is a stored document's `words`. The database applies the same rule with
 * `LIKE` (BrowseRepository.search); this is its statement in code, for tests and for anyone reading it.
 */
export const searchMatches = (query: SearchQueryText, words: string): boolean =>
  query.words.length > 0 &&
  query.words.every((word, index) =>
    index === query.words.length - 1 ? words.includes(` ${word}`) : words.includes(` ${word} `),
  )

/**
 * The ranking tier (contract) of a match: 0 when the query equals a whole field, 1 when it starts one
 * ("all-prefix": every word as typed is a word of the field from its start, the last one as a prefix), 2
 * otherwise. `fields` is a stored document's `fields`. Ties are broken by popularity in the library, then by name
 * (BrowseRepository.search).
 */
export const searchTierOf = (query: SearchQueryText, fields: string): 0 | 1 | 2 =>
  fields.includes(`|${query.field}|`) ? 0 : fields.includes(`|${query.field}`) ? 1 : 2

/**
 * The closest items by trigram similarity are looked for when nothing matches and the query has at least this many
 * letters and digits: a shorter one shares its few trigrams with most names (any word starting like it), so its
 * "closest" items are noise, and finding them means comparing most of the library.
 */
export const SEARCH_CLOSEST_MIN_LETTERS = 4

/** Whether a query that matched nothing is long enough for its closest items (SEARCH_CLOSEST_MIN_LETTERS). */
export const searchWantsClosest = (query: SearchQueryText): boolean =>
  query.words.reduce((letters, word) => letters + [...word].length, 0) >= SEARCH_CLOSEST_MIN_LETTERS

/** Which part of one kind's ranked matches an answer holds (a Subsonic `songOffset`/`songCount`, say). */
export interface SearchWindow {
  readonly offset: number
  /** 0: the kind is not asked for. */
  readonly limit: number
}

export interface SearchWindows {
  readonly artists: SearchWindow
  readonly albums: SearchWindow
  readonly tracks: SearchWindow
}
