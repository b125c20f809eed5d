import { type Catalog, cosine } from "../catalog/Catalog.js"
import { type RediscoverStat, rankRediscover } from "./ladders.js"
import { groupCounter, spreadGroups } from "./select.js"

/**
 * Diversity by construction (issue 28 item 2). Pure list rules shared by the surfaces: a per-group share
 * cap, a maximal-marginal-relevance (MMR) re-ranking, "prefer what is not already shown", and the check that
 * two lists of one user are not the same list. No I/O and no chance: the callers draw, these only order.
 */

/** Discover deck: no artist holds more than this share of the deck (10 of 100 tracks). */
export const DISCOVER_ARTIST_SHARE = 0.1

/** MMR trade-off: 1 is pure relevance, 0 pure novelty against what is already picked. */
export const MMR_LAMBDA = 0.7
/** A mix's play order compares each track with the 4 before it (mmrRerank `window`). */
export const MMR_PLAY_WINDOW = 4

/**
 * A mix's play order: its tracks in their given order (the tier interleave), moved by MMR so alike-sounding
 * artists do not play close together (the last MMR_PLAY_WINDOW picks), then the same artist never back to
 * back when another track is near (`spreadGroups`). The mix's tracks are unchanged: only their order.
 */
export const mixPlayOrder = <A extends { readonly item: number }>(
  catalog: Catalog,
  mixed: ReadonlyArray<A>,
): Array<A> => {
  const position = new Map(mixed.map((entry, i) => [entry, i] as const))
  const similar = artistSimilarity(catalog)
  const artistOf = (entry: A) => catalog.trackArtist[entry.item]!
  const ordered = mmrRerank(mixed, {
    relevance: (entry) => -position.get(entry)!,
    similarity: (a, b) => similar(artistOf(a), artistOf(b)),
    size: mixed.length,
    window: MMR_PLAY_WINDOW,
  })
  return spreadGroups(ordered, artistOf)
}

/** How many members of one group a list of `size` may hold for a `share` of it: at least 1. */
export const groupShareCap = (size: number, share: number): number => Math.max(1, Math.floor(size * share))

export interface MmrOptions<A> {
  /** how good an item is on its own (any scale: normalised to [0, 1] over the candidates) */
  readonly relevance: (item: A) => number
  /** how alike two items are, in [0, 1] (1: the same artist) */
  readonly similarity: (a: A, b: A) => number
  /** how many to pick */
  readonly size: number
  /** 1 = relevance only; shipped `MMR_LAMBDA` */
  readonly lambda?: number
  /** a hard cap per group on top of the soft penalty */
  readonly groupOf?: ((item: A) => number | string) | undefined
  readonly groupCap?: number | undefined
  /**
   * Compare with the last `window` picks only (a play order: what is near, not everything picked so far;
   * over a long list everything is alike to something already picked and MMR would stop diversifying)
   */
  readonly window?: number | undefined
}

/**
 * Greedy MMR (Carbonell & Goldstein 1998): each step picks the candidate maximising
 * λ · relevance − (1 − λ) · (its highest similarity to anything already picked), relevance min–max
 * normalised over the candidates. Ties go to the earlier candidate, so with λ = 1 (or no similarity) the
 * input order is kept. A group at its cap is skipped. O(n · size) similarity calls (O(n · size · window)
 * with a window: the similarity to the last `window` picks).
 */
export const mmrRerank = <A>(items: ReadonlyArray<A>, options: MmrOptions<A>): Array<A> => {
  const lambda = options.lambda ?? MMR_LAMBDA
  const n = items.length
  const relevance = items.map(options.relevance)
  let lo = Number.POSITIVE_INFINITY
  let hi = Number.NEGATIVE_INFINITY
  for (const r of relevance) {
    if (r < lo) lo = r
    if (r > hi) hi = r
  }
  const span = hi - lo
  const norm = relevance.map((r) => (span > 0 ? (r - lo) / span : 1))
  const maxSim = new Float64Array(n)
  const taken = new Uint8Array(n)
  const cap = options.groupCap ?? Number.POSITIVE_INFINITY
  const counter = groupCounter<number | string>(cap)
  const out: Array<A> = []
  while (out.length < options.size) {
    let best = -1
    let bestValue = Number.NEGATIVE_INFINITY
    const recent = options.window === undefined ? undefined : out.slice(-options.window)
    for (let i = 0; i < n; i++) {
      if (taken[i] === 1) continue
      if (options.groupOf !== undefined && counter.count(options.groupOf(items[i]!)) >= cap) continue
      let alike = maxSim[i]!
      if (recent !== undefined) {
        alike = 0
        for (const picked of recent) alike = Math.max(alike, options.similarity(items[i]!, picked))
      }
      const value = lambda * norm[i]! - (1 - lambda) * alike
      if (value > bestValue) {
        best = i
        bestValue = value
      }
    }
    if (best < 0) break
    taken[best] = 1
    const chosen = items[best]!
    if (options.groupOf !== undefined) counter.admit(options.groupOf(chosen))
    out.push(chosen)
    if (lambda < 1 && options.window === undefined)
      for (let i = 0; i < n; i++) {
        if (taken[i] === 1) continue
        const s = options.similarity(items[i]!, chosen)
        if (s > maxSim[i]!) maxSim[i] = s
      }
  }
  return out
}

/**
 * Keeps `ranked`'s order but shows an item already in `shown` only when nothing else is eligible: the
 * first `size` items not shown, then shown ones (in their rank order) fill what is left.
 */
export const preferUnshown = <A>(ranked: ReadonlyArray<A>, shown: ReadonlySet<unknown>, size: number): Array<A> => {
  const fresh = ranked.filter((item) => !shown.has(item))
  if (fresh.length >= size) return fresh.slice(0, size)
  return [...fresh, ...ranked.filter((item) => shown.has(item))].slice(0, size)
}

/** Two lists hold the same items (in any order): the same list to a listener. */
export const sameItems = <A>(a: ReadonlyArray<A>, b: ReadonlyArray<A>): boolean => {
  if (a.length !== b.length) return false
  const set = new Set(a)
  return set.size === new Set(b).size && b.every((item) => set.has(item))
}

/**
 * The positions of the non-empty lists that repeat an earlier kept list (same items): the caller drops
 * them, so no two lists of one user are the same list. Earlier lists win.
 */
export const repeatedLists = <A>(lists: ReadonlyArray<ReadonlyArray<A>>): Set<number> => {
  const repeated = new Set<number>()
  lists.forEach((list, i) => {
    if (list.length === 0) return
    for (let j = 0; j < i; j++)
      if (!repeated.has(j) && sameItems(lists[j]!, list)) {
        repeated.add(i)
        return
      }
  })
  return repeated
}

/** The largest share any one group holds in `items` (0 for an empty list). */
export const largestGroupShare = <A>(items: ReadonlyArray<A>, groupOf: (item: A) => number | string): number => {
  if (items.length === 0) return 0
  const counts = new Map<number | string, number>()
  let most = 0
  for (const item of items) {
    const count = (counts.get(groupOf(item)) ?? 0) + 1
    counts.set(groupOf(item), count)
    if (count > most) most = count
  }
  return most / items.length
}

/**
 * Home's Rediscover row (albums or artists): the spec's eligibility and order (`rankRediscover`), but an
 * entry already in Most played or Last played shows only when nothing else eligible is left to fill the row.
 */
export const homeRediscover = <Id extends string>(
  stats: ReadonlyArray<RediscoverStat<Id>>,
  shown: Iterable<string>,
  now: number,
  size: number,
): Array<Id> => preferUnshown(rankRediscover(stats, now), new Set<unknown>(shown), size)

/**
 * How alike two catalog artists sound, for MMR: 1 for the same artist, else the cosine of their tag vectors
 * (0 for untagged artists). Memoised per pair within one call site.
 */
export const artistSimilarity = (catalog: Catalog): ((a: number, b: number) => number) => {
  const memo = new Map<number, number>()
  const n = catalog.artistIds.length
  return (a, b) => {
    if (a === b) return 1
    const key = a < b ? a * n + b : b * n + a
    let value = memo.get(key)
    if (value === undefined) {
      value = cosine(catalog.artistVectors[a]!, catalog.artistVectors[b]!)
      memo.set(key, value)
    }
    return value
  }
}
