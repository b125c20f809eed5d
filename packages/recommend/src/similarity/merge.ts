import type { SimilarCandidate } from "../surfaces/discoverSuggestions.js"

/** One source's similar artists for one seed, with the weight its scores carry in the merge. */
export interface SourceAnswer {
  readonly weight: number
  readonly candidates: ReadonlyArray<SimilarCandidate>
}

/**
 * The similar artists of one seed from every source, each artist once (an in-library artist by its artist
 * id, others by MusicBrainz id): its score is the weighted sum of the sources' scores (each in [0, 1]),
 * divided by the total weight of the sources that answered anything, so a seed only one source knows keeps
 * that source's scale; an in-library artist keeps its artist id whichever source named it, and the first
 * non-empty tags. Best first (ties by key), at most `limit`.
 */
export const mergeSourceAnswers = (answers: ReadonlyArray<SourceAnswer>, limit: number): Array<SimilarCandidate> => {
  const merged = new Map<string, { candidate: SimilarCandidate; sum: number }>()
  let total = 0
  for (const { weight, candidates } of answers) {
    if (!(weight > 0) || candidates.length === 0) continue
    total += weight
    for (const candidate of candidates) {
      const key = candidate.artist_id ?? candidate.mbid
      const score = weight * Math.min(1, Math.max(0, candidate.score))
      const known = merged.get(key)
      if (known === undefined) {
        merged.set(key, { candidate, sum: score })
        continue
      }
      known.sum += score
      known.candidate = {
        ...known.candidate,
        in_library: known.candidate.in_library || candidate.in_library,
        artist_id: known.candidate.artist_id ?? candidate.artist_id,
        tags: known.candidate.tags.length > 0 ? known.candidate.tags : candidate.tags,
      }
    }
  }
  return [...merged]
    .map(([key, { candidate, sum }]) => ({ key, candidate: { ...candidate, score: total > 0 ? sum / total : 0 } }))
    .sort((a, b) => b.candidate.score - a.candidate.score || (a.key < b.key ? -1 : 1))
    .slice(0, limit)
    .map(({ candidate }) => candidate)
}

/**
 * The weight of each similar-artists source in the blend (`blendSourcesByRank`): the learned in-library
 * similarity (EASE + RP3beta + tag cosine) leads, a provider's list (Last.fm, ListenBrainz) counts less.
 * `rankK` is the rank blend's damping: a source's i-th artist (0 = its best) carries weight × k / (k + i).
 * Chosen on the development split only (packages/recommend/eval, `--variants`, three seeds): NDCG@10 0.2415
 * (1.153× item-kNN) against 0.2378 at k 20, 0.2353 at k 60, 0.2390 at provider 0.1 and 0.2361 at 0.5; the old
 * max-merge 0.2286, the learned list alone 0.2419. Small k keeps the blend close to each list's head.
 */
export const SIMILAR_SOURCE_WEIGHTS = { in_library: 1, provider: 0.25, rankK: 5 } as const

/**
 * What the server ships (SuggestionSources.similarFromAll): one seed's similar artists from every source,
 * blended by rank. Each source's list is read best first; its i-th artist scores weight × k / (k + i), so a
 * source's best counts its whole weight whatever its raw scale, and a provider whose scores are all near 1
 * cannot crowd out the learned list. An artist named by several sources adds their parts. The sum is divided
 * by the total weight of the sources that answered anything, so scores stay in [0, 1] and a seed only one
 * source knows keeps that source's scale. Each artist once (an in-library artist by its artist id, others by
 * MusicBrainz id); an in-library artist keeps its artist id whichever source named it, and the first
 * non-empty tags. Best first (ties by key), at most `limit`.
 */
export const blendSourcesByRank = (
  answers: ReadonlyArray<SourceAnswer>,
  limit: number,
  k: number = SIMILAR_SOURCE_WEIGHTS.rankK,
): Array<SimilarCandidate> =>
  mergeSourceAnswers(
    answers.map(({ weight, candidates }) => ({
      weight,
      candidates: [...candidates]
        .filter((candidate) => candidate.score > 0)
        .sort((a, b) => b.score - a.score)
        .map((candidate, rank) => ({ ...candidate, score: k / (k + rank) })),
    })),
    limit,
  )

/**
 * What the server ships (SuggestionSources.similarFromAll): one seed's similar artists from every source,
 * each artist once (an in-library artist by its artist id, so two local artists carrying one MusicBrainz
 * id stay apart; others by MusicBrainz id): the highest score wins, and an in-library artist keeps its
 * artist id whichever source named it. In the order first met.
 */
export const mergeSimilarByMax = (answers: ReadonlyArray<ReadonlyArray<SimilarCandidate>>): Array<SimilarCandidate> => {
  const bySeed = new Map<string, SimilarCandidate>()
  for (const candidates of answers)
    for (const candidate of candidates) {
      const key = candidate.artist_id ?? candidate.mbid
      const known = bySeed.get(key)
      if (known === undefined) bySeed.set(key, candidate)
      else {
        const best = candidate.score > known.score ? candidate : known
        bySeed.set(key, {
          ...best,
          in_library: known.in_library || candidate.in_library,
          artist_id: known.artist_id ?? candidate.artist_id,
          tags: best.tags.length > 0 ? best.tags : known.tags.length > 0 ? known.tags : candidate.tags,
        })
      }
    }
  return [...bySeed.values()]
}
