import type { ArtistId, PickKind, PickReason, SystemVariant, TrackId, Tuning } from "@tonearm/core"
import type { Catalog } from "../catalog/Catalog.js"
import type { ListeningHistory } from "../history/ListeningHistory.js"
import type { TasteProfile } from "../taste/TasteProfile.js"

/**
 * One track of a surface, with the pick kind and the reason stamped on the snapshot row. The reason (kind,
 * line, seed, the weighted terms behind the score) is made with the helpers of reasons.ts.
 */
export interface Pick {
  readonly track_id: TrackId
  readonly pick_kind: PickKind | null
  readonly score: number
  readonly reason: PickReason
}

/**
 * A built system playlist. `withheld` is true when it fell below its minimum size (its picks are then
 * empty, and the client shows the unlock placeholder).
 */
export interface Surface {
  readonly variant: SystemVariant
  readonly picks: ReadonlyArray<Pick>
  readonly withheld: boolean
  /**
   * Built before the cold-start gate (issue 28) from likes, the library's popularity and the first plays:
   * the server labels the playlist a starter mix in its description.
   */
  readonly starter?: boolean | undefined
}

export interface SimilarArtist {
  readonly artist_id: ArtistId
  /** provider similarity in [0, 1] */
  readonly score: number
}

/**
 * What every surface is built from: the taste profile, the candidates (the prepared library), the user's
 * listening history and the tuning. Clock and Random come from the Effect environment. The optional
 * signals are data the server has about other users and providers.
 */
export interface SurfaceInput {
  readonly profile: TasteProfile
  readonly candidates: Catalog
  readonly history: ListeningHistory
  readonly tuning: Tuning
  /** tracks the user must not be offered (quarantined, hidden) */
  readonly excluded?: ReadonlySet<TrackId> | undefined
  /** per-track popularity in [0, 1] among the server's listeners */
  readonly popularity?: ReadonlyMap<TrackId, number> | undefined
  /** other users' recent unskipped plays per track (the Discover cross_user bucket) */
  readonly crossUser?: ReadonlyMap<TrackId, number> | undefined
  /** in-library similar artists from the providers */
  readonly similarArtists?: ReadonlyMap<ArtistId, ReadonlyArray<SimilarArtist>> | undefined
  /** MusicBrainz ids of artists the user snoozed (still active): left out of the Discover deck */
  readonly snoozedArtistMbids?: ReadonlySet<string> | undefined
  /** salt for the You-might-like daily jitter, normally the user id */
  readonly jitterSalt?: string | undefined
  /**
   * The moment whose daypart × weekday cell scores context affinity (rule 3); the build time when absent.
   * The 03:00 daily run may pass the time the user usually listens, so mixes are not all tuned for night.
   */
  readonly contextTime?: number | undefined
  /** artist display names, for the reasons' lines ("Because you like …"); generic lines without them */
  readonly artistNames?: ReadonlyMap<ArtistId, string> | undefined
}

/** Minimum mix size (Limits): 15 tracks, 5 for New for you and First listens. */
export const MIN_MIX_SIZE = 15
export const MIN_SMALL_MIX_SIZE = 5

/**
 * The minimum applies to the five discovery mixes (contract's discovery family): For You, Discover, New for
 * you, First listens and Songs like <artist>. Other kinds have none (0).
 */
export const minimumMixSize = (variant: SystemVariant): number => {
  if (variant === "new_for_you" || variant === "first_listens") return MIN_SMALL_MIX_SIZE
  if (variant === "for_you" || variant === "discover" || variant.startsWith("songs_like_artist:")) return MIN_MIX_SIZE
  return 0
}

/** A mix smaller than its minimum is withheld. */
export const withMinimum = (variant: SystemVariant, picks: ReadonlyArray<Pick>): Surface =>
  picks.length < minimumMixSize(variant) ? { variant, picks: [], withheld: true } : { variant, picks, withheld: false }
