import type { ArtistId } from "@tonearm/core"
import { splitGenres } from "@tonearm/core"
import type { Catalog, EnrichedTag } from "../catalog/Catalog.js"
import { eraOfYear } from "../taste/eras.js"
import { MOODS, moodsOfTags } from "../taste/moods.js"
import type { TasteProfile } from "../taste/TasteProfile.js"

/**
 * Rule 1, taste match. The artist weight (share 0.7) and the candidate's average tag weight (share 0.3)
 * are each squashed by tanh(w / TASTE_SQUASH_SCALE); an era term adds 0.15 × tanh(era weight / scale) and
 * a mood term 0.12 × tanh(average mood weight / scale). Missing data (undated, no mood tags), an unknown
 * artist or unknown tags contribute 0 to their term, so an empty profile gives 0. The range is ±1.27.
 *
 * The scale is fixed at 3 play-equivalents: an artist with three recent full listens sits at tanh(1) ≈ 0.76
 * of its share, so a handful of plays separates "liked" from "heard once" without one favourite saturating
 * everything.
 */
export const TASTE_SQUASH_SCALE = 3
export const TASTE_SHARES = { artist: 0.7, tags: 0.3, era: 0.15, mood: 0.12 } as const

const squash = (weight: number) => Math.tanh(weight / TASTE_SQUASH_SCALE)

/** A candidate described by its raw facts (any track, in the library or not). */
export interface TasteCandidate {
  readonly artist_id: ArtistId
  /** raw genre text; the genre rule splits it */
  readonly genre: string | null
  readonly tags?: ReadonlyArray<EnrichedTag> | undefined
  readonly year: number | null
}

export interface TasteMatchOptions {
  /** Rule 2: the near-whole-library fallback pool skips the mood lookup. */
  readonly skipMood?: boolean
}

/**
 * The candidate's tags are its genres (weight 1 each) and enriched tags (weight = relevance); the tag term
 * is their weighted average of profile weights, unknown tags counting 0.
 */
export const tasteMatch = (
  profile: TasteProfile,
  candidate: TasteCandidate,
  options: TasteMatchOptions = {},
): number => {
  const artistWeight = profile.artists.get(candidate.artist_id) ?? 0
  const tagShares = new Map<string, number>()
  for (const genre of splitGenres(candidate.genre)) tagShares.set(genre, 1)
  for (const tag of candidate.tags ?? []) {
    const name = tag.name.trim()
    if (name === "" || !(tag.weight > 0)) continue
    tagShares.set(name, Math.max(tagShares.get(name) ?? 0, Math.min(1, tag.weight)))
  }
  let tagSum = 0
  let shareSum = 0
  for (const [name, share] of tagShares) {
    tagSum += share * (profile.tags.get(name) ?? 0)
    shareSum += share
  }
  const era = eraOfYear(candidate.year)
  const eraWeight = era === undefined ? 0 : (profile.eras.get(era) ?? 0)
  let moodWeight = 0
  if (options.skipMood !== true) {
    const moods = moodsOfTags((candidate.tags ?? []).filter((tag) => tag.weight > 0).map((tag) => tag.name))
    if (moods.length > 0)
      moodWeight = moods.reduce((sum, mood) => sum + (profile.moods.get(mood) ?? 0), 0) / moods.length
  }
  return (
    TASTE_SHARES.artist * squash(artistWeight) +
    TASTE_SHARES.tags * squash(shareSum > 0 ? tagSum / shareSum : 0) +
    TASTE_SHARES.era * squash(eraWeight) +
    TASTE_SHARES.mood * squash(moodWeight)
  )
}

/**
 * The same rule for every catalog track at once (one pass, dense arrays). Equal to `tasteMatch` on each
 * track's raw facts; the surfaces use this.
 */
export const tasteMatchCatalog = (
  profile: TasteProfile,
  catalog: Catalog,
  options: TasteMatchOptions = {},
): Float64Array => {
  const artistWeight = new Float64Array(catalog.artistIds.length)
  catalog.artistIds.forEach((id, a) => {
    artistWeight[a] = profile.artists.get(id) ?? 0
  })
  const tagWeight = new Float64Array(catalog.tagNames.length)
  catalog.tagNames.forEach((name, k) => {
    tagWeight[k] = profile.tags.get(name) ?? 0
  })
  const eraTerm = catalog.eraNames.map((era) => TASTE_SHARES.era * squash(profile.eras.get(era) ?? 0))
  const moodWeight = MOODS.map((mood) => profile.moods.get(mood) ?? 0)
  const artistTerm = Float64Array.from(artistWeight, (w) => TASTE_SHARES.artist * squash(w))
  // the mood term depends only on the track's mood bits: computed once per distinct set
  const moodTerm = new Map<number, number>()
  const out = new Float64Array(catalog.size)
  const { tagOffsets, tagGenre, tagRelevance, tagIds } = catalog
  // Neighbouring tracks (one album, one artist) mostly carry the same tags: their tag term is computed once
  // per run of equal tag lists (the same arithmetic, so the same double).
  let previousStart = 0
  let previousEnd = -1
  let tagTerm = 0
  for (let t = 0; t < catalog.size; t++) {
    const start = tagOffsets[t]!
    const end = tagOffsets[t + 1]!
    let same = end - start === previousEnd - previousStart
    for (let j = 0; same && j < end - start; j++) {
      const k = start + j
      const p = previousStart + j
      same = tagIds[k] === tagIds[p] && tagGenre[k] === tagGenre[p] && tagRelevance[k] === tagRelevance[p]
    }
    if (!same) {
      let tagSum = 0
      let shareSum = 0
      for (let k = start; k < end; k++) {
        const share = tagGenre[k] === 1 ? 1 : tagRelevance[k]!
        tagSum += share * tagWeight[tagIds[k]!]!
        shareSum += share
      }
      tagTerm = TASTE_SHARES.tags * squash(shareSum > 0 ? tagSum / shareSum : 0)
      previousStart = start
      previousEnd = end
    }
    let match = artistTerm[catalog.trackArtist[t]!]! + tagTerm
    const era = catalog.trackEra[t]!
    if (era >= 0) match += eraTerm[era]!
    const moods = catalog.trackMoods[t]!
    if (moods !== 0 && options.skipMood !== true) {
      let term = moodTerm.get(moods)
      if (term === undefined) {
        let sum = 0
        let count = 0
        for (let m = 0; m < MOODS.length; m++)
          if (moods & (1 << m)) {
            sum += moodWeight[m]!
            count++
          }
        term = TASTE_SHARES.mood * squash(sum / count)
        moodTerm.set(moods, term)
      }
      match += term
    }
    out[t] = match
  }
  return out
}
