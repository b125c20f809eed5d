import { Effect } from "effect"
import { contextAt, makeScorer, nowMillis, scoringBasis } from "./basis.js"
import { makeExplainer, tasteReason } from "./reasons.js"
import type { Pick, Surface, SurfaceInput } from "./Surface.js"
import { withMinimum } from "./Surface.js"
import { capPerGroup, topK, weightedSampleIndexes } from "./select.js"

/** For You (rule 7): 50 tracks, a head of the 25 top-scored and a tail of 25 sampled from ranks 25–400. */
export const FOR_YOU_SIZE = 50
export const FOR_YOU_HEAD = 25
export const FOR_YOU_DEPTH = 400
export const FOR_YOU_ARTIST_CAP = 2

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
    const ranked = capPerGroup(
      topK(pool, score, FOR_YOU_DEPTH * 2),
      (t) => catalog.trackArtist[t]!,
      FOR_YOU_ARTIST_CAP,
    ).slice(0, FOR_YOU_DEPTH)
    const picks: Array<Pick> = []
    const pick = (t: number, kind: Pick["pick_kind"], value: number, fallback = false) =>
      picks.push({
        track_id: catalog.tracks[t]!.id,
        pick_kind: kind,
        score: value,
        reason: tasteReason(input, t, (fallback ? explainFallback : explain)(t)),
      })
    if (ranked.length > FOR_YOU_SIZE) {
      for (const t of ranked.slice(0, FOR_YOU_HEAD)) pick(t, "taste", score(t))
      const deeper = ranked.slice(FOR_YOU_HEAD)
      const tail = yield* weightedSampleIndexes(deeper.length, tailWeight, FOR_YOU_SIZE - FOR_YOU_HEAD)
      for (const rank of tail) pick(deeper[rank]!, "fresh", score(deeper[rank]!))
    } else {
      for (const t of ranked) pick(t, "taste", score(t))
      const chosen = new Set(ranked)
      const perArtist = new Map<number, number>()
      for (const t of ranked) perArtist.set(catalog.trackArtist[t]!, (perArtist.get(catalog.trackArtist[t]!) ?? 0) + 1)
      const fallbackScore = makeScorer(input, basis, { weights: input.tuning.daily_mix, now, context, fallback: true })
      const fallbackPool: Array<number> = []
      for (let t = 0; t < catalog.size; t++) if (allowed[t] === 1 && !chosen.has(t)) fallbackPool.push(t)
      for (const t of topK(fallbackPool, fallbackScore, FOR_YOU_SIZE * 4)) {
        if (picks.length >= FOR_YOU_SIZE) break
        const artist = catalog.trackArtist[t]!
        const count = perArtist.get(artist) ?? 0
        if (count >= FOR_YOU_ARTIST_CAP) continue
        perArtist.set(artist, count + 1)
        pick(t, "taste", fallbackScore(t), true)
      }
    }
    return withMinimum("for_you", picks)
  })
