import { completionCurveAt, type TasteTuning } from "@tonearm/core"
import type { Catalog } from "../catalog/Catalog.js"
import type { ListeningHistory } from "../history/ListeningHistory.js"
import { MOODS, type Mood } from "./moods.js"
import type { TasteProfile } from "./TasteProfile.js"

const DAY_MS = 86_400_000

/**
 * Likes are standing statements, so they are not decayed. In play-equivalents: a liked track counts as
 * two full listens, a liked album or artist as three, spread over its tracks so its tags and eras count.
 */
export const LIKE_SIGNAL = { track: 2, album: 3, artist: 3 } as const

/** A play that never ended counts as a play (not a skip) with a mild positive engagement. */
export const OPEN_PLAY_ENGAGEMENT = 0.5

/** Weights this close to zero are left out of the stored profile. */
export const PROFILE_EPSILON = 1e-4

/** Exponential decay with the tunable half-life: a play one half-life old counts half. */
export const decayFactor = (ageMs: number, halfLifeDays: number): number =>
  0.5 ** (Math.max(0, ageMs) / DAY_MS / halfLifeDays)

/**
 * The engagement of one play before decay: its completion through the tunable curve; a skip is always
 * negative (the curve's magnitude at its completion, a full −1 by default at 0); an open play is mildly
 * positive.
 */
export const playEngagement = (skipped: boolean, completion: number | null, taste: TasteTuning): number => {
  if (skipped) return -Math.abs(completionCurveAt(taste.completion_curve, completion ?? 0))
  if (completion === null || Number.isNaN(completion)) return OPEN_PLAY_ENGAGEMENT
  return completionCurveAt(taste.completion_curve, completion)
}

/**
 * Accumulates engagement signals on catalog tracks into a profile: the track's artist gets the signal (its other
 * credited artists too, a featured guest a share of it),
 * each tag the signal (enriched tags × their relevance × enriched_tag_scale), its era × era_scale and
 * each of its moods × mood_scale. Exposed so the offline evaluation can feed aggregated play counts.
 */
export const accumulateTaste = (
  catalog: Catalog,
  taste: TasteTuning,
  signals: Iterable<readonly [track: number, signal: number]>,
): TasteProfile => {
  const artist = new Float64Array(catalog.artistIds.length)
  const tag = new Float64Array(catalog.tagNames.length)
  const era = new Float64Array(catalog.eraNames.length)
  const mood = new Float64Array(MOODS.length)
  for (const [t, signal] of signals) {
    if (signal === 0 || !Number.isFinite(signal)) continue
    artist[catalog.trackArtist[t]!]! += signal
    // Every other credited artist too: main ones fully, featured guests a share (FEATURED_CREDIT_SHARE).
    for (let k = catalog.creditOffsets[t]!; k < catalog.creditOffsets[t + 1]!; k++) {
      artist[catalog.creditArtists[k]!]! += signal * catalog.creditShares[k]!
    }
    for (let k = catalog.tagOffsets[t]!; k < catalog.tagOffsets[t + 1]!; k++) {
      const share = catalog.tagGenre[k] === 1 ? 1 : catalog.tagRelevance[k]! * taste.enriched_tag_scale
      tag[catalog.tagIds[k]!]! += signal * share
    }
    const e = catalog.trackEra[t]!
    if (e >= 0) era[e]! += signal * taste.era_scale
    const moods = catalog.trackMoods[t]!
    if (moods !== 0) for (let m = 0; m < MOODS.length; m++) if (moods & (1 << m)) mood[m]! += signal * taste.mood_scale
  }
  const toMap = <K>(values: Float64Array, keyOf: (i: number) => K) => {
    const out = new Map<K, number>()
    values.forEach((w, i) => {
      if (Math.abs(w) >= PROFILE_EPSILON) out.set(keyOf(i), w)
    })
    return out
  }
  return {
    artists: toMap(artist, (i) => catalog.artistIds[i]!),
    tags: toMap(tag, (i) => catalog.tagNames[i]!),
    eras: toMap(era, (i) => catalog.eraNames[i]!),
    moods: toMap<Mood>(mood, (i) => MOODS[i]!),
  }
}

/**
 * The daily taste-profile rebuild: every play (completion through the curve, skips negative, decayed
 * with the half-life from `now`) plus the user's likes.
 */
export const buildTasteProfile = (input: {
  readonly catalog: Catalog
  readonly history: ListeningHistory
  readonly taste: TasteTuning
  readonly now: number
}): TasteProfile => {
  const { catalog, history, taste, now } = input
  const signals: Array<readonly [number, number]> = []
  for (let i = 0; i < history.playTrack.length; i++) {
    const completion = history.playCompletion[i]!
    const engagement = playEngagement(history.playSkipped[i] === 1, Number.isNaN(completion) ? null : completion, taste)
    signals.push([history.playTrack[i]!, engagement * decayFactor(now - history.playAt[i]!, taste.half_life_days)])
  }
  const spread = (tracks: Int32Array, total: number) => {
    for (const t of tracks) signals.push([t, total / tracks.length])
  }
  history.likedTracks.forEach((liked, t) => {
    if (liked) signals.push([t, LIKE_SIGNAL.track])
  })
  history.likedAlbums.forEach((liked, album) => {
    if (liked) spread(catalog.albumTracks[album]!, LIKE_SIGNAL.album)
  })
  history.likedArtists.forEach((liked, artist) => {
    if (liked) spread(catalog.artistTracks[artist]!, LIKE_SIGNAL.artist)
  })
  return accumulateTaste(catalog, taste, signals)
}
