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
  const mine = model.byItem[item]
  if (mine === undefined || mine.length === 0) return []
  const both = new Float64Array(model.interactions.items)
  const reached: Array<number> = []
  for (const [u] of mine)
    for (const [j] of model.interactions.rows[u]!) {
      if (j === item) continue
      if (both[j] === 0) reached.push(j)
      both[j]! += 1
    }
  const own = listeners[item]!
  return normalisedTop(
    reached.map((j) => [j, both[j]! / Math.sqrt(own * listeners[j]!)] as const),
    limit,
  )
}
