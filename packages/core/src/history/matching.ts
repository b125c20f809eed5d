/**
 * Matching imported listens to library tracks (contract "Listening history in and out"). Pure and synchronous:
 * an import builds one index of the library in its worker thread (`buildMatchIndex`), then asks it once per
 * listen (`matchListen`). A wrong match puts a play of the wrong song into someone's history, a missed one only
 * lists the listen as unmatched, so every step prefers no match to a doubtful one.
 *
 * The passes, first answer wins:
 * 1. `mbid`: the listen's recording MBID is a track's.
 * 2. `exact` / `exact_no_album`: the folded title equals a track's, and the folded artist is the track's (below).
 *    Folding is the search folding (`searchQueryOf`: case, accents, apostrophes and punctuation gone), the words
 *    then run together (`AC/DC` = `ACDC`); a leading "The" is optional and "and" reads as "&".
 * 3. `fuzzy`, conservative: the titles equal once version suffixes are dropped on both sides (`(Remastered 2011)`,
 *    `- 2011 Remaster`, `(feat. X)`, `- Radio Edit`, `(Mono)`, …; remixes, demos, acoustic takes stay other
 *    songs; `(Live)` only when the artist has no live take of the song, and a studio listen never takes a live
 *    track); else one typo (a letter changed, added, dropped, or two swapped) in a title of FUZZY_MIN_LETTERS or
 *    more, numbers alike, when exactly one title of the artist is that close; else one typo in an artist name of
 *    FUZZY_MIN_LETTERS or more, when exactly one artist with that title is that close.
 * The artist: a listen's artist text is the track's first credited artist or its album artist; or it reads as a
 * credit list (`A feat. B`, `A & B`, `A, B`, `A x B`, split with credits.ts) whose own artists (those before a
 * "feat.") are all credited, the first one first; a closer reading beats a looser one (artistTier). A guest alone,
 * or one name of a duet, takes the track only when the listen also names its album.
 * Candidates that tie: the album given (editions such as "(Deluxe Edition)" ignored) when one of them is on it;
 * else the one on an album of its own artist (not a compilation); else the lowest track id, so a re-run agrees.
 * The album never blocks a match: a listen whose album differs still matches when the artist and title do.
 *
 * Speed and memory (`pnpm bench:history-match`: 88k tracks of the synthetic library with credits, 1M listens, one
 * thread, on a 2-core machine at load 11): 85k listens per CPU second (40k/s by the wall clock); the index takes
 * about 70 MB of heap beyond the candidates themselves (840 B per track: folded keys, most shared between tracks,
 * the maps by title, artist and MBID, the per-artist groups of shared titles and the artist-typo neighbours; that
 * library shares every title among ~100 tracks, a real one much less). The folding caches (`remembered`) hold at
 * most 50k texts each.
 */
import { isVariousArtists } from "../library/albumRules.js"
import { DEFAULT_ARTIST_SEPARATORS, splitArtistText } from "../library/credits.js"
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

/** A title needs this many letters and digits (folded) before a typo in it is forgiven. */
export const FUZZY_MIN_LETTERS = 8

/** Who a candidate is by, as folded keys (each name with and without a leading "the"). */
interface EntryArtists {
  /** The first credited artist: whose song it is. */
  readonly first: ReadonlyArray<string>
  /** The first credited artist and the album artist (unless Various Artists, or the first name is a list). */
  readonly main: ReadonlyArray<string>
  /** The other credited artists (guests, second names). */
  readonly others: ReadonlyArray<string>
  /** When the first credited name reads as a list (`A & B`, `A x B`), its first name (`A`). */
  readonly lead: ReadonlyArray<string>
  /** Every name inside credited names that read as lists. */
  readonly parts: ReadonlyArray<string>
  /** On an album of one of its own artists (not a compilation): preferred when candidates tie. */
  readonly own: boolean
}

/** What the index keeps of one candidate. */
interface Entry {
  readonly candidate: MatchCandidate
  readonly by: EntryArtists
  /** The album's folded key, editions dropped; "" for none. */
  readonly album: string
  readonly title: TitleKeys
}

/** The library as the matcher looks it up. Opaque: build it with buildMatchIndex. */
export interface MatchIndex {
  readonly byMbid: ReadonlyMap<string, ReadonlyArray<Entry>>
  /** By folded title. */
  readonly byTitle: ReadonlyMap<string, ReadonlyArray<Entry>>
  /** By folded title without its version suffixes, for tracks whose title has some (the others are in byTitle). */
  readonly byBase: ReadonlyMap<string, ReadonlyArray<Entry>>
  /**
   * The titles shared by many tracks ("Intro", "Home"), by every artist key of their tracks: a listen then looks
   * at its artist's few tracks of that title, not at all of them.
   */
  readonly titleGroups: ReadonlyMap<string, ReadonlyMap<string, ReadonlyArray<Entry>>>
  readonly baseGroups: ReadonlyMap<string, ReadonlyMap<string, ReadonlyArray<Entry>>>
  /** By artist key (credited, album artist and list parts), for the typo pass. */
  readonly byArtist: ReadonlyMap<string, ReadonlyArray<Entry>>
  /**
   * The main artist keys of FUZZY_MIN_LETTERS or more by each of their one-letter deletions (and themselves): two
   * keys one edit apart share one, so a misspelt name finds its few neighbours without reading every artist.
   */
  readonly artistNeighbours: ReadonlyMap<string, ReadonlyArray<string>>
  /** The neighbours found for the artist texts asked lately (a history repeats its artists). */
  readonly nearArtists: Map<string, ReadonlySet<string>>
}

// ---------------------------------------------------------------------------------------------------------------
// Folding

/** The search folding's words of a text. */
const wordsOf = (text: string): ReadonlyArray<string> => searchQueryOf(text).words

/** A text as one key: its folded words run together. */
const keyOf = (text: string): string => wordsOf(text).join("")

/**
 * One artist name's keys: the whole name, without a leading (or sort-name trailing) "the", and with "and" read as
 * the "&" the folding drops (`Simon and Garfunkel` = `Simon & Garfunkel`).
 */
const nameKeysOf = (name: string): Array<string> => {
  const all = wordsOf(name)
  if (all.length === 0) return []
  const keys = [all.join("")]
  const inner = all.filter((word, i) => word !== "and" || i === 0 || i === all.length - 1)
  for (const words of inner.length < all.length ? [all, inner] : [all]) {
    if (words !== all) keys.push(words.join(""))
    if (words.length > 1 && words[0] === "the") keys.push(words.slice(1).join(""))
    else if (words.length > 1 && words[words.length - 1] === "the") keys.push(words.slice(0, -1).join(""))
  }
  return keys
}

/**
 * Credit spellings a listen's artist text may join names with (beyond the scanner's own separators): exports
 * write a track's whole credit as one text.
 */
const LIST_SEPARATORS: ReadonlyArray<string> = [
  ...DEFAULT_ARTIST_SEPARATORS,
  " feat ",
  " ft ",
  " & ",
  ", ",
  " x ",
  " × ",
  " and ",
  " vs. ",
  " vs ",
  " with ",
  " + ",
]

/** Whether a text has a list separator (most names have none: no need to split them). */
const mayBeList = (text: string) => {
  const lower = text.toLowerCase()
  return LIST_SEPARATORS.some((separator) => lower.includes(separator))
}

/** The names inside an artist text read as a credit list (none when it is one name). */
const listNamesOf = (text: string): Array<string> => {
  if (!mayBeList(text)) return []
  const names = splitArtistText(text, LIST_SEPARATORS)
  return names.length < 2 ? [] : names.map((credit) => credit.name)
}

/** Version words that leave the recording the same song for a listener (`(Remastered 2011)`, `- Radio Edit`). */
const NEUTRAL_SUFFIXES: ReadonlyArray<RegExp> = [
  /^(?:\d{4} )?(?:digital(?:ly)? )?re ?master(?:ed)?(?: \d{4})?(?: (?:version|edition|mix))?(?: \d{4})?$/,
  /^(?:\d{4} )?(?:mono|stereo)(?: (?:version|mix))?$/,
  /^(?:single|album|lp|radio|original|7 inch|7) (?:version|edit|mix)$/,
  /^radio edit$/,
  /^(?:explicit|clean|censored)(?: version)?$/,
  /^bonus track(?: version)?$/,
  /^(?:feat|ft|featuring) .+$/,
]
/** `(with X)` credits a guest; `- With You` is more likely a subtitle. */
const BRACKETED_GUEST = /^with .+$/
const LIVE_SUFFIX = /^live(?: .*)?$/

/** A bracketed or dashed tail of a title: `Song (Remastered 2011)`, `Song [Live]`, `Song - 2011 Remaster`. */
const TAIL = /^(.*?\S)\s*(?:[([]([^()[\]]*)[)\]]|\s[-–—]\s+([^-–—]+))\s*$/
/** A featuring credit written into the title without brackets: `Song feat. X`. */
const TITLE_FEATURING = /^(.*?\S)\s+(?:feat\.?|ft\.|featuring)\s+.+$/i

/** The folded keys of a title: as written, without its version suffixes, and what marks it apart. */
interface TitleKeys {
  readonly key: string
  /** Without the suffixes that do not change the song (equals `key` when there are none). */
  readonly base: string
  /** A live recording (a live suffix was dropped). */
  readonly live: boolean
  /** Its numbers (digits and roman numerals, in order): a typo never changes them. */
  readonly numbers: string
}

const ROMAN = /^(?:i|ii|iii|iv|v|vi|vii|viii|ix|x|xi|xii)$/

const numbersOf = (words: ReadonlyArray<string>) =>
  words.filter((word) => /\d/.test(word) || ROMAN.test(word)).join(" ")

/**
 * A pure function remembered for the last texts it was given (a history names the same tracks, albums and artists
 * again and again); forgets everything when full, which costs one recomputation each.
 */
const remembered = <A>(f: (text: string) => A, size = 50_000): ((text: string) => A) => {
  const known = new Map<string, A>()
  return (text) => {
    const hit = known.get(text)
    if (hit !== undefined) return hit
    const value = f(text)
    if (known.size >= size) known.clear()
    known.set(text, value)
    return value
  }
}

/** Whether a text may end in a bracketed or dashed tail (the cheap test before TAIL). */
const MAY_HAVE_TAIL = /[)\]]\s*$|\s[-–—]\s/

/**
 * A tail's words for telling what kind of suffix it is (its patterns are English words): lower case, accents off,
 * cut at anything but ASCII letters and digits. Only classifies; keys always come from the search folding.
 */
const suffixWordsOf = (tail: RegExpExecArray) =>
  (tail[2] ?? tail[3] ?? "")
    .normalize("NFKD")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "")
    .join(" ")

const titleKeysOf = (title: string): TitleKeys => {
  const words = wordsOf(title)
  let rest = title.trim()
  let live = false
  while (MAY_HAVE_TAIL.test(rest)) {
    const tail = TAIL.exec(rest)
    if (tail === null) break
    const inner = suffixWordsOf(tail)
    if (LIVE_SUFFIX.test(inner)) live = true
    else if (
      !NEUTRAL_SUFFIXES.some((pattern) => pattern.test(inner)) &&
      !(tail[2] !== undefined && BRACKETED_GUEST.test(inner))
    )
      break
    rest = tail[1]!
  }
  const featuring = /\s(?:feat|ft)/i.test(rest) ? TITLE_FEATURING.exec(rest) : null
  if (featuring !== null) rest = featuring[1]!
  const baseWords = rest === title.trim() ? words : wordsOf(rest)
  const key = words.join("")
  const base = baseWords.join("")
  return { key, base: base === "" ? key : base, live, numbers: numbersOf(baseWords) }
}

/** Album editions dropped before albums are compared (`(Deluxe Edition)`, `[2011 Remaster]`). */
const EDITION = /\b(?:edition|deluxe|expanded|remaster(?:ed)?|anniversary|bonus|version|reissue)\b/

const albumKeyOf = (album: string | null): string => (album === null ? "" : rememberedAlbumKey(album))

const albumTextKeyOf = (album: string): string => {
  let rest = album.trim()
  while (MAY_HAVE_TAIL.test(rest)) {
    const tail = TAIL.exec(rest)
    if (tail === null || !EDITION.test(suffixWordsOf(tail))) break
    rest = tail[1]!
  }
  return keyOf(rest)
}
const rememberedAlbumKey = remembered(albumTextKeyOf)
const rememberedTitleKeys = remembered(titleKeysOf)

// ---------------------------------------------------------------------------------------------------------------
// The index

const push = <K, V>(map: Map<K, Array<V>>, key: K, value: V) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}

const NONE: ReadonlyArray<string> = []

/** A key and every key one letter shorter made from it, each once. */
const deletionsOf = (key: string): Array<string> => {
  const out = new Set([key])
  for (let i = 0; i < key.length; i++) out.add(key.slice(0, i) + key.slice(i + 1))
  return [...out]
}

/** A title list is split by artist from this many tracks on. */
const GROUP_FROM = 12

const groupsOf = (lists: ReadonlyMap<string, ReadonlyArray<Entry>>) => {
  const groups = new Map<string, Map<string, Array<Entry>>>()
  for (const [title, entries] of lists) {
    if (entries.length < GROUP_FROM) continue
    const group = new Map<string, Array<Entry>>()
    for (const entry of entries) {
      for (const key of new Set([...entry.by.main, ...entry.by.others, ...entry.by.parts, ...entry.by.lead])) {
        push(group, key, entry)
      }
    }
    groups.set(title, group)
  }
  return groups
}

export const buildMatchIndex = (candidates: Iterable<MatchCandidate>): MatchIndex => {
  const byMbid = new Map<string, Array<Entry>>()
  const byTitle = new Map<string, Array<Entry>>()
  const byBase = new Map<string, Array<Entry>>()
  const byArtist = new Map<string, Array<Entry>>()
  // One string per distinct key, and one keys array per distinct credit: artists credit many tracks.
  const interned = new Map<string, string>()
  const intern = (key: string) => {
    const known = interned.get(key)
    if (known !== undefined) return known
    interned.set(key, key)
    return key
  }
  const credits = new Map<string, EntryArtists>()
  const keysOf = (names: ReadonlyArray<string>, minus: ReadonlyArray<string> = NONE) => {
    const keys = [...new Set(names.flatMap(nameKeysOf))].filter((key) => !minus.includes(key))
    return keys.length === 0 ? NONE : keys.map(intern)
  }
  for (const candidate of candidates) {
    const albumArtist =
      candidate.album_artist === null || isVariousArtists(candidate.album_artist) ? null : candidate.album_artist
    const creditKey = `${candidate.artists.join("\u001f")}\u001e${albumArtist ?? ""}`
    let by = credits.get(creditKey)
    if (by === undefined) {
      const [first, ...rest] = candidate.artists
      const listed = listNamesOf(first ?? "")
      // A duet on its first artist's album (`A x B` on A's album) is not A's song alone: the album artist then
      // counts as a guest would.
      const main = keysOf(albumArtist === null || listed.length > 0 ? [first ?? ""] : [first ?? "", albumArtist])
      const others = keysOf(albumArtist === null || listed.length === 0 ? rest : [...rest, albumArtist], main)
      const credited = new Set(candidate.artists.flatMap(nameKeysOf))
      by = {
        first: keysOf([first ?? ""]),
        main,
        others,
        lead: listed.length > 0 ? keysOf([listed[0]!], main) : NONE,
        parts: keysOf(candidate.artists.flatMap(listNamesOf), [...main, ...others]),
        own: nameKeysOf(albumArtist ?? "").some((key) => credited.has(key)),
      }
      credits.set(creditKey, by)
    }
    const title = titleKeysOf(candidate.title)
    const entry: Entry = {
      candidate,
      by,
      album: intern(albumKeyOf(candidate.album)),
      title: { ...title, key: intern(title.key), base: intern(title.base) },
    }
    if (candidate.mbid !== null && candidate.mbid !== "") push(byMbid, candidate.mbid.toLowerCase(), entry)
    push(byTitle, entry.title.key, entry)
    if (entry.title.base !== entry.title.key) push(byBase, entry.title.base, entry)
    for (const key of [...by.main, ...by.others, ...by.lead]) push(byArtist, key, entry)
  }
  const artistNeighbours = new Map<string, Array<string>>()
  for (const key of new Set([...credits.values()].flatMap((by) => by.main))) {
    if (key.length < FUZZY_MIN_LETTERS) continue
    for (const deletion of deletionsOf(key)) push(artistNeighbours, deletion, key)
  }
  return {
    byMbid,
    byTitle,
    byBase,
    byArtist,
    artistNeighbours,
    nearArtists: new Map(),
    titleGroups: groupsOf(byTitle),
    baseGroups: groupsOf(byBase),
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Matching

/** A listen's artist text as keys: the whole text, and when it reads as a credit list, each name of it. */
interface QueryArtist {
  readonly whole: ReadonlyArray<string>
  readonly names: ReadonlyArray<ReadonlyArray<string>>
  /** How many of the names come before a featuring separator (the song's own artists). */
  readonly mains: number
  /** The keys a track of the artist has among its artist keys: the whole text's and the first name's. */
  readonly lookup: ReadonlyArray<string>
}

const meets = (keys: ReadonlyArray<string>, other: ReadonlyArray<string>): boolean => {
  for (const key of keys) if (other.includes(key)) return true
  return false
}

const credited = (name: ReadonlyArray<string>, by: EntryArtists) =>
  meets(name, by.main) || meets(name, by.others) || meets(name, by.parts)

/**
 * How well a candidate's artists answer a listen's artist text, best first; null: not by that artist.
 * 0: the whole text is the track's first credited artist.
 * 1: the text is a credit list whose first name is the track's first artist and whose every name is credited
 *    (`A feat. B` or `A & B` for a track credited A, B).
 * 2: the whole text is the album artist; or the text is a credit list whose names before any "feat." are all
 *    credited, the first being the first artist or the album artist (`A feat. B` for a track by A alone: a guest
 *    does not make it another song; `A & B` is a duet, not A's song, unless both are credited).
 * 3: the text is a credit list whose every name is credited, in another order (`B & A` for a track credited A, B).
 * 4: the listen names the track's album, and its whole text or its list's first name is another credited artist
 *    of the track or a name inside one (`B` for a track by `A & B`): the album confirms what the names alone
 *    would not (a guest's own song of that title, or A's solo song for a duet A & B, would be as likely).
 * A listen credited `A feat. B` never takes a song of B alone: it is A's.
 */
const artistTier = (entry: Entry, artist: QueryArtist, album: string): number | null => {
  const by = entry.by
  if (meets(artist.whole, by.first)) return 0
  const names = artist.names
  if (names.length > 0) {
    const allCredited = names.every((name) => credited(name, by))
    if (allCredited && meets(names[0]!, by.first)) return 1
    if (meets(names[0]!, by.main) && names.slice(1, artist.mains).every((name) => credited(name, by))) return 2
    if (meets(artist.whole, by.main)) return 2
    if (allCredited) return 3
  } else if (meets(artist.whole, by.main)) return 2
  if (album === "" || entry.album !== album) return null
  const lead = names.length > 0 ? names[0]! : artist.whole
  return meets(lead, by.main) || meets(lead, by.others) || meets(lead, by.lead) || meets(lead, by.parts) ? 4 : null
}

/** The entries of the best artist tier (empty when no entry is by the artist). */
const byArtistOf = (entries: ReadonlyArray<Entry>, artist: QueryArtist, album: string): Array<Entry> => {
  let best: Array<Entry> = []
  let bestTier = Number.POSITIVE_INFINITY
  for (const entry of entries) {
    const tier = artistTier(entry, artist, album)
    if (tier === null || tier > bestTier) continue
    if (tier < bestTier) {
      best = []
      bestTier = tier
    }
    best.push(entry)
  }
  return best
}

/** Ties: the album given, else the artist's own album, else the lowest track id (stable). */
const choose = (entries: ReadonlyArray<Entry>, album: string): { entry: Entry; onAlbum: boolean } => {
  if (entries.length === 1) return { entry: entries[0]!, onAlbum: album !== "" && entries[0]!.album === album }
  const onAlbum = album === "" ? [] : entries.filter((entry) => entry.album === album)
  const pool = onAlbum.length > 0 ? onAlbum : entries
  const own = pool.filter((entry) => entry.by.own)
  const entry = (own.length > 0 ? own : pool).reduce((a, b) => (b.candidate.track_id < a.candidate.track_id ? b : a))
  return { entry, onAlbum: onAlbum.length > 0 }
}

/** At most one edit apart: one letter changed, added or dropped, or two neighbours swapped. */
export const withinOneEdit = (a: string, b: string): boolean => {
  if (a === b) return true
  if (Math.abs(a.length - b.length) > 1) return false
  if (a.length === b.length) {
    let i = 0
    while (a[i] === b[i]) i++
    // One change, or two neighbours swapped.
    if (a.slice(i + 1) === b.slice(i + 1)) return true
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2)
  }
  const [long, short] = a.length > b.length ? [a, b] : [b, a]
  let i = 0
  while (i < short.length && long[i] === short[i]) i++
  return long.slice(i + 1) === short.slice(i)
}

/** Live tracks answer only a live listen, and one only when the artist has no live take of the song. */
const liveRule = (entries: ReadonlyArray<Entry>, live: boolean): ReadonlyArray<Entry> => {
  if (!live) return entries.filter((entry) => !entry.title.live)
  const lives = entries.filter((entry) => entry.title.live)
  return lives.length > 0 ? lives : entries
}

/** Folded artist keys of the texts seen lately: a history names the same artists again and again. */
const queryArtistOf = remembered((text: string): QueryArtist => {
  const credits = mayBeList(text) ? splitArtistText(text, LIST_SEPARATORS) : []
  const whole = nameKeysOf(text)
  const names = credits.length < 2 ? [] : credits.map((credit) => nameKeysOf(credit.name))
  return {
    whole,
    names,
    mains: credits.filter((credit) => credit.role === "main").length,
    lookup: [...new Set([...whole, ...(names[0] ?? NONE)])],
  }
})

/**
 * The tracks of one title (from `lists`) that may be by the listen's artist: those of a shared title's group under
 * the artist's keys (every tier needs the whole text or the first name among a track's artist keys), else all.
 */
const titled = (
  lists: ReadonlyMap<string, ReadonlyArray<Entry>>,
  groups: ReadonlyMap<string, ReadonlyMap<string, ReadonlyArray<Entry>>>,
  key: string,
  artist: QueryArtist,
): ReadonlyArray<Entry> => {
  const group = groups.get(key)
  if (group === undefined) return lists.get(key) ?? NONE_ENTRIES
  if (artist.lookup.length === 1) return group.get(artist.lookup[0]!) ?? NONE_ENTRIES
  const found = new Set<Entry>()
  for (const name of artist.lookup) for (const entry of group.get(name) ?? NONE_ENTRIES) found.add(entry)
  return [...found]
}

export const matchListen = (index: MatchIndex, query: MatchQuery): MatchResult | null => {
  const album = albumKeyOf(query.album)
  if (query.recording_mbid !== null && query.recording_mbid !== "") {
    const byMbid = index.byMbid.get(query.recording_mbid.toLowerCase())
    if (byMbid !== undefined) return { track_id: choose(byMbid, album).entry.candidate.track_id, how: "mbid" }
  }
  const artist = queryArtistOf(query.artist)
  if (artist.whole.length === 0) return null
  const title = rememberedTitleKeys(query.title)
  if (title.key === "") return null

  const exact = byArtistOf(titled(index.byTitle, index.titleGroups, title.key, artist), artist, album)
  if (exact.length > 0) {
    const { entry, onAlbum } = choose(exact, album)
    return { track_id: entry.candidate.track_id, how: onAlbum ? "exact" : "exact_no_album" }
  }

  // Fuzzy: the same title once version suffixes are dropped on both sides.
  const sameBase = liveRule(
    byArtistOf(
      [
        ...(title.base === title.key ? NONE_ENTRIES : titled(index.byTitle, index.titleGroups, title.base, artist)),
        ...titled(index.byBase, index.baseGroups, title.base, artist),
      ],
      artist,
      album,
    ),
    title.live,
  )
  if (sameBase.length > 0) return { track_id: choose(sameBase, album).entry.candidate.track_id, how: "fuzzy" }

  return titleTypo(index, artist, title, album) ?? artistTypo(index, artist, title, album)
}

/** A typo in a title of FUZZY_MIN_LETTERS or more: exactly one title of the artist one edit away, numbers alike. */
const titleTypo = (index: MatchIndex, artist: QueryArtist, title: TitleKeys, album: string): MatchResult | null => {
  if (title.base.length < FUZZY_MIN_LETTERS) return null
  const close: Array<Entry> = []
  for (const key of artist.lookup) {
    for (const entry of index.byArtist.get(key) ?? NONE_ENTRIES) {
      const base = entry.title.base
      if (Math.abs(base.length - title.base.length) > 1 || base.length < FUZZY_MIN_LETTERS) continue
      if (entry.title.numbers === title.numbers && withinOneEdit(base, title.base) && !close.includes(entry)) {
        close.push(entry)
      }
    }
  }
  const candidates = liveRule(byArtistOf(close, artist, album), title.live)
  if (candidates.length === 0 || new Set(candidates.map((entry) => entry.title.base)).size > 1) return null
  return { track_id: choose(candidates, album).entry.candidate.track_id, how: "fuzzy" }
}

const digitsOf = (key: string) => key.replace(/\D+/g, "")

/** The library's main artist keys one edit away from a listen's whole artist text (of FUZZY_MIN_LETTERS or more). */
const nearArtistsOf = (index: MatchIndex, artist: QueryArtist): ReadonlySet<string> => {
  const cacheKey = artist.whole[0]!
  const known = index.nearArtists.get(cacheKey)
  if (known !== undefined) return known
  const near = new Set<string>()
  for (const name of artist.whole) {
    if (name.length < FUZZY_MIN_LETTERS) continue
    for (const deletion of deletionsOf(name)) {
      for (const key of index.artistNeighbours.get(deletion) ?? NONE) {
        if (key !== name && withinOneEdit(name, key) && digitsOf(name) === digitsOf(key)) near.add(key)
      }
    }
  }
  if (index.nearArtists.size >= 50_000) index.nearArtists.clear()
  index.nearArtists.set(cacheKey, near)
  return near
}

/**
 * A typo in an artist name of FUZZY_MIN_LETTERS or more: the same title (suffixes dropped) by exactly one artist
 * one edit away from the name, numbers alike. The whole name only, never a name of a list.
 */
const artistTypo = (index: MatchIndex, artist: QueryArtist, title: TitleKeys, album: string): MatchResult | null => {
  if (!index.byTitle.has(title.base) && !index.byBase.has(title.base)) return null
  const near = nearArtistsOf(index, artist)
  if (near.size === 0) return null
  const close: Array<Entry> = []
  for (const key of near) {
    for (const entry of index.byArtist.get(key) ?? NONE_ENTRIES) {
      if (entry.title.base === title.base && entry.by.main.includes(key) && !close.includes(entry)) close.push(entry)
    }
  }
  const candidates = liveRule(close, title.live)
  const artists = new Set(candidates.flatMap((entry) => entry.by.main.filter((key) => near.has(key))))
  if (candidates.length === 0 || artists.size > 1) return null
  return { track_id: choose(candidates, album).entry.candidate.track_id, how: "fuzzy" }
}

const NONE_ENTRIES: ReadonlyArray<Entry> = []
