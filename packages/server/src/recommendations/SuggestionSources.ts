import type { ArtistId, Internal } from "@tonearm/core"
import { mergeSimilarByMax, type SuggestionCandidate } from "@tonearm/recommend"
import { Context, Effect, Layer } from "effect"
import { EnrichmentService } from "../enrichment/index.js"
import { LibraryService } from "../library/index.js"
import { LearnedSimilarityService } from "./LearnedSimilarityService.js"
import { RebuildService } from "./RebuildService.js"
import { RecommendationEngine } from "./RecommendationEngine.js"

/**
 * Where similar artists come from: each source answers, for seed artists, the artists it finds similar
 * (in the library or not) as `SuggestionCandidate`s keyed by MusicBrainz id. The server ships the
 * in-library source; a provider (Last.fm, ListenBrainz) is one more `SuggestionSource` in the list. A
 * provider that is unreachable should answer no candidates rather than fail: its absence is expected.
 */
export interface SuggestionSource {
  readonly name: string
  readonly similarTo: (
    seeds: ReadonlyArray<ArtistId>,
    perSeed: number,
  ) => Effect.Effect<ReadonlyMap<ArtistId, ReadonlyArray<SuggestionCandidate>>, Internal>
}

export { CO_LISTEN_DAYS } from "./LearnedSimilarityService.js"

export class SuggestionSources extends Context.Tag("@tonearm/server/SuggestionSources")<
  SuggestionSources,
  ReadonlyArray<SuggestionSource>
>() {
  /**
   * The in-library source (no provider needed): the learned similarity last fitted on this server's
   * co-listening (never fitted on this path: LearnedSimilarityService) blended with the tag cosine, computed by
   * the engine. An artist without a MusicBrainz id is keyed by its artist id (core `Suggestion`).
   */
  static readonly inLibrary = Layer.effect(
    SuggestionSources,
    Effect.gen(function* () {
      const engine = yield* RecommendationEngine
      const rebuilds = yield* RebuildService
      const learned = yield* LearnedSimilarityService
      const library = yield* LibraryService
      const similarTo = Effect.fn("SuggestionSources.inLibrary")(function* (
        seeds: ReadonlyArray<ArtistId>,
        perSeed: number,
      ) {
        if (seeds.length === 0) return new Map<ArtistId, ReadonlyArray<SuggestionCandidate>>()
        const [catalog, model] = yield* Effect.all([rebuilds.catalogSource, learned.current], { concurrency: 2 })
        const found = yield* engine.similarArtists(catalog, { seeds, limit: perSeed }, model)
        const ids = [...new Set(found.flatMap((entry) => entry.similar.map((hit) => hit.artist_id as string)))]
        const names = new Map((yield* library.artistsByIds(ids)).map((artist) => [artist.id as string, artist.name]))
        return new Map(
          found.map((entry) => [
            entry.seed,
            entry.similar.flatMap((hit): Array<SuggestionCandidate> => {
              const name = names.get(hit.artist_id)
              return name === undefined
                ? []
                : [
                    {
                      mbid: hit.mbid ?? hit.artist_id,
                      name,
                      score: hit.score,
                      in_library: true,
                      artist_id: hit.artist_id,
                      tags: hit.tags,
                    },
                  ]
            }),
          ]),
        )
      })
      return [{ name: "in_library", similarTo }]
    }),
  )
}

/**
 * The in-library source plus every provider's similar artists (Last.fm, ListenBrainz: out-of-library artists
 * by MusicBrainz id); a provider that is off or unreachable answers nothing.
 */
export const SuggestionSourcesLive = Layer.effect(
  SuggestionSources,
  Effect.gen(function* () {
    const local = yield* SuggestionSources
    const enrichment = yield* EnrichmentService
    return [...local, ...enrichment.similarSources]
  }),
).pipe(Layer.provide(SuggestionSources.inLibrary))

/**
 * Every source's candidates for the seeds, each artist once per seed (an in-library artist by its artist id,
 * so two local artists carrying one MusicBrainz id stay apart; others by MusicBrainz id), the highest score
 * winning (`mergeSimilarByMax`): a candidate keeps a source's own similarity, which rule 5 then weighs by tags.
 * The rank blend (`blendSourcesByRank`, 1.153× item-kNN on the dev split against 1.092×) is not shipped yet: it
 * rescales every source's scores to ranks, so a provider's similarity no longer reaches rule 5 as it was given.
 */
export const similarFromAll = (
  sources: ReadonlyArray<SuggestionSource>,
  seeds: ReadonlyArray<ArtistId>,
  perSeed: number,
) =>
  Effect.gen(function* () {
    const answers = yield* Effect.forEach(sources, (source) => source.similarTo(seeds, perSeed), {
      concurrency: "unbounded",
    })
    const bySeed = new Map<ArtistId, Array<ReadonlyArray<SuggestionCandidate>>>()
    for (const answer of answers)
      for (const [seed, candidates] of answer) bySeed.set(seed, [...(bySeed.get(seed) ?? []), candidates])
    return new Map([...bySeed].map(([seed, lists]) => [seed, mergeSimilarByMax(lists)]))
  })
