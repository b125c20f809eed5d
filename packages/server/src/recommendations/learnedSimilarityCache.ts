import {
  type Catalog,
  type FittedSimilarity,
  type LearnedSimilarity,
  learnedSimilarityFor,
  type SimilarArtistsQuery,
  similarInLibrary,
} from "@tonearm/recommend"

/**
 * The fitted learned similarity a similar-artists read uses: a key naming one fit (the server's
 * LearnedSimilarityService assigns it) and the fit itself when the engine may not hold it yet. Absent before
 * the server's first fit: the tag cosine answers alone.
 */
export interface SimilarityModelRef {
  readonly key: string
  readonly fitted?: FittedSimilarity | undefined
}

/**
 * The engine's side (its own process, or the in-process engine): the last fitted model read back against the
 * current catalog, kept between reads (reading it back rebuilds RP3beta's walk lists: O(listening pairs)).
 * A fit this side computed is kept under its key, so the reads after it need not carry it.
 */
export const learnedSimilarityCache = () => {
  let held: { readonly key: string; readonly catalog: Catalog; readonly model: LearnedSimilarity } | undefined
  let fittedHere: { readonly key: string; readonly fitted: FittedSimilarity } | undefined
  /** The model of `ref` for `catalog`; undefined without a ref; throws when the ref's fit never reached here. */
  const modelFor = (catalog: Catalog, ref: SimilarityModelRef | undefined): LearnedSimilarity | undefined => {
    if (ref === undefined) return undefined
    if (held !== undefined && held.key === ref.key && held.catalog === catalog) return held.model
    const fitted = ref.fitted ?? (fittedHere?.key === ref.key ? fittedHere.fitted : undefined)
    if (fitted === undefined) throw new Error(`learned similarity ${ref.key} was never sent`)
    held = undefined // the old model's memory is free before the new one is read back
    const model = learnedSimilarityFor(catalog, fitted)
    held = { key: ref.key, catalog, model }
    fittedHere = { key: ref.key, fitted }
    return model
  }
  return {
    modelFor,
    /** Remembers a fit computed on this side (the fit job), under the key the server gave it. */
    keep: (key: string, fitted: FittedSimilarity) => {
      held = undefined
      fittedHere = { key, fitted }
    },
    similar: (catalog: Catalog, query: SimilarArtistsQuery, ref: SimilarityModelRef | undefined) =>
      similarInLibrary(catalog, query, modelFor(catalog, ref)),
  }
}
