import { Effect } from "effect"
import { passesColdStartGate } from "../history/ListeningHistory.js"
import { contextAt, makeScorer, nowMillis, scoringBasis } from "./basis.js"
import { artistSimilarity, mmrRerank } from "./diversity.js"
import { makeExplainer, tasteReason } from "./reasons.js"
import type { Pick, Surface, SurfaceInput } from "./Surface.js"
import { withMinimum } from "./Surface.js"
import { bestPerGroup, topK, weightedSampleIndexes } from "./select.js"

/** For You (rule 7): 50 tracks, a head of the 25 top-scored and a tail of 25 sampled from ranks 25–400. */
export const FOR_YOU_SIZE = 50
export const FOR_YOU_HEAD = 25
export const FOR_YOU_DEPTH = 400
export const FOR_YOU_ARTIST_CAP = 2
/**
 * The small-pool size: a ranked pool (after the per-artist cap) of at most this many tracks has nothing
 * deeper than the head, so it is all `taste` and filled from the fallback pool. Any deeper pool keeps a tail.
 */
export const FOR_YOU_SMALL_POOL = FOR_YOU_HEAD

/** Deeper ranks are drawn less often: rank r (from the head's end) has weight 1 / (1 + r / 50). */
const tailWeight = (rank: number) => 1 / (1 + rank / 50)

/**
 * For You: tracks the profile likes (taste match > 0), scored with the daily_mix weights and the current
 * context (device-agnostic), at most two per artist. The top 25 are the head (`taste`); 25 more are drawn
 * from the deeper ranking (`fresh`). When that pool is too small, the near-whole-library fallback pool
 * (scored without the mood lookup) fills it, stamped `taste`.
 */
export const forYou = (input: SurfaceInput): Effect.Effect<Surface> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog } = input
    const context = contextAt(input, now)
    const score = makeScorer(input, basis, { weights: input.tuning.daily_mix, now, context })
    const explain = makeExplainer(input, basis, { weights: input.tuning.daily_mix, now, context })
    const explainFallback = makeExplainer(input, basis, {
      weights: input.tuning.daily_mix,
      now,
      context,
      fallback: true,
    })
    const { allowed, match } = basis
    const pool: Array<number> = []
    for (let t = 0; t < catalog.size; t++) if (allowed[t] === 1 && match[t]! > 0) pool.push(t)
    // The per-artist cap first (each artist's best two), then the depth: a pool led by a few artists keeps
    // its depth, so the tail is there whenever the capped pool is deeper than the head (issue 28).
    const artistOf = (t: number) => catalog.trackArtist[t]!
    const ranked = topK(
      bestPerGroup(pool, artistOf, score, FOR_YOU_ARTIST_CAP, catalog.artistIds.length),
      score,
      FOR_YOU_DEPTH,
    )
    const picks: Array<Pick> = []
    const pick = (t: number, kind: Pick["pick_kind"], value: number, fallback = false) =>
      picks.push({
        track_id: catalog.tracks[t]!.id,
        pick_kind: kind,
        score: value,
        reason: tasteReason(input, t, (fallback ? explainFallback : explain)(t)),
      })
    const head = ranked.slice(0, FOR_YOU_HEAD)
    for (const t of head) pick(t, "taste", score(t))
    if (ranked.length > FOR_YOU_SMALL_POOL) {
      const deeper = ranked.slice(FOR_YOU_HEAD)
      const drawn = (yield* weightedSampleIndexes(deeper.length, tailWeight, FOR_YOU_SIZE - FOR_YOU_HEAD)).map(
        (rank) => deeper[rank]!,
      )
      // The tail plays in an order that keeps alike artists apart (MMR over the drawn tracks).
      const similar = artistSimilarity(catalog)
      const tail = mmrRerank(drawn, {
        relevance: score,
        similarity: (a, b) => similar(artistOf(a), artistOf(b)),
        size: drawn.length,
      })
      for (const t of tail) pick(t, "fresh", score(t))
    }
    if (picks.length < FOR_YOU_SIZE) {
      // Too small a pool (or a tail shorter than 25): the near-whole-library fallback fills it, stamped taste.
      const chosen = new Set(picks.map((p) => p.track_id))
      const perArtist = new Map<number, number>()
      for (const p of picks) {
        const artist = artistOf(catalog.trackIndex.get(p.track_id)!)
        perArtist.set(artist, (perArtist.get(artist) ?? 0) + 1)
      }
      const fallbackScore = makeScorer(input, basis, { weights: input.tuning.daily_mix, now, context, fallback: true })
      const fallbackPool: Array<number> = []
      for (let t = 0; t < catalog.size; t++)
        if (allowed[t] === 1 && !chosen.has(catalog.tracks[t]!.id)) fallbackPool.push(t)
      for (const t of topK(fallbackPool, fallbackScore, FOR_YOU_SIZE * 4)) {
        if (picks.length >= FOR_YOU_SIZE) break
        const artist = artistOf(t)
        const count = perArtist.get(artist) ?? 0
        if (count >= FOR_YOU_ARTIST_CAP) continue
        perArtist.set(artist, count + 1)
        pick(t, "taste", fallbackScore(t), true)
      }
    }
    const surface = withMinimum("for_you", picks)
    // Before the cold-start gate For You is built from likes, popularity and the first plays: a starter mix.
    return surface.withheld || passesColdStartGate(input.history) ? surface : { ...surface, starter: true }
  })
