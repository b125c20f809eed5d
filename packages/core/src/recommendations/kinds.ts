import { Schema } from "effect"
import { ArtistId } from "../ids.js"

/**
 * Pick kinds (spec "Playback and taste"): why a track is in a system snapshot. Stamped on the snapshot's
 * rows when it is built, and copied onto a play event whose source is that snapshot.
 */
export const PICK_KINDS = [
  "taste",
  "fresh",
  "taste_unheard",
  "dormant",
  "cross_user",
  "random",
  "tier1",
  "tier2",
  "tier3",
] as const
export const PickKind = Schema.Literal(...PICK_KINDS)
export type PickKind = typeof PickKind.Type

/** The Discover deck's four buckets, in interleave order (rule 6). */
export const DISCOVER_BUCKETS = ["taste_unheard", "dormant", "cross_user", "random"] as const
export type DiscoverBucket = (typeof DISCOVER_BUCKETS)[number]

/** The mix tiers: eligibility ladders, strictest first. */
export const TIERS = ["tier1", "tier2", "tier3"] as const
export type Tier = (typeof TIERS)[number]

/** Singleton system kinds have one playlist per user, so they can be refreshed and rotation-shuffled. */
export const SINGLETON_SYSTEM_KINDS = ["for_you", "discover"] as const
export type SingletonSystemKind = (typeof SINGLETON_SYSTEM_KINDS)[number]
export const SingletonSystemKind = Schema.Literal(...SINGLETON_SYSTEM_KINDS)

export const DAILY_MIX_COUNT = 6

const SONGS_LIKE_ARTIST = "songs_like_artist:"
const isArtistId = Schema.is(ArtistId)

/**
 * A system playlist's kind (`system_variant`): `for_you`, `discover`, `new_for_you`, `first_listens`,
 * `rediscover`, `on_repeat`, `daily_mix:1` … `daily_mix:6`, `songs_like_artist:<artist_id>`.
 */
export const SystemVariant = Schema.Union(
  Schema.Literal(...SINGLETON_SYSTEM_KINDS, "new_for_you", "first_listens", "rediscover", "on_repeat"),
  Schema.TemplateLiteral("daily_mix:", Schema.Literal(1, 2, 3, 4, 5, 6)),
  Schema.TemplateLiteral(SONGS_LIKE_ARTIST, Schema.String).pipe(
    Schema.filter((value) => isArtistId(value.slice(SONGS_LIKE_ARTIST.length)), {
      message: () => "songs_like_artist needs an artist id",
    }),
  ),
)
export type SystemVariant = typeof SystemVariant.Type
export const isSystemVariant = Schema.is(SystemVariant)

const DAILY_MIX = /^daily_mix:[1-6]$/

export const isSingletonKind = (value: string): value is SingletonSystemKind =>
  value === "for_you" || value === "discover"

export const dailyMixVariant = (index: 1 | 2 | 3 | 4 | 5 | 6): SystemVariant => `daily_mix:${index}`
export const songsLikeArtistVariant = (artist: ArtistId): SystemVariant => `songs_like_artist:${artist}`

/**
 * Metrics families (contract "Discover and system playlists"): stable groups of play sources. Plays with
 * no source are the baseline (the control), which is not a family of its own.
 */
export const METRICS_FAMILIES = ["go_to", "discovery", "direct", "radio"] as const
export const MetricsFamily = Schema.Literal(...METRICS_FAMILIES)
export type MetricsFamily = typeof MetricsFamily.Type

/** Families whose plays can carry a stamped pick kind (their sources are system snapshots). */
export const PICK_KIND_FAMILIES: ReadonlySet<MetricsFamily> = new Set(["go_to", "discovery"])

/**
 * The family of a play's source: `null` source → "baseline"; daily mixes, on_repeat and rediscover →
 * go_to; for_you, discover, new_for_you, first_listens and songs_like_artist:* → discovery; album:, artist:
 * and playlist: sources → direct; radio:<id> → radio. An unrecognised source → undefined (left out of
 * metrics, so a parent row is still the sum of its breakdown).
 */
export const familyOfSource = (source: string | null): MetricsFamily | "baseline" | undefined => {
  if (source === null || source === "") return "baseline"
  if (source === "on_repeat" || source === "rediscover" || DAILY_MIX.test(source)) return "go_to"
  if (
    source === "for_you" ||
    source === "discover" ||
    source === "new_for_you" ||
    source === "first_listens" ||
    source.startsWith(SONGS_LIKE_ARTIST)
  )
    return "discovery"
  if (source.startsWith("album:") || source.startsWith("artist:") || source.startsWith("playlist:")) return "direct"
  if (source.startsWith("radio:")) return "radio"
  return undefined
}
