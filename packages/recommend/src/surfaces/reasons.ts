import type { ArtistId, PickReason, ReasonKind, ScoreParts } from "@tonearm/core"
import { featuresOf, type ScoreOptions, type ScoringBasis } from "./basis.js"
import type { SurfaceInput } from "./Surface.js"

/** Score parts are stored rounded: four decimals say which term moved a pick, and keep the rows small. */
const round = (value: number) => Math.round(value * 10_000) / 10_000 || 0

/**
 * The rule-2 weighted terms of catalog track `t` under the options a surface scored it with: each weight ×
 * feature, the penalties negative, so they add up to the score (up to rounding).
 */
export const makeExplainer =
  (input: SurfaceInput, basis: ScoringBasis, options: ScoreOptions) =>
  (t: number): ScoreParts => {
    const w = options.weights
    const f = featuresOf(input, basis, t, options)
    return {
      similarity: round(w.similarity_weight * f.similarity),
      taste: round(w.taste_weight * f.tasteMatch),
      context: round(w.context_time_weight * f.contextAffinity),
      like: round(w.like_weight * f.like),
      novelty: round(w.novelty_weight * f.novelty),
      popularity: round(w.popularity_weight * f.popularity),
      recency: round(-w.recency_penalty_weight * f.recency),
      skips: round(-w.skip_penalty_weight * f.skipRate),
    }
  }

/** The term that explains a taste-scored pick: the largest of taste, like, context and popularity. */
export const dominantKind = (parts: ScoreParts): ReasonKind => {
  const candidates: ReadonlyArray<readonly [ReasonKind, number]> = [
    ["taste", parts.taste ?? 0],
    ["liked", parts.like ?? 0],
    ["context", parts.context ?? 0],
    ["popular", parts.popularity ?? 0],
  ]
  let best = candidates[0]!
  for (const candidate of candidates) if (candidate[1] > best[1]) best = candidate
  return best[0]
}

/** The artist's display name when the server passed names, else undefined. */
const nameOf = (input: SurfaceInput, artist: ArtistId | undefined) =>
  artist === undefined ? undefined : input.artistNames?.get(artist)

/**
 * The short human line of a reason. `artist` is the artist the line names: the seed for seeded kinds, the
 * track's own artist otherwise; without a name the line stays generic.
 */
export const reasonText = (kind: ReasonKind, name: string | undefined): string => {
  switch (kind) {
    case "taste":
      return name === undefined ? "Matches your taste" : `Because you like ${name}`
    case "liked":
      return "You liked this, its album or its artist"
    case "context":
      return "You often play this artist at this time"
    case "popular":
      return "Popular with listeners here"
    case "seed_artist":
      return name === undefined ? "By the artist this mix is built on" : `By ${name}`
    case "similar_artist":
      return name === undefined ? "Similar to the artist this mix is built on" : `Because you like ${name}`
    case "seed_track":
      return "Sounds like the track this radio started from"
    case "tag_overlap":
      return name === undefined ? "Shares its style with this mix" : `In the style of ${name}`
    case "co_listened":
      return "Other listeners here played it lately"
    case "dormant":
      return name === undefined
        ? "An artist you have not played for a while"
        : `You have not played ${name} for a while`
    case "new_arrival":
      return "New in the library"
    case "first_listen":
      return name === undefined ? "An artist you have never played" : `You have never played ${name}`
    case "rediscover":
      return "An old favourite you have not played lately"
    case "on_repeat":
      return "You keep playing this"
    case "random":
      return "A chance pick from the library"
  }
}

/** A reason of `kind` naming `artist` (by name when known), with its seed and score parts. */
export const makeReason = (
  input: SurfaceInput,
  kind: ReasonKind,
  parts: ScoreParts,
  options: { readonly artist?: ArtistId | undefined; readonly seedId?: string | undefined } = {},
): PickReason => {
  const text = reasonText(kind, nameOf(input, options.artist))
  return options.seedId === undefined
    ? { kind, text, score_parts: parts }
    : { kind, text, seed_id: options.seedId, score_parts: parts }
}

/** A taste-scored pick: its dominant term names the reason, the track's own artist names the line. */
export const tasteReason = (input: SurfaceInput, t: number, parts: ScoreParts): PickReason =>
  makeReason(input, dominantKind(parts), parts, {
    artist: input.candidates.artistIds[input.candidates.trackArtist[t]!],
  })

/**
 * A stored reason with its line naming an artist, for a reader that knows names the engine did not (the server
 * reading a snapshot): `name` is the seed artist's for a reason with a seed, else the track's own artist's. A
 * line the engine already named, or a kind whose line names nobody, is kept.
 */
export const namedReason = (reason: PickReason, name: string | undefined): PickReason =>
  name === undefined ||
  reason.text !== reasonText(reason.kind, undefined) ||
  reasonText(reason.kind, name) === reason.text
    ? reason
    : { ...reason, text: reasonText(reason.kind, name) }

/** The reasons whose `seed_id` is an artist (a track radio's seed is a track). */
export const hasArtistSeed = (reason: PickReason): boolean =>
  reason.seed_id !== undefined && reason.kind !== "seed_track"
