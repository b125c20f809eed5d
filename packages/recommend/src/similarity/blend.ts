import { type EaseModel, easeSimilar, fitEase } from "./ease.js"
import type { Interactions } from "./interactions.js"
import { listenerCounts, normalisedTop, type ScoredItems } from "./interactions.js"
import { fitRp3beta, type Rp3Model, rp3Similar } from "./rp3beta.js"

/**
 * The learned artist similarity the server ships: EASE and RP3beta fitted on everyone's listening, blended
 * per seed with the tag cosine the spec defines. Each source's list is scaled so its best is 1; the blend
 * is the weighted sum, times a small popularity discount (listeners^−γ) so the very popular artists that
 * every model reaches do not fill every list; scaled again so the best is 1.
 */
export interface LearnedSimilarityTuning {
  readonly easeWeight: number
  readonly rp3Weight: number
  readonly tagWeight: number
  /** γ of the popularity discount */
  readonly popularityDiscount: number
  readonly ease: { readonly lambda: number; readonly maxItems: number }
  readonly rp3: { readonly alpha: number; readonly beta: number }
}

/**
 * Chosen on the development split (packages/recommend/eval; a small grid on one eval-user seed, then
 * checked on three). maxItems bounds EASE's dense Gram matrix: 2,000 artists → 32 MB (one N × N array,
 * inverted in place), about 8·10⁹ multiply-adds: seconds, in the engine's own process (a child of the server).
 */
export const LEARNED_SIMILARITY: LearnedSimilarityTuning = {
  easeWeight: 1,
  rp3Weight: 0.5,
  tagWeight: 0.1,
  popularityDiscount: 0.1,
  ease: { lambda: 100, maxItems: 2000 },
  rp3: { alpha: 1, beta: 0.2 },
}

export interface LearnedSimilarity {
  readonly tuning: LearnedSimilarityTuning
  readonly ease: EaseModel
  readonly rp3: Rp3Model
  readonly listeners: Int32Array
}

export const fitLearnedSimilarity = (
  interactions: Interactions,
  tuning: LearnedSimilarityTuning = LEARNED_SIMILARITY,
): LearnedSimilarity => ({
  tuning,
  ease: fitEase(interactions, tuning.ease),
  rp3: fitRp3beta(interactions, tuning.rp3),
  listeners: listenerCounts(interactions),
})

/** One weighted similarity list of a seed (scores in [0, 1], the best 1). */
export interface WeightedList {
  readonly weight: number
  readonly scores: ScoredItems
}

/**
 * Blends weighted lists: each candidate's score is Σ weight × its score in that list (0 where absent),
 * times discount(candidate); the best scaled to 1, at most `limit`.
 */
export const blendLists = (
  lists: ReadonlyArray<WeightedList>,
  limit: number,
  discount: (item: number) => number = () => 1,
): ScoredItems => {
  const sum = new Map<number, number>()
  for (const { weight, scores } of lists) {
    if (!(weight > 0)) continue
    for (const [item, score] of scores) sum.set(item, (sum.get(item) ?? 0) + weight * score)
  }
  for (const [item, score] of sum) sum.set(item, score * discount(item))
  return normalisedTop(sum, limit)
}

/** How deep each source's list is read before blending (a candidate far down one list still adds). */
export const BLEND_DEPTH = 400

/**
 * The similar artists of `item`: EASE + RP3beta + `tagScores` (the seed's tag cosine to other artists,
 * best = 1) blended, popularity-discounted, at most `limit`, the seed itself left out.
 */
export const learnedSimilar = (
  model: LearnedSimilarity,
  item: number,
  limit: number,
  tagScores: ScoredItems = [],
): ScoredItems => {
  const t = model.tuning
  const blended = blendLists(
    [
      { weight: t.easeWeight, scores: easeSimilar(model.ease, item, BLEND_DEPTH) },
      { weight: t.rp3Weight, scores: rp3Similar(model.rp3, item, BLEND_DEPTH) },
      { weight: t.tagWeight, scores: tagScores.filter(([other]) => other !== item) },
    ],
    limit,
    (other) => Math.max(1, model.listeners[other] ?? 0) ** -t.popularityDiscount,
  )
  return blended
}
