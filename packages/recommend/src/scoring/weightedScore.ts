import type { WeightProfile } from "@tonearm/core"

/**
 * The per-candidate features the eight weights apply to. Each is on a fixed scale so the weights mean the
 * same thing everywhere:
 * - similarity ∈ [0, 1]: to the seed (radio, Songs like) or to the mix's cluster (daily mixes); 0 without
 * - tasteMatch ∈ [−1.27, 1.27]: rule 1
 * - contextAffinity ∈ [−1, 1]: rule 3
 * - like ∈ {0, 0.5, 1}: the track liked = 1, its album or artist liked = 0.5
 * - novelty ∈ (0, 1]: 1 / (1 + the user's unskipped plays of the track)
 * - popularity ∈ [0, 1]: supplied by the server (other listeners), 0 when unknown
 * - recency ∈ [0, 1]: 1 just played, falling linearly to 0 at the recently-played horizon
 * - skipRate ∈ [0, 1): skips / (plays + skips + 1)
 */
export interface ScoreFeatures {
  readonly similarity: number
  readonly tasteMatch: number
  readonly contextAffinity: number
  readonly like: number
  readonly novelty: number
  readonly popularity: number
  readonly recency: number
  readonly skipRate: number
}

/**
 * Rule 2: the weighted score. The taste term is taste_weight × match, added like every other term; the
 * recency and skip terms are penalties.
 */
export const weightedScore = (weights: WeightProfile, f: ScoreFeatures): number =>
  weights.similarity_weight * f.similarity +
  weights.taste_weight * f.tasteMatch +
  weights.context_time_weight * f.contextAffinity +
  weights.like_weight * f.like +
  weights.novelty_weight * f.novelty +
  weights.popularity_weight * f.popularity -
  weights.recency_penalty_weight * f.recency -
  weights.skip_penalty_weight * f.skipRate

export const noveltyOf = (unskippedPlays: number): number => 1 / (1 + Math.max(0, unskippedPlays))

export const skipRateOf = (plays: number, skips: number): number => skips / (plays + skips + 1)

/** 1 at the moment of the last play, 0 at `horizonMs` and beyond (or never played). */
export const recencyOf = (lastPlayedMs: number, now: number, horizonMs: number): number => {
  if (!Number.isFinite(lastPlayedMs) || horizonMs <= 0) return 0
  const age = now - lastPlayedMs
  return age < 0 ? 1 : Math.max(0, 1 - age / horizonMs)
}
