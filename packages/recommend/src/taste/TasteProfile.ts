import { ArtistId } from "@tonearm/core"
import { Schema } from "effect"
import { MOODS, type Mood } from "./moods.js"

/**
 * A user's taste profile (spec "Playback and taste"): signed weights over artists, tags (genres and
 * enriched folksonomy tags), eras (decade buckets) and canonical moods. Weights are in play-equivalents:
 * one fully completed play today adds 1 to its artist.
 */
export interface TasteProfile {
  readonly artists: ReadonlyMap<ArtistId, number>
  readonly tags: ReadonlyMap<string, number>
  readonly eras: ReadonlyMap<string, number>
  readonly moods: ReadonlyMap<Mood, number>
}

export const EMPTY_TASTE_PROFILE: TasteProfile = {
  artists: new Map(),
  tags: new Map(),
  eras: new Map(),
  moods: new Map(),
}

export const isEmptyProfile = (profile: TasteProfile): boolean =>
  profile.artists.size === 0 && profile.tags.size === 0 && profile.eras.size === 0 && profile.moods.size === 0

export type TasteDimension = "artist" | "tag" | "era" | "mood"

/** One stored profile row: the server keeps the profile as (user, dimension, key, weight) rows. */
export interface TasteProfileRow {
  readonly dimension: TasteDimension
  readonly key: string
  readonly weight: number
}

export const tasteProfileRows = (profile: TasteProfile): ReadonlyArray<TasteProfileRow> => [
  ...[...profile.artists].map(([key, weight]) => ({ dimension: "artist" as const, key, weight })),
  ...[...profile.tags].map(([key, weight]) => ({ dimension: "tag" as const, key, weight })),
  ...[...profile.eras].map(([key, weight]) => ({ dimension: "era" as const, key, weight })),
  ...[...profile.moods].map(([key, weight]) => ({ dimension: "mood" as const, key, weight })),
]

const isArtistId = Schema.is(ArtistId)
const isMood = (key: string): key is Mood => (MOODS as ReadonlyArray<string>).includes(key)

/** Reads stored rows back. Mood keys outside the vocabulary (from an older vocabulary) are dropped. */
export const tasteProfileFromRows = (
  rows: Iterable<{ readonly dimension: string; readonly key: string; readonly weight: number }>,
): TasteProfile => {
  const artists = new Map<ArtistId, number>()
  const tags = new Map<string, number>()
  const eras = new Map<string, number>()
  const moods = new Map<Mood, number>()
  for (const { dimension, key, weight } of rows) {
    if (!Number.isFinite(weight)) continue
    if (dimension === "artist" && isArtistId(key)) artists.set(key, weight)
    else if (dimension === "tag") tags.set(key, weight)
    else if (dimension === "era") eras.set(key, weight)
    else if (dimension === "mood" && isMood(key)) moods.set(key, weight)
  }
  return { artists, tags, eras, moods }
}
