import { Effect, Random } from "effect"

/**
 * Selection helpers shared by the surfaces. All chance goes through Effect's Random, so a seeded
 * `Random.make(seed)` reproduces every surface exactly.
 */

/** The indexes of the k highest scores among `candidates`, best first (ties: lower index first). */
export const topK = (candidates: ArrayLike<number>, score: (i: number) => number, k: number): Array<number> => {
  if (k <= 0) return []
  // A bounded min-heap of [score, index]: O(n log k), no full sort of the library.
  const heapScore: Array<number> = []
  const heapIndex: Array<number> = []
  const worse = (a: number, b: number) =>
    heapScore[a]! < heapScore[b]! || (heapScore[a] === heapScore[b] && heapIndex[a]! > heapIndex[b]!)
  const swap = (a: number, b: number) => {
    ;[heapScore[a], heapScore[b]] = [heapScore[b]!, heapScore[a]!]
    ;[heapIndex[a], heapIndex[b]] = [heapIndex[b]!, heapIndex[a]!]
  }
  const siftDown = (i: number) => {
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < heapScore.length && worse(l, m)) m = l
      if (r < heapScore.length && worse(r, m)) m = r
      if (m === i) return
      swap(i, m)
      i = m
    }
  }
  for (let c = 0; c < candidates.length; c++) {
    const i = candidates[c]!
    const s = score(i)
    if (Number.isNaN(s)) continue
    if (heapScore.length < k) {
      heapScore.push(s)
      heapIndex.push(i)
      let j = heapScore.length - 1
      while (j > 0) {
        const p = (j - 1) >> 1
        if (!worse(j, p)) break
        swap(j, p)
        j = p
      }
    } else if (s > heapScore[0]! || (s === heapScore[0] && i < heapIndex[0]!)) {
      heapScore[0] = s
      heapIndex[0] = i
      siftDown(0)
    }
  }
  return heapIndex
    .map((index, h) => ({ index, score: heapScore[h]! }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.index)
}

/** 0..n−1 as a plain array. */
export const range = (n: number): Array<number> => Array.from({ length: n }, (_, i) => i)

/**
 * Weighted sampling of k items without replacement (Efraimidis–Spirakis: each item draws u^(1/w) and the
 * k largest keys win), returned in draw order (largest key first). Non-positive weights are never drawn.
 */
export const weightedSample = <A>(
  items: ReadonlyArray<A>,
  weightOf: (item: A) => number,
  k: number,
): Effect.Effect<Array<A>> =>
  Effect.gen(function* () {
    const keyed: Array<{ item: A; key: number }> = []
    for (const item of items) {
      const weight = weightOf(item)
      if (!(weight > 0)) continue
      const u = yield* Random.next
      keyed.push({ item, key: Math.log(Math.max(u, Number.MIN_VALUE)) / weight })
    }
    return keyed
      .sort((a, b) => b.key - a.key)
      .slice(0, k)
      .map((entry) => entry.item)
  })

/** Fisher–Yates through Effect's Random. */
export const shuffled = <A>(items: ReadonlyArray<A>): Effect.Effect<Array<A>> =>
  Effect.map(Random.shuffle(items), (chunk) => Array.from(chunk))

/** Keeps the order, dropping items whose group already has `cap` members. */
export const capPerGroup = <A>(
  items: ReadonlyArray<A>,
  groupOf: (item: A) => number | string,
  cap: number,
): Array<A> => {
  const counts = new Map<number | string, number>()
  return items.filter((item) => {
    const group = groupOf(item)
    const count = counts.get(group) ?? 0
    if (count >= cap) return false
    counts.set(group, count + 1)
    return true
  })
}

/**
 * The members of `items` that are among the `cap` best of their group (by score, ties by index). Any
 * selection capped at `cap` per group only ever picks from these, so callers can rank far fewer items.
 */
export const bestPerGroup = (
  items: ReadonlyArray<number>,
  groupOf: (item: number) => number,
  score: (item: number) => number,
  cap: number,
  groups: number,
): Array<number> => {
  // dense groups (artist indexes): each group's best `cap` in flat typed arrays, no per-group objects
  const bestItem = new Int32Array(groups * cap).fill(-1)
  const bestScore = new Float64Array(groups * cap)
  const better = (s1: number, i1: number, s2: number, i2: number) => s1 > s2 || (s1 === s2 && i1 < i2)
  for (const item of items) {
    const base = groupOf(item) * cap
    const value = score(item)
    let worst = base
    for (let k = base; k < base + cap; k++) {
      if (bestItem[k] === -1) {
        worst = k
        break
      }
      if (better(bestScore[worst]!, bestItem[worst]!, bestScore[k]!, bestItem[k]!)) worst = k
    }
    if (bestItem[worst] === -1 || better(value, item, bestScore[worst]!, bestItem[worst]!)) {
      bestItem[worst] = item
      bestScore[worst] = value
    }
  }
  return Array.from(bestItem.filter((item) => item >= 0)).sort((a, b) => a - b)
}

/**
 * Reorders so the same group does not play back to back when another choice exists within the next
 * `window` items (greedy, stable otherwise).
 */
export const spreadGroups = <A>(
  items: ReadonlyArray<A>,
  groupOf: (item: A) => number | string,
  window = 8,
): Array<A> => {
  const rest = [...items]
  const out: Array<A> = []
  while (rest.length > 0) {
    const last = out.length > 0 ? groupOf(out[out.length - 1]!) : undefined
    let pick = 0
    if (last !== undefined && groupOf(rest[0]!) === last) {
      const other = rest.slice(0, window).findIndex((item) => groupOf(item) !== last)
      if (other > 0) pick = other
    }
    out.push(rest.splice(pick, 1)[0]!)
  }
  return out
}

export interface Bucket<K> {
  readonly kind: K
  readonly slots: number
  /** candidates in preference order; may overlap with other buckets */
  readonly items: ReadonlyArray<number>
}

/**
 * The slot interleave (rule 6, also used for mix tiers): smooth weighted round-robin over the buckets in
 * their given order, so the first pick comes from the first bucket and every prefix follows the slot
 * ratios. An item already taken by another bucket is skipped, and keeps the kind of the bucket that took
 * it. A bucket that runs out leaves the rotation, so its remaining slots pass to the others in
 * proportion to their slots.
 */
export const interleaveBuckets = <K>(
  buckets: ReadonlyArray<Bucket<K>>,
  size: number,
): Array<{ readonly item: number; readonly kind: K }> => {
  const taken = new Set<number>()
  const cursor = buckets.map(() => 0)
  const credit = buckets.map(() => 0)
  const active = buckets.map((bucket) => bucket.slots > 0)
  const out: Array<{ item: number; kind: K }> = []
  const nextOf = (b: number): number | undefined => {
    const items = buckets[b]!.items
    while (cursor[b]! < items.length) {
      const item = items[cursor[b]!]!
      if (!taken.has(item)) return item
      cursor[b]!++
    }
    return undefined
  }
  while (out.length < size) {
    for (let b = 0; b < buckets.length; b++) if (active[b] && nextOf(b) === undefined) active[b] = false
    let total = 0
    let best = -1
    for (let b = 0; b < buckets.length; b++) {
      if (!active[b]) continue
      credit[b]! += buckets[b]!.slots
      total += buckets[b]!.slots
      if (best < 0 || credit[b]! > credit[best]!) best = b
    }
    if (best < 0) break
    credit[best]! -= total
    const item = nextOf(best)!
    taken.add(item)
    cursor[best]!++
    out.push({ item, kind: buckets[best]!.kind })
  }
  return out
}
