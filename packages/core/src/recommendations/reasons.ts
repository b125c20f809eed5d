import { Schema } from "effect"
import { SystemVariant } from "./kinds.js"
import type { WeightProfile } from "./Tuning.js"

/**
 * Why a track is on a system playlist (issue 28 item 3): a closed set of reason kinds, stamped on every
 * snapshot entry when it is built.
 * - `taste`: the taste-match term carries the score (For You, Discover's taste bucket, mixes)
 * - `liked`: the like term carries it (the track, its album or artist is liked)
 * - `context`: the user plays this artist at this time of day / week (context-affinity term)
 * - `popular`: listeners on this server play it (popularity term)
 * - `seed_artist`: by the seed artist of a Songs like mix or an artist / album radio (`seed_id`: the artist)
 * - `similar_artist`: by an artist similar to the seed (`seed_id`: the seed artist)
 * - `seed_track`: on a radio started from a track (`seed_id`: the track)
 * - `tag_overlap`: shares tags with a genre seed or with the daily mix's artist cluster (`seed_id`: the
 *   cluster's first artist for a mix)
 * - `co_listened`: other listeners here played it lately (Discover's cross_user bucket)
 * - `dormant`: by an artist the user has not played for a long time (Discover's dormant bucket)
 * - `new_arrival`: added to the library lately (New for you)
 * - `first_listen`: by an artist the user never played (First listens)
 * - `rediscover`: an old favourite not played lately (Rediscover)
 * - `on_repeat`: the user keeps playing it (On repeat)
 * - `random`: Discover's random bucket (a chance pick)
 */
export const REASON_KINDS = [
  "taste",
  "liked",
  "context",
  "popular",
  "seed_artist",
  "similar_artist",
  "seed_track",
  "tag_overlap",
  "co_listened",
  "dormant",
  "new_arrival",
  "first_listen",
  "rediscover",
  "on_repeat",
  "random",
] as const
export const ReasonKind = Schema.Literal(...REASON_KINDS)
export type ReasonKind = typeof ReasonKind.Type

/**
 * The numbers behind a pick: the spec's weighted terms of rule 2 (`similarity`, `taste`, `context`, `like`,
 * `novelty`, `popularity`, and the penalties `recency` and `skips` as negative numbers), each weight ×
 * feature, so they add up to the pick's score; ladders ranked by plays carry `plays` instead.
 */
export const ScoreParts = Schema.Record({ key: Schema.String, value: Schema.Number })
export type ScoreParts = typeof ScoreParts.Type

/** A snapshot entry's reason (contract: playlist entries' `reason`). */
export const PickReason = Schema.Struct({
  kind: ReasonKind,
  /** a short human line, e.g. "Because you like Nina Simone" */
  text: Schema.String,
  /** the seed the reason refers to (an artist or track id), when there is one */
  seed_id: Schema.optional(Schema.String),
  score_parts: ScoreParts,
})
export type PickReason = typeof PickReason.Type

/** The weight each weighted score part is the product of (rule 2). */
export const PART_WEIGHTS = {
  similarity: "similarity_weight",
  taste: "taste_weight",
  context: "context_time_weight",
  like: "like_weight",
  novelty: "novelty_weight",
  popularity: "popularity_weight",
  recency: "recency_penalty_weight",
  skips: "skip_penalty_weight",
} as const satisfies Record<string, keyof WeightProfile>

/**
 * A pick's score under other weights (the tuning page's what-if): each part is weight × feature, so under
 * `to` it is part × to / from. A part whose `from` weight is 0 hides its feature and stays 0; a part that is
 * not a weighted term (`plays`) is kept as it is.
 */
export const rescoreParts = (parts: ScoreParts, from: WeightProfile, to: WeightProfile): number => {
  let score = 0
  for (const [name, value] of Object.entries(parts)) {
    const field = PART_WEIGHTS[name as keyof typeof PART_WEIGHTS]
    if (field === undefined) score += value
    else if (from[field] !== 0) score += (value * to[field]) / from[field]
  }
  return score
}

/** Query of the tuning page's sample list: one user's system playlist (For You by default). */
export const TuningSampleQuery = Schema.Struct({
  username: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  variant: Schema.optional(SystemVariant),
})
export type TuningSampleQuery = typeof TuningSampleQuery.Type
