import type { ArtistId, DiscoveryTuning } from "@tonearm/core"
import type { EnrichedTag } from "../catalog/Catalog.js"
import { rankSuggestions } from "../scoring/suggestionRanking.js"
import type { TasteProfile } from "../taste/TasteProfile.js"

/** An artist suggestion candidate: an artist similar to the user's, in the library or not. */
export interface SuggestionCandidate {
  readonly mbid: string
  readonly name: string
  /** similarity score in [0, 1] */
  readonly score: number
  readonly in_library: boolean
  readonly artist_id?: ArtistId | undefined
  readonly tags: ReadonlyArray<EnrichedTag>
}

/** One similar artist as a provider lists it for a seed artist. */
export type SimilarCandidate = SuggestionCandidate

/** The suggestion list size and how far the pool is over-fetched before rule 5, rotation and diversity. */
export const SUGGESTIONS_SIZE = 30
export const SUGGESTIONS_OVERFETCH = 4
/** The user's strongest artists whose similar artists form the pool. */
export const SUGGESTION_SEED_ARTISTS = 50

/**
 * A seed artist's say in the pool grows with the log of its weight: a favourite counts more than a
 * one-off, but a thousand plays do not drown everything else.
 */
export const seedWeightOf = (weight: number): number => Math.log1p(Math.max(0, weight))

/**
 * The candidate pool: the similar artists of the user's strongest positive artists, each candidate's
 * similarity the seed-weighted mean of its scores (in [0, 1]). Artists the profile already knows and
 * `known` mbids (the user's own artists) are left out. Returns the over-fetched top of the pool by
 * similarity, best first.
 */
export const suggestionPool = (input: {
  readonly profile: TasteProfile
  readonly similarOf: (artist: ArtistId) => ReadonlyArray<SimilarCandidate>
  readonly known?: ReadonlySet<string> | undefined
  readonly size?: number | undefined
}): ReadonlyArray<SuggestionCandidate> => {
  const seeds = [...input.profile.artists]
    .filter(([, weight]) => weight > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, SUGGESTION_SEED_ARTISTS)
  const totalWeight = seeds.reduce((sum, [, weight]) => sum + seedWeightOf(weight), 0)
  const pool = new Map<string, { candidate: SimilarCandidate; sum: number }>()
  for (const [artist, weight] of seeds) {
    const seedWeight = seedWeightOf(weight)
    for (const candidate of input.similarOf(artist)) {
      if (input.known?.has(candidate.mbid)) continue
      if (candidate.artist_id !== undefined && input.profile.artists.has(candidate.artist_id)) continue
      const entry = pool.get(candidate.mbid)
      const score = Math.min(1, Math.max(0, candidate.score))
      if (entry === undefined) pool.set(candidate.mbid, { candidate, sum: seedWeight * score })
      else entry.sum += seedWeight * score
    }
  }
  const limit = (input.size ?? SUGGESTIONS_SIZE) * SUGGESTIONS_OVERFETCH
  return [...pool.values()]
    .map(({ candidate, sum }) => ({ ...candidate, score: totalWeight > 0 ? sum / totalWeight : 0 }))
    .sort((a, b) => b.score - a.score || (a.mbid < b.mbid ? -1 : 1))
    .slice(0, limit)
}

export interface Suggestion {
  readonly mbid: string
  readonly name: string
  readonly score: number
  readonly in_library: boolean
  readonly artist_id?: ArtistId | undefined
  readonly tags: ReadonlyArray<string>
}

/** At most this share of the list may share one primary tag (diversity). */
export const SUGGESTION_TAG_SHARE = 0.3

/**
 * The Discover artist suggestions: rule 5 over the whole over-fetched pool, then rotation (snoozed
 * candidates leave), then diversity (a primary tag — the candidate's strongest — fills at most 30 % of
 * the list while others remain), trimmed to size.
 */
export const discoverSuggestions = (input: {
  readonly pool: ReadonlyArray<SuggestionCandidate>
  readonly profile: TasteProfile | undefined
  readonly discovery: DiscoveryTuning
  readonly snoozed?: ReadonlySet<string> | undefined
  readonly size?: number | undefined
}): ReadonlyArray<Suggestion> => {
  const size = input.size ?? SUGGESTIONS_SIZE
  const ranked = rankSuggestions(input.pool, input.profile?.tags, input.discovery.tag_overlap_weight).filter(
    ({ candidate }) => !input.snoozed?.has(candidate.mbid),
  )
  const cap = Math.max(2, Math.ceil(size * SUGGESTION_TAG_SHARE))
  const perTag = new Map<string, number>()
  const chosen: Array<(typeof ranked)[number]> = []
  const deferred: Array<(typeof ranked)[number]> = []
  for (const entry of ranked) {
    const primary = primaryTag(entry.candidate.tags)
    const count = primary === undefined ? 0 : (perTag.get(primary) ?? 0)
    if (primary !== undefined && count >= cap) deferred.push(entry)
    else {
      if (primary !== undefined) perTag.set(primary, count + 1)
      chosen.push(entry)
    }
  }
  return [...chosen, ...deferred].slice(0, size).map(({ candidate, score }) => ({
    mbid: candidate.mbid,
    name: candidate.name,
    score,
    in_library: candidate.in_library,
    ...(candidate.artist_id === undefined ? {} : { artist_id: candidate.artist_id }),
    tags: [...candidate.tags].sort((a, b) => b.weight - a.weight).map((tag) => tag.name),
  }))
}

const primaryTag = (tags: ReadonlyArray<EnrichedTag>): string | undefined => {
  let best: EnrichedTag | undefined
  for (const tag of tags) if (tag.weight > 0 && (best === undefined || tag.weight > best.weight)) best = tag
  return best?.name
}

/** A snooze (spec "Playback and taste"): the candidate leaves that user's deck until snoozed_until. */
export interface Snooze {
  readonly candidate_mbid: string
  readonly candidate_name: string
  readonly snoozed_until_ms: number
}

const DAY_MS = 86_400_000

/**
 * When a snooze made at `now` ends: the request's days, else the tunable snooze_days (about 90),
 * clamped to the tunable's bounds [1, 3650].
 */
export const snoozedUntil = (now: number, days: number | undefined, discovery: DiscoveryTuning): number =>
  now + Math.min(3650, Math.max(1, Math.round(days ?? discovery.snooze_days))) * DAY_MS

/** The mbids still snoozed at `now` (a snooze whose time is reached returns the candidate). */
export const activeSnoozes = (snoozes: Iterable<Snooze>, now: number): ReadonlySet<string> => {
  const active = new Set<string>()
  for (const snooze of snoozes) if (snooze.snoozed_until_ms > now) active.add(snooze.candidate_mbid)
  return active
}
