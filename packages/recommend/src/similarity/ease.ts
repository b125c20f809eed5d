import { type Interactions, listenerCounts, normalisedTop, type ScoredItems } from "./interactions.js"

/**
 * EASE (Steck 2019), the closed-form item–item model: with G = XᵀX + λI over the kept artists and
 * P = G⁻¹, the weights are B = I − P·diag(1/diag(P)), i.e. B[i][j] = −P[i][j] / P[j][j] off the diagonal
 * and 0 on it. Row i of B says how much listening to i predicts j: the similar artists of i.
 *
 * Memory: the Gram matrix is dense, so only the `maxItems` artists with the most listeners are kept; N kept
 * artists cost N² × 8 bytes (N = 2,000 → 32 MB, inverted in place) and about N³ multiply-adds to invert.
 */
export interface EaseModel {
  /** kept artist indexes, most listeners first */
  readonly kept: Int32Array
  /** artist index → its position in `kept`, or −1 */
  readonly position: Int32Array
  /** B, row-major kept × kept (single precision once held between fits: `learnedSimilarityData`) */
  readonly weights: Float64Array | Float32Array
}

export interface EaseOptions {
  /** the ridge λ added to the Gram matrix's diagonal */
  readonly lambda: number
  /** at most this many artists (those with most listeners) */
  readonly maxItems: number
}

/** The artists with most listeners (ties by index), at most `limit`, only those with a listener. */
export const topItemsByListeners = (interactions: Interactions, limit: number): Int32Array => {
  const counts = listenerCounts(interactions)
  const order: Array<number> = []
  counts.forEach((count, item) => {
    if (count > 0) order.push(item)
  })
  order.sort((a, b) => counts[b]! - counts[a]! || a - b)
  return Int32Array.from(order.slice(0, limit))
}

/**
 * Inverts a symmetric positive definite n × n matrix in place (Gauss–Jordan without pivoting, which SPD
 * matrices never need). Row-major; answers the same array.
 */
export const invertSpdInPlace = (a: Float64Array, n: number): Float64Array => {
  for (let k = 0; k < n; k++) {
    const rowK = k * n
    const pivot = a[rowK + k]!
    if (!(pivot > 0)) throw new Error("matrix is not positive definite")
    a[rowK + k] = 1
    const inv = 1 / pivot
    for (let j = 0; j < n; j++) a[rowK + j]! *= inv
    for (let i = 0; i < n; i++) {
      if (i === k) continue
      const rowI = i * n
      const f = a[rowI + k]!
      if (f === 0) continue
      a[rowI + k] = 0
      for (let j = 0; j < n; j++) a[rowI + j]! -= f * a[rowK + j]!
    }
  }
  return a
}

/** Fits EASE on the interactions (see EaseModel). */
export const fitEase = (interactions: Interactions, options: EaseOptions): EaseModel => {
  const kept = topItemsByListeners(interactions, options.maxItems)
  const n = kept.length
  const position = new Int32Array(interactions.items).fill(-1)
  kept.forEach((item, p) => {
    position[item] = p
  })
  const g = new Float64Array(n * n)
  const mine: Array<number> = []
  const values: Array<number> = []
  for (const row of interactions.rows) {
    mine.length = 0
    values.length = 0
    for (const [item, weight] of row) {
      const p = position[item]!
      if (p >= 0) {
        mine.push(p)
        values.push(weight)
      }
    }
    for (let x = 0; x < mine.length; x++) {
      const base = mine[x]! * n
      const wx = values[x]!
      for (let y = 0; y < mine.length; y++) g[base + mine[y]!]! += wx * values[y]!
    }
  }
  for (let i = 0; i < n; i++) g[i * n + i]! += options.lambda
  const p = invertSpdInPlace(g, n)
  // B[i][j] = −P[i][j] / P[j][j], diagonal 0 (in place: the diagonal is read before it is overwritten).
  const diagonal = new Float64Array(n)
  for (let j = 0; j < n; j++) diagonal[j] = p[j * n + j]!
  for (let i = 0; i < n; i++) {
    const row = i * n
    for (let j = 0; j < n; j++) p[row + j] = i === j ? 0 : -p[row + j]! / diagonal[j]!
  }
  return { kept, position, weights: p }
}

/** The artists most similar to `item` by EASE weight (positive weights only, best = 1). */
export const easeSimilar = (model: EaseModel, item: number, limit: number): ScoredItems => {
  const p = model.position[item] ?? -1
  if (p < 0) return []
  const n = model.kept.length
  const scores: Array<readonly [number, number]> = []
  for (let j = 0; j < n; j++) {
    const w = model.weights[p * n + j]!
    // A kept artist that left the library since the fit is −1.
    if (w > 0 && model.kept[j]! >= 0) scores.push([model.kept[j]!, w])
  }
  return normalisedTop(scores, limit)
}
