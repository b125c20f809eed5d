/**
 * Listening as a sparse user × artist matrix, over dense artist indexes: each listener's row lists the
 * artists they played with a weight (log plays relative to their most played artist, in (0, 1]).
 * Pure data: the learned similarities (EASE, RP3beta) read it.
 */
export interface Interactions {
  /** artist indexes are 0 … items − 1 */
  readonly items: number
  /** one row per listener: (artist index, weight > 0), each artist at most once */
  readonly rows: ReadonlyArray<ReadonlyArray<readonly [item: number, weight: number]>>
}

/** One listener's play count of one artist, the artist already an index. */
export interface PlayCount {
  readonly user: string | number
  readonly item: number
  readonly plays: number
}

/**
 * The interaction matrix from play counts: each listener's artists weighted log(1 + plays) relative to
 * their most played artist (a favourite near 1, a one-off small, but a thousand plays do not drown the
 * rest). Rows and non-positive counts are dropped; a listener's repeated (user, item) counts add up.
 */
export const interactionsOf = (items: number, counts: Iterable<PlayCount>): Interactions => {
  const byUser = new Map<string | number, Map<number, number>>()
  for (const { user, item, plays } of counts) {
    if (!(plays > 0) || item < 0 || item >= items) continue
    const own = byUser.get(user) ?? new Map<number, number>()
    byUser.set(user, own)
    own.set(item, (own.get(item) ?? 0) + plays)
  }
  const rows: Array<ReadonlyArray<readonly [number, number]>> = []
  for (const own of byUser.values()) {
    let top = 0
    for (const plays of own.values()) top = Math.max(top, plays)
    const scale = Math.log1p(top)
    rows.push([...own].sort((a, b) => a[0] - b[0]).map(([item, plays]) => [item, Math.log1p(plays) / scale] as const))
  }
  return { items, rows }
}

/** How many listeners played each artist. */
export const listenerCounts = (interactions: Interactions): Int32Array => {
  const counts = new Int32Array(interactions.items)
  for (const row of interactions.rows) for (const [item] of row) counts[item]! += 1
  return counts
}

/** A similarity list for one seed: artist index → score, best first, scaled so the best is 1. */
export type ScoredItems = ReadonlyArray<readonly [item: number, score: number]>

/** Keeps the positive scores, best first (ties by index), the best scaled to 1, at most `limit`. */
export const normalisedTop = (scores: Iterable<readonly [number, number]>, limit: number): ScoredItems => {
  const positive = [...scores].filter(([, score]) => score > 0 && Number.isFinite(score))
  positive.sort((a, b) => b[1] - a[1] || a[0] - b[0])
  const top = positive[0]?.[1] ?? 1
  return positive.slice(0, limit).map(([item, score]) => [item, score / top] as const)
}
