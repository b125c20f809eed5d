import { normalisedTop, type ScoredItems } from "./interactions.js"
import type { Rp3Model } from "./rp3beta.js"

/**
 * Item-kNN's similarity as one more learned source: the cosine of two artists' listener sets,
 * |U_i ∩ U_j| / √(|U_i| · |U_j|), walked per seed over the same listener lists RP3beta keeps (no matrix).
 */
export const cooccurrenceSimilar = (
  model: Rp3Model,
  listeners: Int32Array,
  item: number,
  limit: number,
): ScoredItems => {
  if (item < 0 || item >= model.items || model.colStart[item] === model.colStart[item + 1]) return []
  const both = new Float64Array(model.items)
  const reached: Array<number> = []
  for (let c = model.colStart[item]!; c < model.colStart[item + 1]!; c++) {
    const u = model.colUsers[c]!
    for (let k = model.rowStart[u]!; k < model.rowStart[u + 1]!; k++) {
      const j = model.rowItems[k]!
      if (j === item) continue
      if (both[j] === 0) reached.push(j)
      both[j]! += 1
    }
  }
  const own = listeners[item]!
  return normalisedTop(
    reached.map((j) => [j, both[j]! / Math.sqrt(own * listeners[j]!)] as const),
    limit,
  )
}
