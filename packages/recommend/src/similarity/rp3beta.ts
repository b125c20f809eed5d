import { type Interactions, normalisedTop, type ScoredItems } from "./interactions.js"

/**
 * RP3beta (Paudel et al. 2017): a three-step random walk artist → listener → artist over the weighted
 * listening graph, each step's probability raised to α, the arrival artist's score divided by its
 * popularity^β so the walk does not always end on the most played artists:
 *
 *   W[i][j] = Σ_u (x_ui / d_i)^α · (x_uj / d_u)^α / d_j^β,   d_i = Σ_u x_ui, d_u = Σ_j x_uj.
 *
 * Computed per seed on demand from the listener lists (no dense matrix): a seed's row costs the sum of
 * the listening of its listeners. The listening is held twice in compressed typed arrays, by listener and by
 * artist (12 bytes per listener–artist pair each way): cheap to build from the held data, no object per pair.
 */
export interface Rp3Model {
  readonly items: number
  /** listener u's pairs are rowItems / rowWeights[rowStart[u] … rowStart[u + 1]) */
  readonly rowStart: Int32Array
  readonly rowItems: Int32Array
  readonly rowWeights: Float32Array | Float64Array
  /** artist i's listeners are colUsers / colWeights[colStart[i] … colStart[i + 1]) */
  readonly colStart: Int32Array
  readonly colUsers: Int32Array
  readonly colWeights: Float32Array | Float64Array
  readonly itemDegree: Float64Array
  readonly userDegree: Float64Array
  readonly alpha: number
  readonly beta: number
}

export interface Rp3Options {
  readonly alpha: number
  readonly beta: number
}

/** The model over listening already in compressed rows (artist indexes in [0, items)). */
export const rp3FromRows = (
  items: number,
  rowStart: Int32Array,
  rowItems: Int32Array,
  rowWeights: Float32Array | Float64Array,
  options: Rp3Options,
): Rp3Model => {
  const users = rowStart.length - 1
  const colStart = new Int32Array(items + 1)
  for (let k = 0; k < rowItems.length; k++) colStart[rowItems[k]! + 1]! += 1
  for (let i = 0; i < items; i++) colStart[i + 1]! += colStart[i]!
  const fill = colStart.slice(0, items)
  const colUsers = new Int32Array(rowItems.length)
  const colWeights = new Float64Array(rowItems.length)
  const itemDegree = new Float64Array(items)
  const userDegree = new Float64Array(users)
  for (let u = 0; u < users; u++)
    for (let k = rowStart[u]!; k < rowStart[u + 1]!; k++) {
      const item = rowItems[k]!
      const weight = rowWeights[k]!
      const at = fill[item]!++
      colUsers[at] = u
      colWeights[at] = weight
      itemDegree[item]! += weight
      userDegree[u]! += weight
    }
  return {
    items,
    rowStart,
    rowItems,
    rowWeights,
    colStart,
    colUsers,
    colWeights,
    itemDegree,
    userDegree,
    alpha: options.alpha,
    beta: options.beta,
  }
}

export const fitRp3beta = (interactions: Interactions, options: Rp3Options): Rp3Model => {
  const rowStart = new Int32Array(interactions.rows.length + 1)
  interactions.rows.forEach((row, u) => {
    rowStart[u + 1] = rowStart[u]! + row.length
  })
  const rowItems = new Int32Array(rowStart[interactions.rows.length]!)
  const rowWeights = new Float64Array(rowItems.length)
  interactions.rows.forEach((row, u) => {
    row.forEach(([item, weight], k) => {
      rowItems[rowStart[u]! + k] = item
      rowWeights[rowStart[u]! + k] = weight
    })
  })
  return rp3FromRows(interactions.items, rowStart, rowItems, rowWeights, options)
}

/** The raw walk scores W[item][j] of every artist j the walk from `item` reaches (the seed left out). */
export const rp3Scores = (model: Rp3Model, item: number): Map<number, number> => {
  const scores = new Map<number, number>()
  if (item < 0 || item >= model.items || model.colStart[item] === model.colStart[item + 1]) return scores
  // Dense accumulation (one array per call, the size of the artist count), then the reached ones.
  const dense = new Float64Array(model.items)
  const reached: Array<number> = []
  const d = model.itemDegree[item]!
  const alpha = model.alpha
  for (let c = model.colStart[item]!; c < model.colStart[item + 1]!; c++) {
    const u = model.colUsers[c]!
    const first = (model.colWeights[c]! / d) ** alpha
    const du = model.userDegree[u]!
    for (let k = model.rowStart[u]!; k < model.rowStart[u + 1]!; k++) {
      const j = model.rowItems[k]!
      if (j === item) continue
      if (dense[j] === 0) reached.push(j)
      const xuj = model.rowWeights[k]!
      dense[j]! += first * (alpha === 1 ? xuj / du : (xuj / du) ** alpha)
    }
  }
  for (const j of reached) scores.set(j, dense[j]! / model.itemDegree[j]! ** model.beta)
  return scores
}

/** The artists the walk from `item` reaches, best first, scaled so the best is 1 (the seed left out). */
export const rp3Similar = (model: Rp3Model, item: number, limit: number): ScoredItems =>
  normalisedTop(rp3Scores(model, item), limit)
