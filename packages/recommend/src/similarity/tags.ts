import { type Catalog, cosine } from "../catalog/Catalog.js"
import { normalisedTop, type ScoredItems } from "./interactions.js"

/**
 * The spec's tag overlap between artists: the cosine of the seed's tag profile (genres and enriched tags)
 * with every other artist's in the catalog, best first and scaled so the best is 1 (catalog artist indexes).
 */
export const tagSimilar = (catalog: Catalog, artist: number, limit: number): ScoredItems => {
  const seed = catalog.artistVectors[artist]
  if (seed === undefined || seed.ids.length === 0) return []
  const scores: Array<readonly [number, number]> = []
  catalog.artistVectors.forEach((vector, other) => {
    if (other === artist || vector.ids.length === 0) return
    const score = cosine(vector, seed)
    if (score > 0) scores.push([other, score])
  })
  return normalisedTop(scores, limit)
}
