import type { Tuning } from "@tonearm/core"
import { Effect } from "effect"
import type { Catalog } from "../catalog/Catalog.js"
import { type Likes, type ListeningHistory, type PlayRow, summarizeHistory } from "../history/ListeningHistory.js"
import { buildTasteProfile } from "../taste/buildTasteProfile.js"
import type { TasteProfile } from "../taste/TasteProfile.js"
import { nowMillis } from "./basis.js"
import { dailyMixes } from "./dailyMixes.js"
import { discoverDeck } from "./discoverDeck.js"
import { preferUnshown, repeatedLists } from "./diversity.js"
import { forYou } from "./forYou.js"
import { firstListens, newForYou, onRepeat, rediscover } from "./ladders.js"
import type { Pick, Surface, SurfaceInput } from "./Surface.js"
import { songsLikeArtist, songsLikeSeeds } from "./seeded.js"
import { type YouMightLike, youMightLike } from "./youMightLike.js"

export interface SystemSnapshots {
  /** every system playlist of the user, withheld ones included (their picks empty) */
  readonly surfaces: ReadonlyArray<Surface>
  readonly youMightLike: YouMightLike
}

/**
 * Every system playlist and You-might-like row of one user, as the daily 03:00 run (or a manual refresh)
 * replaces them: For You, Discover, New for you, First listens, Rediscover, On repeat, the daily mixes and
 * Songs like <artist> for the user's top artists.
 */
export const rebuildSystemSnapshots = (input: SurfaceInput): Effect.Effect<SystemSnapshots> =>
  Effect.gen(function* () {
    const fixed = yield* Effect.all([
      forYou(input),
      discoverDeck(input),
      newForYou(input),
      firstListens(input),
      rediscover(input),
      onRepeat(input),
    ])
    const mixes = yield* dailyMixes(input)
    const songsLike = yield* Effect.forEach(songsLikeSeeds(input), (artist) => songsLikeArtist(input, artist))
    return { surfaces: distinctSurfaces([...fixed, ...mixes, ...songsLike]), youMightLike: yield* youMightLike(input) }
  })

/**
 * Two mixes of one user are never the same list (issue 28): Rediscover shows a track already On repeat only
 * when nothing else is eligible, and a mix whose tracks are exactly those of an earlier one is withheld.
 */
export const distinctSurfaces = (surfaces: ReadonlyArray<Surface>): Array<Surface> => {
  const onRepeat = new Set(surfaces.find((s) => s.variant === "on_repeat")?.picks.map((p) => p.track_id) ?? [])
  const ordered = surfaces.map((surface) =>
    surface.variant === "rediscover" && onRepeat.size > 0
      ? { ...surface, picks: preferUnshownPicks(surface.picks, onRepeat) }
      : surface,
  )
  // On repeat is checked before the others, so a Rediscover repeating it is the one withheld.
  const order = ordered.map((_, i) => i).sort((a, b) => rank(ordered[a]!) - rank(ordered[b]!) || a - b)
  const repeated = repeatedLists(order.map((i) => ordered[i]!.picks.map((p) => p.track_id)))
  const withheld = new Set([...repeated].map((k) => order[k]!))
  return ordered.map((surface, i) =>
    withheld.has(i) ? { variant: surface.variant, picks: [], withheld: true } : surface,
  )
}

const rank = (surface: Surface) => (surface.variant === "on_repeat" ? 0 : 1)

const preferUnshownPicks = (picks: ReadonlyArray<Pick>, shown: ReadonlySet<string>): Array<Pick> => {
  const byId = new Map(picks.map((p) => [p.track_id as string, p]))
  return preferUnshown(
    picks.map((p) => p.track_id as string),
    shown,
    picks.length,
  ).map((id) => byId.get(id)!)
}

/**
 * The whole daily rebuild of one user from loaded rows: history summary, taste profile (at the Clock's
 * now), then every snapshot. The server stores the profile rows and the snapshots.
 */
export const rebuildUser = (args: {
  readonly catalog: Catalog
  readonly plays: ReadonlyArray<PlayRow>
  readonly likes?: Likes | undefined
  readonly timeZone: string
  readonly tuning: Tuning
  readonly signals?: Omit<SurfaceInput, "profile" | "candidates" | "history" | "tuning"> | undefined
}): Effect.Effect<{
  readonly profile: TasteProfile
  readonly history: ListeningHistory
  readonly snapshots: SystemSnapshots
}> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const history = summarizeHistory({
      catalog: args.catalog,
      plays: args.plays,
      likes: args.likes,
      timeZone: args.timeZone,
    })
    const profile = buildTasteProfile({ catalog: args.catalog, history, taste: args.tuning.taste, now })
    const snapshots = yield* rebuildSystemSnapshots({
      ...args.signals,
      profile,
      candidates: args.catalog,
      history,
      tuning: args.tuning,
    })
    return { profile, history, snapshots }
  })
