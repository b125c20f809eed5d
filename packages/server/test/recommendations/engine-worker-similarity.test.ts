import { describe, expect, it } from "@effect/vitest"
import { LEARNED_SIMILARITY } from "@tonearm/recommend"
import { Effect, Layer } from "effect"
import { LEARNED_SMALL_ARTISTS } from "../../src/recommendations/LearnedSimilarityService.js"
import { type CatalogSource, RecommendationEngine } from "../../src/recommendations/RecommendationEngine.js"
import { RecommendationEngineWorker } from "../../src/recommendations/RecommendationEngineWorker.js"
import { world } from "./learnedWorld.js"

const engineOf = (layer: Layer.Layer<RecommendationEngine>) =>
  Effect.map(
    Layer.build(layer),
    (context) => context.unsafeMap.get(RecommendationEngine.key) as RecommendationEngine["Type"],
  )

describe("learned similarity in the engine's own process", () => {
  it.scoped(
    "the engine's process fits the model and keeps it by key; its answers are the in-process engine's, after a library change too",
    () =>
      Effect.gen(function* () {
        const { source, rows, artist, tracks } = world(LEARNED_SMALL_ARTISTS + 100, 150, 12)
        const worker = yield* engineOf(RecommendationEngineWorker(1))
        const inProcess = yield* engineOf(RecommendationEngine.inProcess)
        const query = { seeds: [artist(0), artist(3), artist(7)], limit: 20 }
        const fitted = yield* worker.fitSimilarity(source, rows, "k1")
        expect(fitted.data.easeKept.length).toBeGreaterThan(LEARNED_SMALL_ARTISTS)
        expect(fitted.data.easeKept.length).toBeLessThanOrEqual(LEARNED_SIMILARITY.ease.maxItems)
        const model = { key: "k1", fitted }
        const fromWorker = yield* worker.similarArtists(source, query, model)
        expect(fromWorker[0]!.similar.length).toBeGreaterThan(0)
        // Same model data in process (the fit held in single precision both ways).
        const local = yield* inProcess.similarArtists(source, query, {
          key: "k1",
          fitted: yield* inProcess.fitSimilarity(source, rows, "k1"),
        })
        expect(fromWorker).toEqual(local)
        // The library loses its first artist: the fit still answers for the artists that remain.
        const smaller: CatalogSource = { version: "v2", load: Effect.succeed(tracks.slice(1)) }
        const after = yield* worker.similarArtists(smaller, { seeds: [artist(3)], limit: 20 }, model)
        const ids = after[0]!.similar.map((hit) => hit.artist_id)
        expect(ids.length).toBeGreaterThan(0)
        expect(ids).not.toContain(artist(0))
        expect(after).toEqual(yield* inProcess.similarArtists(smaller, { seeds: [artist(3)], limit: 20 }, model))
      }),
    { timeout: 180_000 },
  )
})
