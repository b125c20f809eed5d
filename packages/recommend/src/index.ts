/**
 * @tonearm/recommend: Tonearm's pure recommendation engine. Every scoring and selection rule of the spec
 * as deterministic code: no I/O, time from the Effect Clock (or an explicit `now`), chance from the
 * Effect Random (seedable). The server loads rows, calls these, and stores the results.
 */
export * from "./catalog/Catalog.js"
export * from "./history/ListeningHistory.js"
export * from "./metrics/metrics.js"
export * from "./scoring/contextAffinity.js"
export * from "./scoring/contextCell.js"
export * from "./scoring/suggestionRanking.js"
export * from "./scoring/tasteMatch.js"
export * from "./scoring/weightedScore.js"
export * from "./similarity/blend.js"
export * from "./similarity/cooccurrence.js"
export * from "./similarity/ease.js"
export * from "./similarity/interactions.js"
export * from "./similarity/merge.js"
export * from "./similarity/rp3beta.js"
export * from "./similarity/tags.js"
export {
  contextAt,
  featuresOf,
  makeScorer,
  type ScoreOptions,
  type ScoringBasis,
  scoringBasis,
} from "./surfaces/basis.js"
export * from "./surfaces/dailyMixes.js"
export * from "./surfaces/discoverDeck.js"
export * from "./surfaces/discoverSuggestions.js"
export * from "./surfaces/diversity.js"
export * from "./surfaces/forYou.js"
export * from "./surfaces/ladders.js"
export * from "./surfaces/reasons.js"
export * from "./surfaces/rebuild.js"
export * from "./surfaces/rotation.js"
export * from "./surfaces/Surface.js"
export * from "./surfaces/seeded.js"
export { type Bucket, interleaveBuckets, topK, weightedSample } from "./surfaces/select.js"
export * from "./surfaces/similarInLibrary.js"
export * from "./surfaces/youMightLike.js"
export * from "./taste/buildTasteProfile.js"
export * from "./taste/eras.js"
export * from "./taste/moods.js"
export * from "./taste/TasteProfile.js"
export * from "./trends/trends.js"
