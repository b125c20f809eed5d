import type { EnrichedTag } from "../catalog/Catalog.js"

/**
 * Rule 5, tag overlap: the sum over the candidate's tags that the profile also has of
 * (candidate tag weight × profile tag weight / the user's strongest tag), divided by the sum of all the
 * candidate's tag weights. "Strongest" is the largest magnitude, so each normalised weight is in [−1, 1]
 * and so is the overlap. No tags (or no profile tags) → 0.
 */
export const tagOverlap = (
  profileTags: ReadonlyMap<string, number> | undefined,
  candidateTags: ReadonlyArray<EnrichedTag>,
  strongest: number = strongestTag(profileTags),
): number => {
  if (profileTags === undefined || strongest <= 0) return 0
  let shared = 0
  let total = 0
  for (const tag of candidateTags) {
    if (!(tag.weight > 0)) continue
    total += tag.weight
    const taste = profileTags.get(tag.name)
    if (taste !== undefined) shared += tag.weight * (taste / strongest)
  }
  return total > 0 ? shared / total : 0
}

export const strongestTag = (profileTags: ReadonlyMap<string, number> | undefined): number => {
  let strongest = 0
  for (const weight of profileTags?.values() ?? []) strongest = Math.max(strongest, Math.abs(weight))
  return strongest
}

/** Rule 5: final score = similarity score × (1 + weight × overlap). */
export const suggestionScore = (similarity: number, weight: number, overlap: number): number =>
  similarity * (1 + weight * overlap)

export interface RankableSuggestion {
  readonly score: number
  readonly tags: ReadonlyArray<EnrichedTag>
}

export interface RankedSuggestion<A> {
  readonly candidate: A
  readonly similarity: number
  readonly overlap: number
  readonly score: number
}

/**
 * Rule 5 over the whole over-fetched pool, before rotation and diversity: every candidate's similarity
 * score is blended with its tag overlap and the pool re-sorted (ties keep the similarity order). An
 * untagged candidate keeps exactly its score; weight 0 restores pure similarity order.
 */
export const rankSuggestions = <A extends RankableSuggestion>(
  pool: ReadonlyArray<A>,
  profileTags: ReadonlyMap<string, number> | undefined,
  weight: number,
): ReadonlyArray<RankedSuggestion<A>> => {
  const strongest = strongestTag(profileTags)
  return pool
    .map((candidate, order) => {
      const overlap = tagOverlap(profileTags, candidate.tags, strongest)
      return {
        candidate,
        similarity: candidate.score,
        overlap,
        score: suggestionScore(candidate.score, weight, overlap),
        order,
      }
    })
    .sort((a, b) => b.score - a.score || b.similarity - a.similarity || a.order - b.order)
    .map(({ candidate, similarity, overlap, score }) => ({ candidate, similarity, overlap, score }))
}
