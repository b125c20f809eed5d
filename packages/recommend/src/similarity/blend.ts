import { cooccurrenceSimilar } from "./cooccurrence.js"
import { type EaseModel, easeSimilar, fitEase } from "./ease.js"
import type { Interactions } from "./interactions.js"
import { listenerCounts, normalisedTop, type ScoredItems } from "./interactions.js"
import { fitRp3beta, type Rp3Model, rp3FromRows, rp3Similar } from "./rp3beta.js"

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
  /** item-kNN's listener-set cosine (cooccurrence.ts), a third model in the ensemble */
  readonly knnWeight: number
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
  knnWeight: 0,
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

/**
 * A fitted learned similarity as flat typed arrays: what the server holds between fits and sends to the
 * engine's processes (V8 serialisation copies typed arrays as bytes). EASE's weights in single precision
 * (N² × 4 bytes: 16 MB at 2,000 artists), the listening as compressed rows (8 bytes per listener–artist
 * pair); RP3beta's by-artist lists are rebuilt from them (a counting sort) when the model is read back
 * (`learnedSimilarityFromData`).
 */
export interface LearnedSimilarityData {
  readonly tuning: LearnedSimilarityTuning
  readonly items: number
  readonly easeKept: Int32Array
  readonly easeWeights: Float32Array
  /** listener u's pairs are rowItems / rowWeights[rowStart[u] … rowStart[u + 1]) */
  readonly rowStart: Int32Array
  readonly rowItems: Int32Array
  readonly rowWeights: Float32Array
}

export const learnedSimilarityData = (model: LearnedSimilarity): LearnedSimilarityData => {
  const { rowStart, rowItems, rowWeights, items } = model.rp3
  return {
    tuning: model.tuning,
    items,
    easeKept: model.ease.kept,
    easeWeights:
      model.ease.weights instanceof Float32Array ? model.ease.weights : Float32Array.from(model.ease.weights),
    rowStart,
    rowItems,
    rowWeights: rowWeights instanceof Float32Array ? rowWeights : Float32Array.from(rowWeights),
  }
}

/** The bytes a fitted model's data holds. */
export const learnedSimilarityBytes = (data: LearnedSimilarityData): number =>
  data.easeKept.byteLength +
  data.easeWeights.byteLength +
  data.rowStart.byteLength +
  data.rowItems.byteLength +
  data.rowWeights.byteLength

/**
 * The model back from its data, its artist indexes moved by `remap` (fit index → today's index, −1 for an
 * artist gone since; `items` today's artist count) when the library changed after the fit.
 */
export const learnedSimilarityFromData = (
  data: LearnedSimilarityData,
  remap?: { readonly index: Int32Array; readonly items: number },
): LearnedSimilarity => {
  const items = remap?.items ?? data.items
  let { rowStart, rowItems, rowWeights } = data
  if (remap !== undefined) {
    // The pairs of artists still in the library, their indexes moved (typed arrays throughout: no object per pair).
    const users = rowStart.length - 1
    const start = new Int32Array(users + 1)
    const moved = new Int32Array(rowItems.length)
    const weights = new Float32Array(rowItems.length)
    let n = 0
    for (let u = 0; u < users; u++) {
      for (let k = rowStart[u]!; k < rowStart[u + 1]!; k++) {
        const item = remap.index[rowItems[k]!] ?? -1
        if (item < 0) continue
        moved[n] = item
        weights[n] = rowWeights[k]!
        n++
      }
      start[u + 1] = n
    }
    rowStart = start
    rowItems = moved.subarray(0, n)
    rowWeights = weights.subarray(0, n)
  }
  const kept = remap === undefined ? data.easeKept : data.easeKept.map((item) => remap.index[item] ?? -1)
  const position = new Int32Array(items).fill(-1)
  kept.forEach((item, p) => {
    if (item >= 0) position[item] = p
  })
  const rp3 = rp3FromRows(items, rowStart, rowItems, rowWeights, data.tuning.rp3)
  const listeners = new Int32Array(items)
  for (let i = 0; i < items; i++) listeners[i] = rp3.colStart[i + 1]! - rp3.colStart[i]!
  return { tuning: data.tuning, ease: { kept, position, weights: data.easeWeights }, rp3, listeners }
}

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
      {
        weight: t.knnWeight,
        scores: t.knnWeight > 0 ? cooccurrenceSimilar(model.rp3, model.listeners, item, BLEND_DEPTH) : [],
      },
    ],
    limit,
    (other) => Math.max(1, model.listeners[other] ?? 0) ** -t.popularityDiscount,
  )
  return blended
}
