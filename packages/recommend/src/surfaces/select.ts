import { Effect, Random } from "effect"
import { directDraws } from "./draws.js"

/**
 * Selection helpers shared by the surfaces. All chance goes through Effect's Random, so a seeded
 * `Random.make(seed)` reproduces every surface exactly.
 */

/**
 * The k best of `n` items by score, best first; ties go to the lower `itemAt` (then the earlier
 * position). A bounded min-heap in flat typed arrays: O(n log k), no full sort and nothing allocated per
 * item. NaN scores are left out.
 */
const selectTop = (
  n: number,
  itemAt: ((c: number) => number) | undefined,
  score: (i: number) => number,
  k: number,
): Array<number> => {
  if (k <= 0 || n <= 0) return []
  const cap = Math.min(k, n)
  const heapScore = new Float64Array(cap)
  const heapItem = new Float64Array(cap)
  let size = 0
  // the heap's root is the worst kept entry: lower score, or the same score and a higher item
  const siftDown = (from: number, value: number, item: number) => {
    let i = from
    for (;;) {
      const l = 2 * i + 1
      if (l >= size) break
      const r = l + 1
      let m = l
      if (r < size) {
        const sl = heapScore[l]!
        const sr = heapScore[r]!
        if (sr < sl || (sr === sl && heapItem[r]! > heapItem[l]!)) m = r
      }
      const sm = heapScore[m]!
      if (!(sm < value || (sm === value && heapItem[m]! > item))) break
      heapScore[i] = sm
      heapItem[i] = heapItem[m]!
      i = m
    }
    heapScore[i] = value
    heapItem[i] = item
  }
  for (let c = 0; c < n; c++) {
    const item = itemAt === undefined ? c : itemAt(c)
    const s = score(item)
    if (Number.isNaN(s)) continue
    if (size < cap) {
      let j = size++
      while (j > 0) {
        const p = (j - 1) >> 1
        const sp = heapScore[p]!
        if (!(s < sp || (s === sp && item > heapItem[p]!))) break
        heapScore[j] = sp
        heapItem[j] = heapItem[p]!
        j = p
      }
      heapScore[j] = s
      heapItem[j] = item
    } else if (s > heapScore[0]! || (s === heapScore[0] && item < heapItem[0]!)) siftDown(0, s, item)
  }
  // pop the worst to the back: best first
  const out: Array<number> = new Array(size)
  while (size > 0) {
    const worst = heapItem[0]!
    size--
    if (size > 0) siftDown(0, heapScore[size]!, heapItem[size]!)
    out[size] = worst
  }
  return out
}

/** The indexes of the k highest scores among `candidates`, best first (ties: lower index first). */
export const topK = (candidates: ArrayLike<number>, score: (i: number) => number, k: number): Array<number> =>
  selectTop(candidates.length, (c) => candidates[c]!, score, k)

/** The k highest scores among 0..n−1, best first (ties: lower index first): `topK` over a range. */
export const topKOfRange = (n: number, score: (i: number) => number, k: number): Array<number> =>
  selectTop(n, undefined, score, k)

/** The `keep` flags as the list of their indexes (ascending). */
export const indexesWhere = (n: number, keep: (i: number) => boolean): Array<number> => {
  const out: Array<number> = []
  for (let i = 0; i < n; i++) if (keep(i)) out.push(i)
  return out
}

/**
 * Weighted sampling of k of the positions 0..n−1 without replacement (Efraimidis–Spirakis: each position
 * with a positive weight draws u, in position order, and keys u^(1/w); the k largest keys win), returned
 * in draw order (largest key first; equal keys keep position order). Non-positive weights are never drawn.
 */
export const weightedSampleIndexes = (
  n: number,
  weightAt: (position: number) => number,
  k: number,
): Effect.Effect<Array<number>> =>
  Effect.gen(function* () {
    const random = yield* Effect.random
    const direct = directDraws(random)
    const keys = new Float64Array(n)
    const positions = new Int32Array(n)
    let drawn = 0
    if (direct !== undefined)
      for (let i = 0; i < n; i++) {
        const weight = weightAt(i)
        if (!(weight > 0)) continue
        keys[drawn] = Math.log(Math.max(direct.next(), Number.MIN_VALUE)) / weight
        positions[drawn++] = i
      }
    else {
      // one Random.next effect, run once per draw: the same draws as `yield* Random.next`
      const next = random.next
      for (let i = 0; i < n; i++) {
        const weight = weightAt(i)
        if (!(weight > 0)) continue
        const u = yield* next
        keys[drawn] = Math.log(Math.max(u, Number.MIN_VALUE)) / weight
        positions[drawn++] = i
      }
    }
    // keys are never NaN (weight > 0), so the top k by key (ties: earlier draw) is the stable sort's prefix
    return selectTop(drawn, undefined, (d) => keys[d]!, k).map((d) => positions[d]!)
  })

/**
 * Weighted sampling of k items without replacement (Efraimidis–Spirakis: each item draws u^(1/w) and the
 * k largest keys win), returned in draw order (largest key first). Non-positive weights are never drawn.
 */
export const weightedSample = <A>(
  items: ReadonlyArray<A>,
  weightOf: (item: A) => number,
  k: number,
): Effect.Effect<Array<A>> =>
  Effect.map(
    weightedSampleIndexes(items.length, (i) => weightOf(items[i]!), k),
    (positions) => positions.map((i) => items[i]!),
  )

/** Fisher–Yates through Effect's Random. */
export const shuffled = <A>(items: ReadonlyArray<A>): Effect.Effect<Array<A>> =>
  Effect.map(Random.shuffle(items), (chunk) => Array.from(chunk))

/** Per-group counts with a cap: `admit` says whether one more of the group fits, and counts it if so. */
export const groupCounter = <G>(cap: number) => {
  const counts = new Map<G, number>()
  return {
    admit: (group: G): boolean => {
      const count = counts.get(group) ?? 0
      if (count >= cap) return false
      counts.set(group, count + 1)
      return true
    },
    count: (group: G): number => counts.get(group) ?? 0,
  }
}

/** Keeps the order, dropping items whose group already has `cap` members. */
export const capPerGroup = <A>(
  items: ReadonlyArray<A>,
  groupOf: (item: A) => number | string,
  cap: number,
): Array<A> => {
  const counter = groupCounter<number | string>(cap)
  return items.filter((item) => counter.admit(groupOf(item)))
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
  // typed-array sort: numeric ascending
  return Array.from(bestItem.filter((item) => item >= 0).sort())
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
 * proportion to their slots. With `cap`, an item whose group already holds `cap.max` picks is skipped
 * too (the per-artist share of the Discover deck).
 */
export const interleaveBuckets = <K>(
  buckets: ReadonlyArray<Bucket<K>>,
  size: number,
  cap?: { readonly groupOf: (item: number) => number; readonly max: number },
): Array<{ readonly item: number; readonly kind: K }> => {
  const taken = new Set<number>()
  const groups = groupCounter<number>(cap?.max ?? Number.POSITIVE_INFINITY)
  const full = (item: number) => cap !== undefined && groups.count(cap.groupOf(item)) >= cap.max
  const cursor = buckets.map(() => 0)
  const credit = buckets.map(() => 0)
  const active = buckets.map((bucket) => bucket.slots > 0)
  const out: Array<{ item: number; kind: K }> = []
  const nextOf = (b: number): number | undefined => {
    const items = buckets[b]!.items
    while (cursor[b]! < items.length) {
      const item = items[cursor[b]!]!
      if (!taken.has(item) && !full(item)) return item
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
    if (cap !== undefined) groups.admit(cap.groupOf(item))
    cursor[best]!++
    out.push({ item, kind: buckets[best]!.kind })
  }
  return out
}
