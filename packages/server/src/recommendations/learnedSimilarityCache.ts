import {
  type Catalog,
  type CoListenRow,
  type LearnedSimilarity,
  learnedSimilarityOf,
  type SimilarArtistsQuery,
  similarInLibrary,
} from "@tonearm/recommend"

/**
 * The learned artist similarity (EASE + RP3beta over every listener's plays) lives in the engine's process
 * between requests: fitting it costs up to seconds (LEARNED_SIMILARITY.ease.maxItems bounds it), answering a
 * seed from it milliseconds. It is refitted when the co-listening rows or the catalog changed: at once on a
 * small server (fewer than LEARNED_SMALL_ARTISTS artists played: a fit there takes milliseconds and each new
 * listener matters), at most once a day on a large one, like the nightly rebuild (its neighbours move slowly,
 * a day's new plays barely shift them; at the nightly bench's shape a fit takes 20–50 s of the engine's
 * process, which then serves the similar-artist job that asked for it).
 */
export const LEARNED_REFIT_MS = 24 * 60 * 60_000
export const LEARNED_SMALL_ARTISTS = 500

/** A cheap fingerprint of the co-listening rows: their count and an order-independent hash. */
export const coListenFingerprint = (rows: ReadonlyArray<CoListenRow>): string => {
  let sum = 0
  let xor = 0
  for (const row of rows) {
    let h = 2166136261
    const text = `${row.user_id}|${row.artist_id}|${row.plays}`
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
    sum = (sum + (h >>> 0)) % 4294967296
    xor ^= h
  }
  return `${rows.length}:${sum}:${xor >>> 0}`
}

export const learnedSimilarityCache = () => {
  let held:
    | {
        readonly catalog: Catalog
        readonly fingerprint: string
        readonly checkedAt: number
        readonly model: LearnedSimilarity
      }
    | undefined
  const modelFor = (catalog: Catalog, rows: ReadonlyArray<CoListenRow>, now: number): LearnedSimilarity => {
    if (held !== undefined && held.catalog === catalog) {
      // A large server's young model is kept without reading the rows (a million of them at the bench's shape).
      const small = held.model.ease.kept.length < LEARNED_SMALL_ARTISTS
      if (!small && now - held.checkedAt < LEARNED_REFIT_MS) return held.model
      const fingerprint = coListenFingerprint(rows)
      if (held.fingerprint === fingerprint) {
        held = { ...held, checkedAt: now }
        return held.model
      }
      held = undefined // the old model's memory is free before the new one is built
      return fit(catalog, rows, now, fingerprint)
    }
    held = undefined
    return fit(catalog, rows, now, coListenFingerprint(rows))
  }
  const fit = (catalog: Catalog, rows: ReadonlyArray<CoListenRow>, now: number, fingerprint: string) => {
    const model = learnedSimilarityOf(catalog, rows)
    held = { catalog, fingerprint, checkedAt: now, model }
    return model
  }
  return {
    modelFor,
    similar: (catalog: Catalog, query: SimilarArtistsQuery, now: number) =>
      similarInLibrary(catalog, query, modelFor(catalog, query.coListens, now)),
  }
}
