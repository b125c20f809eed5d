import type { PlaylistRow } from "@tonearm/core"

/** Where a system playlist lives in the app: `/mixes/<system_variant>` (For You and Discover have their own pages). */
export const mixHref = (variant: string) =>
  variant === "for_you" ? "/for-you" : variant === "discover" ? "/discover" : `/mixes/${encodeURIComponent(variant)}`

/** Mixes in a stable, meaningful order: singletons, daily mixes, the rest, songs-like-artist last. */
const rank = (variant: string) =>
  variant === "for_you"
    ? 0
    : variant === "discover"
      ? 1
      : variant.startsWith("daily_mix:")
        ? 2 + Number(variant.slice(10)) / 10
        : variant.startsWith("songs_like_artist:")
          ? 4
          : 3

export const systemMixes = (rows: ReadonlyArray<PlaylistRow>): ReadonlyArray<PlaylistRow> =>
  rows
    .filter((row) => row.system_variant !== null)
    .sort((a, b) => rank(a.system_variant!) - rank(b.system_variant!) || a.name.localeCompare(b.name))
