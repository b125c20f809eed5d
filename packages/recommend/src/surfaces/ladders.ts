import type { ReasonKind, Tier, TrackId } from "@tonearm/core"
import { Effect } from "effect"
import { makeScorer, nowMillis, type ScoringBasis, scoringBasis } from "./basis.js"
import { makeExplainer, makeReason } from "./reasons.js"
import type { Pick, Surface, SurfaceInput } from "./Surface.js"
import { withMinimum } from "./Surface.js"
import { bestPerGroup, topK } from "./select.js"

const DAY_MS = 86_400_000

/**
 * Fills a mix tier by tier (an eligibility ladder): tier1's best first, then tier2 and tier3 only while
 * room is left. `tierOf` gives a track's strictest tier (undefined: not eligible).
 */
const fillLadder = (
  input: SurfaceInput,
  eligible: ReadonlyArray<number>,
  tierOf: (t: number) => Tier | undefined,
  score: (t: number) => number,
  size: number,
  artistCap: number,
  reason: { readonly kind: ReasonKind; readonly explain: (t: number) => Pick["reason"]["score_parts"] },
): Array<Pick> => {
  const { candidates: catalog } = input
  const picks: Array<Pick> = []
  const perArtist = new Map<number, number>()
  const artistOf = (t: number) => catalog.trackArtist[t]!
  // each eligible track's tier, once (in eligible order)
  const byTier: Record<Tier, Array<number>> = { tier1: [], tier2: [], tier3: [] }
  for (const t of eligible) {
    const tier = tierOf(t)
    if (tier !== undefined) byTier[tier].push(t)
  }
  for (const tier of ["tier1", "tier2", "tier3"] as const) {
    if (picks.length >= size) break
    // Only an artist's best `artistCap` tracks can ever be picked, so the top-k needs no over-fetch.
    const pool = bestPerGroup(byTier[tier], artistOf, score, artistCap, catalog.artistIds.length)
    for (const t of topK(pool, score, pool.length)) {
      if (picks.length >= size) break
      const count = perArtist.get(artistOf(t)) ?? 0
      if (count >= artistCap) continue
      perArtist.set(artistOf(t), count + 1)
      picks.push({
        track_id: catalog.tracks[t]!.id,
        pick_kind: tier,
        score: score(t),
        reason: makeReason(input, reason.kind, reason.explain(t), { artist: catalog.artistIds[artistOf(t)] }),
      })
    }
  }
  return picks
}

const notDisliked = (input: SurfaceInput, basis: ScoringBasis, t: number) =>
  basis.match[t]! >= 0 && basis.artistWeight[input.candidates.trackArtist[t]!]! >= 0

/** New for you: unheard tracks added recently; ladder by how recently: 14, 30, 90 days. */
export const NEW_FOR_YOU_SIZE = 30
export const NEW_FOR_YOU_LADDER_DAYS: Readonly<Record<Tier, number>> = { tier1: 14, tier2: 30, tier3: 90 }
export const NEW_FOR_YOU_ARTIST_CAP = 3

export const newForYou = (input: SurfaceInput): Effect.Effect<Surface> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog } = input
    const score = makeScorer(input, basis, { weights: input.tuning.daily_mix, now })
    const tierOf = (t: number): Tier | undefined => {
      const age = now - catalog.trackAddedAt[t]!
      if (age < 0) return "tier1"
      if (age <= NEW_FOR_YOU_LADDER_DAYS.tier1 * DAY_MS) return "tier1"
      if (age <= NEW_FOR_YOU_LADDER_DAYS.tier2 * DAY_MS) return "tier2"
      if (age <= NEW_FOR_YOU_LADDER_DAYS.tier3 * DAY_MS) return "tier3"
      return undefined
    }
    const eligible: Array<number> = []
    for (let t = 0; t < catalog.size; t++)
      if (basis.allowed[t] === 1 && basis.unheard[t] === 1 && notDisliked(input, basis, t) && tierOf(t) !== undefined)
        eligible.push(t)
    return withMinimum(
      "new_for_you",
      fillLadder(input, eligible, tierOf, score, NEW_FOR_YOU_SIZE, NEW_FOR_YOU_ARTIST_CAP, {
        kind: "new_arrival",
        explain: makeExplainer(input, basis, { weights: input.tuning.daily_mix, now }),
      }),
    )
  })

/** First listens: tracks of artists the user has never played; ladder by taste match. */
export const FIRST_LISTENS_SIZE = 30
export const FIRST_LISTENS_LADDER_MATCH = { tier1: 0.25, tier2: 0.05 } as const
export const FIRST_LISTENS_ARTIST_CAP = 2

export const firstListens = (input: SurfaceInput): Effect.Effect<Surface> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog, history } = input
    const score = makeScorer(input, basis, { weights: input.tuning.daily_mix, now })
    const tierOf = (t: number): Tier | undefined => {
      const match = basis.match[t]!
      if (match >= FIRST_LISTENS_LADDER_MATCH.tier1) return "tier1"
      if (match >= FIRST_LISTENS_LADDER_MATCH.tier2) return "tier2"
      return match >= 0 ? "tier3" : undefined
    }
    const eligible: Array<number> = []
    for (let t = 0; t < catalog.size; t++)
      if (
        basis.allowed[t] === 1 &&
        history.artistHeard[catalog.trackArtist[t]!] === 0 &&
        notDisliked(input, basis, t) &&
        tierOf(t) !== undefined
      )
        eligible.push(t)
    return withMinimum(
      "first_listens",
      fillLadder(input, eligible, tierOf, score, FIRST_LISTENS_SIZE, FIRST_LISTENS_ARTIST_CAP, {
        kind: "first_listen",
        explain: makeExplainer(input, basis, { weights: input.tuning.daily_mix, now }),
      }),
    )
  })

/**
 * Rediscover (Limits): tracks with at least 3 unskipped plays. Ordering prefers tracks cold for 6 months
 * or more (tier1), then 5 or more plays (tier2), then the raw play count (tier3 is the rest).
 */
export const REDISCOVER_SIZE = 50
export const REDISCOVER_MIN_PLAYS = 3
export const REDISCOVER_MANY_PLAYS = 5
/** Six months, as days. */
export const REDISCOVER_COLD_DAYS = 183

/** What Rediscover needs to know about a track, album or artist: unskipped plays and the latest play. */
export interface RediscoverStat<Id extends string = string> {
  readonly id: Id
  /** unskipped plays */
  readonly plays: number
  /** epoch ms of the latest play of any kind */
  readonly lastPlayedMs: number
}

/** The Rediscover tier of an eligible entry: tier1 cold for 6 months, tier2 5+ plays, tier3 the rest. */
export const rediscoverTier = (stat: RediscoverStat, now: number): Tier | undefined => {
  if (stat.plays < REDISCOVER_MIN_PLAYS) return undefined
  if (stat.lastPlayedMs <= now - REDISCOVER_COLD_DAYS * DAY_MS) return "tier1"
  return stat.plays >= REDISCOVER_MANY_PLAYS ? "tier2" : "tier3"
}

/**
 * The Rediscover eligibility and ordering for any entity (tracks for the mix; albums and artists for the
 * home sections): at least 3 unskipped plays; cold for 6 months first, then 5 or more plays, then the raw
 * play count (ties: longest unplayed, then id).
 */
export const rankRediscover = <Id extends string>(
  stats: ReadonlyArray<RediscoverStat<Id>>,
  now: number,
): ReadonlyArray<Id> => rankedRediscover(stats, now).map(({ stat }) => stat.id)

const rankedRediscover = <Id extends string>(stats: ReadonlyArray<RediscoverStat<Id>>, now: number) => {
  const rows = stats.flatMap((stat) => {
    const tier = rediscoverTier(stat, now)
    return tier === undefined ? [] : [{ stat, tier, cold: tier === "tier1", many: stat.plays >= REDISCOVER_MANY_PLAYS }]
  })
  return rows.sort(
    (a, b) =>
      Number(b.cold) - Number(a.cold) ||
      Number(b.many) - Number(a.many) ||
      b.stat.plays - a.stat.plays ||
      a.stat.lastPlayedMs - b.stat.lastPlayedMs ||
      (a.stat.id < b.stat.id ? -1 : a.stat.id > b.stat.id ? 1 : 0),
  )
}

export const rediscover = (input: SurfaceInput): Effect.Effect<Surface> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog, history } = input
    const stats: Array<RediscoverStat<TrackId>> = []
    for (let t = 0; t < catalog.size; t++)
      if (basis.allowed[t] === 1 && history.trackPlays[t]! >= REDISCOVER_MIN_PLAYS)
        stats.push({
          id: catalog.tracks[t]!.id,
          plays: history.trackPlays[t]!,
          lastPlayedMs: history.trackLastPlayed[t]!,
        })
    const picks = rankedRediscover(stats, now)
      .slice(0, REDISCOVER_SIZE)
      .map(({ stat, tier }) => ({
        track_id: stat.id,
        pick_kind: tier,
        score: stat.plays,
        reason: makeReason(
          input,
          "rediscover",
          { plays: stat.plays },
          {
            artist: catalog.tracks[catalog.trackIndex.get(stat.id)!]!.artist_id,
          },
        ),
      }))
    return withMinimum("rediscover", picks)
  })
/**
 * On repeat: what the user keeps playing lately. Ladder on unskipped plays: tier1 ≥ 3 in the last 14 days,
 * tier2 ≥ 3 in the last 30, tier3 ≥ 2 in the last 30; most plays first.
 */
export const ON_REPEAT_SIZE = 30

export const onRepeat = (input: SurfaceInput): Effect.Effect<Surface> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog, history } = input
    const recent14 = new Map<number, number>()
    const recent30 = new Map<number, number>()
    const last = new Map<number, number>()
    for (let i = history.playAt.length - 1; i >= 0; i--) {
      const at = history.playAt[i]!
      if (at > now) continue
      if (at < now - 30 * DAY_MS) break
      if (history.playSkipped[i] === 1) continue
      const t = history.playTrack[i]!
      recent30.set(t, (recent30.get(t) ?? 0) + 1)
      if (at >= now - 14 * DAY_MS) recent14.set(t, (recent14.get(t) ?? 0) + 1)
      if (!last.has(t)) last.set(t, at)
    }
    const tierOf = (t: number): Tier | undefined =>
      (recent14.get(t) ?? 0) >= 3
        ? "tier1"
        : (recent30.get(t) ?? 0) >= 3
          ? "tier2"
          : (recent30.get(t) ?? 0) >= 2
            ? "tier3"
            : undefined
    const rank = { tier1: 0, tier2: 1, tier3: 2 } as const
    const rows = [...recent30.keys()]
      .filter((t) => basis.allowed[t] === 1)
      .flatMap((t) => {
        const tier = tierOf(t)
        return tier === undefined ? [] : [{ t, tier }]
      })
      .sort(
        (a, b) =>
          rank[a.tier] - rank[b.tier] ||
          recent30.get(b.t)! - recent30.get(a.t)! ||
          last.get(b.t)! - last.get(a.t)! ||
          a.t - b.t,
      )
    const picks = rows.slice(0, ON_REPEAT_SIZE).map(({ t, tier }) => ({
      track_id: catalog.tracks[t]!.id,
      pick_kind: tier,
      score: recent30.get(t)!,
      reason: makeReason(input, "on_repeat", { plays: recent30.get(t)! }, { artist: catalog.tracks[t]!.artist_id }),
    }))
    return withMinimum("on_repeat", picks)
  })
