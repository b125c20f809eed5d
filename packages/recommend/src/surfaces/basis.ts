import { DateTime, Effect } from "effect"
import { contextAffinities } from "../scoring/contextAffinity.js"
import { contextCellOf } from "../scoring/contextCell.js"
import { tasteMatchCatalog } from "../scoring/tasteMatch.js"
import { noveltyOf, recencyOf, type ScoreFeatures, skipRateOf } from "../scoring/weightedScore.js"
import type { WeightProfile } from "../tuning/Tuning.js"
import type { SurfaceInput } from "./Surface.js"

/**
 * Per-input scoring facts shared by every surface of one rebuild: computed once per SurfaceInput (a
 * memo keyed by the input object, so building the surfaces one by one costs the same as all at once).
 */
export interface ScoringBasis {
  /** rule 1 with moods */
  readonly match: Float64Array
  /** rule 1 without the mood lookup (rule 2: the near-whole-library fallback pool) */
  readonly fallbackMatch: () => Float64Array
  /** 1 when the track may be offered at all (not excluded) */
  readonly allowed: Uint8Array
  readonly like: Float64Array
  readonly popularity: Float64Array
  /** the track's artist was snoozed as a Discover suggestion */
  readonly snoozed: Uint8Array
  /** per catalog artist: the profile's artist weight (0 when unknown) */
  readonly artistWeight: Float64Array
}

const memo = new WeakMap<SurfaceInput, ScoringBasis>()

export const scoringBasis = (input: SurfaceInput): ScoringBasis => {
  const cached = memo.get(input)
  if (cached !== undefined) return cached
  const { candidates: catalog, history } = input
  const size = catalog.size
  const allowed = new Uint8Array(size).fill(1)
  for (const id of input.excluded ?? []) {
    const t = catalog.trackIndex.get(id)
    if (t !== undefined) allowed[t] = 0
  }
  const like = new Float64Array(size)
  const popularity = new Float64Array(size)
  for (const [id, value] of input.popularity ?? []) {
    const t = catalog.trackIndex.get(id)
    if (t !== undefined) popularity[t] = Math.min(1, Math.max(0, value))
  }
  const snoozed = new Uint8Array(size)
  const snoozedMbids = input.snoozedArtistMbids
  for (let t = 0; t < size; t++) {
    const artist = catalog.trackArtist[t]!
    like[t] =
      history.likedTracks[t] === 1
        ? 1
        : history.likedAlbums[catalog.trackAlbum[t]!] === 1 || history.likedArtists[artist] === 1
          ? 0.5
          : 0
    const mbid = catalog.artistMbid[artist]
    if (snoozedMbids !== undefined && mbid !== null && mbid !== undefined && snoozedMbids.has(mbid)) snoozed[t] = 1
  }
  const artistWeight = Float64Array.from(catalog.artistIds, (id) => input.profile.artists.get(id) ?? 0)
  let fallback: Float64Array | undefined
  const basis: ScoringBasis = {
    artistWeight,
    match: tasteMatchCatalog(input.profile, catalog),
    fallbackMatch: () => {
      fallback ??= tasteMatchCatalog(input.profile, catalog, { skipMood: true })
      return fallback
    },
    allowed,
    like,
    popularity,
    snoozed,
  }
  memo.set(input, basis)
  return basis
}

/** The moment a surface is built, from the Effect Clock. */
export const nowMillis: Effect.Effect<number> = Effect.map(DateTime.now, DateTime.toEpochMillis)

/**
 * Context at `now`: the cell of `input.contextTime` (default now) in the user's zone and, on the radio
 * path only, the device (rule 4). The 365-day window always ends at now.
 */
export const contextAt = (input: SurfaceInput, now: number, deviceClass: string | null = null): Float64Array =>
  contextAffinities(input.candidates, input.history, {
    now,
    cell: contextCellOf(input.history.localTime(input.contextTime ?? now)),
    deviceClass,
  })

/** Recently played horizon of the recency penalty when the caller gives none. */
export const DEFAULT_RECENT_HOURS = 24

export interface ScoreOptions {
  readonly weights: WeightProfile
  readonly now: number
  readonly context?: Float64Array | undefined
  readonly similarity?: ((track: number) => number) | undefined
  readonly recentHours?: number | undefined
  /** score with the mood-less match (the near-whole-library fallback pool) */
  readonly fallback?: boolean | undefined
}

/** The rule-2 features of one catalog track. */
export const featuresOf = (
  input: SurfaceInput,
  basis: ScoringBasis,
  t: number,
  options: ScoreOptions,
): ScoreFeatures => {
  const { history, candidates } = input
  return {
    similarity: options.similarity?.(t) ?? 0,
    tasteMatch: (options.fallback ? basis.fallbackMatch() : basis.match)[t]!,
    contextAffinity: options.context?.[candidates.trackArtist[t]!] ?? 0,
    like: basis.like[t]!,
    novelty: noveltyOf(history.trackPlays[t]!),
    popularity: basis.popularity[t]!,
    recency: recencyOf(
      history.trackLastPlayed[t]!,
      options.now,
      (options.recentHours ?? DEFAULT_RECENT_HOURS) * 3_600_000,
    ),
    skipRate: skipRateOf(history.trackPlays[t]!, history.trackSkips[t]!),
  }
}

/**
 * A scorer for catalog tracks under one weight profile and context: rule 2 exactly as `weightedScore` of
 * `featuresOf`, written out so scoring the whole library allocates nothing per track.
 */
export const makeScorer = (
  input: SurfaceInput,
  basis: ScoringBasis,
  options: ScoreOptions,
): ((t: number) => number) => {
  const { history, candidates } = input
  const w = options.weights
  const match = options.fallback ? basis.fallbackMatch() : basis.match
  const context = options.context
  const similarity = options.similarity
  const horizon = (options.recentHours ?? DEFAULT_RECENT_HOURS) * 3_600_000
  const now = options.now
  return (t) => {
    const plays = history.trackPlays[t]!
    let score =
      w.taste_weight * match[t]! +
      w.like_weight * basis.like[t]! +
      w.novelty_weight * noveltyOf(plays) +
      w.popularity_weight * basis.popularity[t]! -
      w.recency_penalty_weight * recencyOf(history.trackLastPlayed[t]!, now, horizon) -
      w.skip_penalty_weight * skipRateOf(plays, history.trackSkips[t]!)
    if (similarity !== undefined) score += w.similarity_weight * similarity(t)
    if (context !== undefined) score += w.context_time_weight * context[candidates.trackArtist[t]!]!
    return score
  }
}
