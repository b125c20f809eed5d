import type { WeightProfile } from "@tonearm/core"
import { DateTime, Effect } from "effect"
import { forEachTrackEntry } from "../catalog/trackEntries.js"
import { contextAffinities } from "../scoring/contextAffinity.js"
import { contextCellOf } from "../scoring/contextCell.js"
import { tasteMatchCatalog } from "../scoring/tasteMatch.js"
import { noveltyOf, recencyOf, type ScoreFeatures, skipRateOf } from "../scoring/weightedScore.js"
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
  /** 1 when the user never played the track, not even skipped */
  readonly unheard: Uint8Array
}

/**
 * Per input, the rule-2 terms that do not depend on the surface (everything but similarity and context)
 * for every catalog track, per (weights, now, horizon, match): the surfaces of one rebuild share them.
 */
interface BaseScores {
  readonly weights: WeightProfile
  readonly now: number
  readonly horizon: number
  readonly fallback: boolean
  readonly scores: Float64Array
}
const MAX_BASE_SCORES = 4
const baseScoresMemo = new WeakMap<ScoringBasis, Array<BaseScores>>()

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
  if (input.popularity !== undefined)
    forEachTrackEntry(catalog, input.popularity, (t, value) => {
      popularity[t] = Math.min(1, Math.max(0, value))
    })
  const snoozed = new Uint8Array(size)
  const snoozedMbids = input.snoozedArtistMbids
  // snoozes are per artist: one look-up per artist, not per track
  const artistSnoozed = new Uint8Array(catalog.artistIds.length)
  if (snoozedMbids !== undefined && snoozedMbids.size > 0)
    for (let a = 0; a < artistSnoozed.length; a++) {
      const mbid = catalog.artistMbid[a]
      if (mbid !== null && mbid !== undefined && snoozedMbids.has(mbid)) artistSnoozed[a] = 1
    }
  const unheard = new Uint8Array(size)
  const { likedTracks, likedAlbums, likedArtists, trackPlays, trackSkips } = history
  const { trackArtist, trackAlbum } = catalog
  for (let t = 0; t < size; t++) {
    const artist = trackArtist[t]!
    like[t] = likedTracks[t] === 1 ? 1 : likedAlbums[trackAlbum[t]!] === 1 || likedArtists[artist] === 1 ? 0.5 : 0
    snoozed[t] = artistSnoozed[artist]!
    unheard[t] = trackPlays[t] === 0 && trackSkips[t] === 0 ? 1 : 0
  }
  const artistWeight = new Float64Array(catalog.artistIds.length)
  for (let a = 0; a < artistWeight.length; a++) artistWeight[a] = input.profile.artists.get(catalog.artistIds[a]!) ?? 0
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
    unheard,
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
export const contextAt = (input: SurfaceInput, now: number, deviceClass: string | null = null): Float64Array => {
  // memoised per input (the surfaces of one rebuild share it); callers only read the array
  const cached = contextMemo.get(input)
  const hit = cached?.find((entry) => entry.now === now && entry.deviceClass === deviceClass)
  if (hit !== undefined) return hit.affinity
  const affinity = contextAffinities(input.candidates, input.history, {
    now,
    cell: contextCellOf(input.history.localTime(input.contextTime ?? now)),
    deviceClass,
  })
  const entries = cached ?? []
  if (entries.length >= MAX_CONTEXTS) entries.shift()
  entries.push({ now, deviceClass, affinity })
  if (cached === undefined) contextMemo.set(input, entries)
  return affinity
}
const MAX_CONTEXTS = 4
const contextMemo = new WeakMap<
  SurfaceInput,
  Array<{ readonly now: number; readonly deviceClass: string | null; readonly affinity: Float64Array }>
>()

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
 * The rule-2 terms of every catalog track that do not depend on the surface, summed in rule 2's order:
 * taste, like, novelty, popularity, recency, skips. Memoised per basis for a few (weights, now, horizon).
 */
const baseScores = (
  input: SurfaceInput,
  basis: ScoringBasis,
  w: WeightProfile,
  now: number,
  horizon: number,
  fallback: boolean,
): Float64Array => {
  const cached = baseScoresMemo.get(basis)
  const hit = cached?.find(
    (entry) => entry.weights === w && entry.now === now && entry.horizon === horizon && entry.fallback === fallback,
  )
  if (hit !== undefined) return hit.scores
  const { history } = input
  const match = fallback ? basis.fallbackMatch() : basis.match
  const { like, popularity } = basis
  const { trackPlays, trackSkips, trackLastPlayed } = history
  const scores = new Float64Array(match.length)
  for (let t = 0; t < scores.length; t++) {
    const plays = trackPlays[t]!
    scores[t] =
      w.taste_weight * match[t]! +
      w.like_weight * like[t]! +
      w.novelty_weight * noveltyOf(plays) +
      w.popularity_weight * popularity[t]! -
      w.recency_penalty_weight * recencyOf(trackLastPlayed[t]!, now, horizon) -
      w.skip_penalty_weight * skipRateOf(plays, trackSkips[t]!)
  }
  const entries = cached ?? []
  if (entries.length >= MAX_BASE_SCORES) entries.shift()
  entries.push({ weights: w, now, horizon, fallback, scores })
  if (cached === undefined) baseScoresMemo.set(basis, entries)
  return scores
}

/**
 * A scorer for catalog tracks under one weight profile and context: rule 2 exactly as `weightedScore` of
 * `featuresOf` (the same terms added in the same order, so the same doubles), from the memoised
 * surface-independent sum plus similarity and context.
 */
export const makeScorer = (
  input: SurfaceInput,
  basis: ScoringBasis,
  options: ScoreOptions,
): ((t: number) => number) => {
  const w = options.weights
  const horizon = (options.recentHours ?? DEFAULT_RECENT_HOURS) * 3_600_000
  const base = baseScores(input, basis, w, options.now, horizon, options.fallback === true)
  const context = options.context
  const similarity = options.similarity
  const trackArtist = input.candidates.trackArtist
  const similarityWeight = w.similarity_weight
  const contextWeight = w.context_time_weight
  if (similarity === undefined && context === undefined) return (t) => base[t]!
  if (similarity === undefined) return (t) => base[t]! + contextWeight * context![trackArtist[t]!]!
  if (context === undefined) return (t) => base[t]! + similarityWeight * similarity(t)
  return (t) => base[t]! + similarityWeight * similarity(t) + contextWeight * context[trackArtist[t]!]!
}
