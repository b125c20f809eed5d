import type { ArtistId } from "@tonearm/core"
import type { Catalog, EnrichedTag } from "../catalog/Catalog.js"
import {
  BLEND_DEPTH,
  fitLearnedSimilarity,
  LEARNED_SIMILARITY,
  type LearnedSimilarity,
  type LearnedSimilarityData,
  type LearnedSimilarityTuning,
  learnedSimilar,
  learnedSimilarityData,
  learnedSimilarityFromData,
} from "../similarity/blend.js"
import { interactionsOf } from "../similarity/interactions.js"
import { tagSimilar } from "../similarity/tags.js"

/**
 * In-library artist similarity, as pure data in and out (it runs wherever the engine runs, its own process
 * included): the learned item–item similarity over every listener's plays on this server (EASE and
 * RP3beta, similarity/blend.ts), blended with the cosine of the two artists' tag profiles (genres and
 * enriched tags) in the catalog. Each listener's artists are weighted log(1 + plays) relative to their most
 * played artist.
 */

/** One listener's unskipped plays of one artist (all users: co-listening is a server-wide signal). */
export interface CoListenRow {
  readonly user_id: string
  readonly artist_id: ArtistId
  readonly plays: number
}

export interface SimilarArtistsQuery {
  readonly seeds: ReadonlyArray<ArtistId>
  /** the most similar artists kept per seed */
  readonly limit: number
}

/**
 * A learned similarity fitted on one library's artists: its data (typed arrays, cheap to hold and to send to
 * another process) and the artist ids its indexes stand for, so it still answers after the library changed.
 */
export interface FittedSimilarity {
  readonly artistIds: ReadonlyArray<ArtistId>
  readonly data: LearnedSimilarityData
}

/** Fits the learned similarity on the co-listening rows, as data (the engine's fit job). */
export const fitSimilarityData = (catalog: Catalog, coListens: ReadonlyArray<CoListenRow>): FittedSimilarity => ({
  artistIds: catalog.artistIds,
  data: learnedSimilarityData(learnedSimilarityOf(catalog, coListens)),
})

/** The fitted similarity read back against `catalog` (its artist indexes moved when the library changed). */
export const learnedSimilarityFor = (catalog: Catalog, fitted: FittedSimilarity): LearnedSimilarity => {
  const same =
    fitted.artistIds === catalog.artistIds ||
    (fitted.artistIds.length === catalog.artistIds.length &&
      fitted.artistIds.every((id, i) => catalog.artistIds[i] === id))
  if (same) return learnedSimilarityFromData(fitted.data)
  const index = Int32Array.from(fitted.artistIds, (id) => catalog.artistIndex.get(id) ?? -1)
  return learnedSimilarityFromData(fitted.data, { index, items: catalog.artistIds.length })
}

/** One in-library artist similar to a seed. `mbid` is null when the artist has no MusicBrainz id. */
export interface SimilarArtistHit {
  readonly artist_id: ArtistId
  readonly score: number
  readonly mbid: string | null
  /** the artist's tags, strongest = 1 (what rule 5's tag overlap reads) */
  readonly tags: ReadonlyArray<EnrichedTag>
}

export interface SeedSimilarities {
  readonly seed: ArtistId
  readonly similar: ReadonlyArray<SimilarArtistHit>
}

/**
 * The learned similarity fitted on the co-listening rows (catalog artist indexes; artists no longer in the
 * library are left out). The engine's process keeps one and refits it when the rows change
 * (server learnedSimilarityCache.ts); its cost is bounded by LEARNED_SIMILARITY.ease.maxItems.
 */
export const learnedSimilarityOf = (
  catalog: Catalog,
  coListens: ReadonlyArray<CoListenRow>,
  tuning: LearnedSimilarityTuning = LEARNED_SIMILARITY,
): LearnedSimilarity =>
  fitLearnedSimilarity(
    interactionsOf(
      catalog.artistIds.length,
      coListens.map((row) => ({
        user: row.user_id,
        item: catalog.artistIndex.get(row.artist_id) ?? -1,
        plays: row.plays,
      })),
    ),
    tuning,
  )

/**
 * The in-library similar artists of each seed: the learned blend (EASE + RP3beta over every listener's
 * plays, with the tag cosine's share), best = 1, at most `limit`. Without a fitted model yet (a server's
 * first fit still running) the tag cosine alone answers.
 */
export const similarInLibrary = (
  catalog: Catalog,
  query: SimilarArtistsQuery,
  learned: LearnedSimilarity | undefined,
): ReadonlyArray<SeedSimilarities> =>
  query.seeds.map((seed) => {
    const s = catalog.artistIndex.get(seed)
    if (s === undefined) return { seed, similar: [] }
    const tags = tagSimilar(catalog, s, BLEND_DEPTH)
    const ranked = learned === undefined ? tags.slice(0, query.limit) : learnedSimilar(learned, s, query.limit, tags)
    return {
      seed,
      similar: ranked.map(([a, score]) => ({
        artist_id: catalog.artistIds[a]!,
        score,
        mbid: catalog.artistMbid[a] ?? null,
        tags: artistTags(catalog, a),
      })),
    }
  })

/** The artist's tag profile with its strongest tag at 1, strongest first. */
const artistTags = (catalog: Catalog, artist: number): ReadonlyArray<EnrichedTag> => {
  const vector = catalog.artistVectors[artist]!
  let strongest = 0
  for (const value of vector.values) strongest = Math.max(strongest, value)
  if (strongest <= 0) return []
  const tags: Array<EnrichedTag> = []
  vector.ids.forEach((id, k) => {
    const weight = vector.values[k]! / strongest
    if (weight > 0) tags.push({ name: catalog.tagNames[id]!, weight })
  })
  return tags.sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1))
}
