import { type Interactions, normalisedTop, type ScoredItems } from "./interactions.js"

/**
 * RP3beta (Paudel et al. 2017): a three-step random walk artist → listener → artist over the weighted
 * listening graph, each step's probability raised to α, the arrival artist's score divided by its
 * popularity^β so the walk does not always end on the most played artists:
 *
 *   W[i][j] = Σ_u (x_ui / d_i)^α · (x_uj / d_u)^α / d_j^β,   d_i = Σ_u x_ui, d_u = Σ_j x_uj.
 *
 * Computed per seed on demand from the listener lists (no dense matrix): a seed's row costs the sum of
 * the listening of its listeners. Memory is the interactions themselves, twice (by listener and by artist).
 */
export interface Rp3Model {
  readonly interactions: Interactions
  /** artist index → (listener row, weight) */
  readonly byItem: ReadonlyArray<ReadonlyArray<readonly [row: number, weight: number]>>
  readonly itemDegree: Float64Array
  readonly userDegree: Float64Array
  readonly alpha: number
  readonly beta: number
}

export interface Rp3Options {
  readonly alpha: number
  readonly beta: number
}

export const fitRp3beta = (interactions: Interactions, options: Rp3Options): Rp3Model => {
  const byItem: Array<Array<readonly [number, number]>> = Array.from({ length: interactions.items }, () => [])
  const itemDegree = new Float64Array(interactions.items)
  const userDegree = new Float64Array(interactions.rows.length)
  interactions.rows.forEach((row, u) => {
    for (const [item, weight] of row) {
      byItem[item]!.push([u, weight])
      itemDegree[item]! += weight
      userDegree[u]! += weight
    }
  })
  return { interactions, byItem, itemDegree, userDegree, alpha: options.alpha, beta: options.beta }
}

/** The raw walk scores W[item][j] of every artist j the walk from `item` reaches (the seed left out). */
export const rp3Scores = (model: Rp3Model, item: number): Map<number, number> => {
  const scores = new Map<number, number>()
  const listeners = model.byItem[item]
  if (listeners === undefined || listeners.length === 0) return scores
  // Dense accumulation (one array per call, the size of the artist count), then the reached ones.
  const dense = new Float64Array(model.interactions.items)
  const reached: Array<number> = []
  const d = model.itemDegree[item]!
  const alpha = model.alpha
  for (const [u, xui] of listeners) {
    const first = (xui / d) ** alpha
    const du = model.userDegree[u]!
    for (const [j, xuj] of model.interactions.rows[u]!) {
      if (j === item) continue
      if (dense[j] === 0) reached.push(j)
      dense[j]! += first * (alpha === 1 ? xuj / du : (xuj / du) ** alpha)
    }
  }
  for (const j of reached) scores.set(j, dense[j]! / model.itemDegree[j]! ** model.beta)
  return scores
}

/** The artists the walk from `item` reaches, best first, scaled so the best is 1 (the seed left out). */
export const rp3Similar = (model: Rp3Model, item: number, limit: number): ScoredItems =>
  normalisedTop(rp3Scores(model, item), limit)
