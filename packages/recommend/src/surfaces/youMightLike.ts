import type { AlbumId, ArtistId } from "@tonearm/core"
import { Effect } from "effect"
import { passesColdStartGate } from "../history/ListeningHistory.js"
import { makeScorer, nowMillis, scoringBasis } from "./basis.js"
import type { SurfaceInput } from "./Surface.js"
import { indexesWhere, topKOfRange } from "./select.js"

/** Rule 8: the top 3 track scores of an album or artist are summed. */
export const ROLLUP_TOP_TRACKS = 3
/** Contract: at most 2 albums of one artist in the album row. */
export const YOU_MIGHT_LIKE_ALBUMS_PER_ARTIST = 2
/** Home shows 10 per row after read-time de-duplication, so the snapshot keeps more. */
export const YOU_MIGHT_LIKE_HOME_SIZE = 10
export const YOU_MIGHT_LIKE_SNAPSHOT_SIZE = 30
/** The daily jitter moves a roll-up by at most ±10 %. */
export const YOU_MIGHT_LIKE_JITTER = 0.1

export interface RolledUp<Id> {
  readonly id: Id
  /** the roll-up after the day's jitter (the order of the row) */
  readonly score: number
}

export interface YouMightLike {
  readonly albums: ReadonlyArray<RolledUp<AlbumId>>
  readonly artists: ReadonlyArray<RolledUp<ArtistId>>
  /** true when the cold-start gate blocked generation (both rows empty) */
  readonly gated: boolean
}

const FNV_OFFSET = 0x811c9dc5

/** FNV-1a state after `text`, continuing from `hash`. */
const fnv1a = (hash: number, text: string): number => {
  let h = hash
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h
}

/** FNV-1a over a string, as a fraction in [0, 1). */
const hashFraction = (text: string): number => (fnv1a(FNV_OFFSET, text) >>> 0) / 0x1_0000_0000

/**
 * The daily-rotating jitter factor of one entity: a pure function of (salt, local day, id), so it is
 * stable for a whole local day and changes the next day. In [1 − 0.1, 1 + 0.1).
 */
export const dailyJitter = (salt: string, localDay: number, id: string): number =>
  1 + YOU_MIGHT_LIKE_JITTER * (2 * hashFraction(`${salt}|${localDay}|${id}`) - 1)

/** `dailyJitter` of one (salt, local day) for many ids: the hash of the shared prefix is computed once. */
const dailyJitterOf = (salt: string, localDay: number): ((id: string) => number) => {
  const prefix = fnv1a(FNV_OFFSET, `${salt}|${localDay}|`)
  return (id) => 1 + YOU_MIGHT_LIKE_JITTER * (2 * ((fnv1a(prefix, id) >>> 0) / 0x1_0000_0000) - 1)
}

/**
 * Sums each dense group's top-n scores (rule 8): `scores[i]` belongs to group `groupOf[i]`. Groups with no
 * positive roll-up are dropped.
 */
export const rollUpTopScores = (
  items: ReadonlyArray<number>,
  groupOf: (item: number) => number,
  scoreOf: (item: number) => number,
  groups: number,
  topN: number = ROLLUP_TOP_TRACKS,
): Map<number, number> => {
  // each group's best n, kept sorted descending in one flat array
  const best = new Float64Array(groups * topN).fill(Number.NEGATIVE_INFINITY)
  for (const item of items) {
    const base = groupOf(item) * topN
    const score = scoreOf(item)
    if (score <= best[base + topN - 1]!) continue
    let k = base + topN - 1
    while (k > base && best[k - 1]! < score) {
      best[k] = best[k - 1]!
      k--
    }
    best[k] = score
  }
  const out = new Map<number, number>()
  for (let group = 0; group < groups; group++) {
    let sum = 0
    let any = false
    for (let k = group * topN; k < group * topN + topN; k++)
      if (best[k]! > Number.NEGATIVE_INFINITY) {
        sum += best[k]!
        any = true
      }
    if (any && sum > 0) out.set(group, sum)
  }
  return out
}

/**
 * The first `size` roll-ups that `keep` accepts, in the row's order: jittered score descending, ties by id
 * (the order of sorting every roll-up). Only the best few are sorted: every roll-up scoring at least the
 * k-th best jittered score (ties included) is the exact head of that order; k grows when `keep` refuses
 * too many of them. `keep` sees the head in order, once per roll-up.
 */
const rankedRollups = <Id extends string>(
  rollups: Map<number, number>,
  idOf: (i: number) => Id,
  jitter: (id: string) => number,
  size: number,
  keep: (i: number) => boolean = () => true,
): Array<RolledUp<Id>> => {
  const n = rollups.size
  const groups = new Int32Array(n)
  const ids: Array<Id> = new Array(n)
  const scores = new Float64Array(n)
  let r = 0
  for (const [i, sum] of rollups) {
    const id = idOf(i)
    groups[r] = i
    ids[r] = id
    scores[r] = sum * jitter(id)
    r++
  }
  const out: Array<RolledUp<Id>> = []
  let seen = 0
  for (let k = Math.min(n, size * 3); ; k = Math.min(n, k * 4)) {
    const top = topKOfRange(n, (row) => scores[row]!, k)
    const threshold = top.length === k && k < n ? scores[top[k - 1]!]! : Number.NEGATIVE_INFINITY
    const head: Array<number> = []
    for (let row = 0; row < n; row++) if (scores[row]! >= threshold) head.push(row)
    head.sort((a, b) => scores[b]! - scores[a]! || (ids[a]! < ids[b]! ? -1 : 1))
    // the rows already offered to `keep` come first in every longer head
    for (let h = seen; h < head.length && out.length < size; h++) {
      const row = head[h]!
      if (keep(groups[row]!)) out.push({ id: ids[row]!, score: scores[row]! })
    }
    seen = head.length
    if (out.length >= size || head.length >= n) return out
  }
}

/**
 * You-might-like album and artist rows. Track scores are the daily_mix weighted scores of tracks the user
 * has not played (no context: a home row is not tied to a time of day); each album's and artist's top 3 are
 * summed, jittered by the day's factor, and ranked; the album row keeps at most 2 albums per artist.
 * Blocked entirely by the cold-start gate (≥ 20 distinct unskipped tracks and ≥ 5 artists).
 */
export const youMightLike = (input: SurfaceInput): Effect.Effect<YouMightLike> =>
  Effect.gen(function* () {
    if (!passesColdStartGate(input.history)) return { albums: [], artists: [], gated: true }
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog, history } = input
    const localDay = history.localTime(now).localDay
    const salt = input.jitterSalt ?? ""
    // no context and no similarity: the scorer reads the memoised per-track sums
    const scoreOf = makeScorer(input, basis, { weights: input.tuning.daily_mix, now })
    const unheard = indexesWhere(catalog.size, (t) => basis.allowed[t] === 1 && basis.unheard[t] === 1)
    const jitter = dailyJitterOf(salt, localDay)
    const perArtist = new Map<number, number>()
    const albums = rankedRollups(
      rollUpTopScores(unheard, (t) => catalog.trackAlbum[t]!, scoreOf, catalog.albumIds.length),
      (i) => catalog.albumIds[i]!,
      jitter,
      YOU_MIGHT_LIKE_SNAPSHOT_SIZE,
      (i) => {
        const artist = catalog.albumArtist[i]!
        const count = perArtist.get(artist) ?? 0
        if (count >= YOU_MIGHT_LIKE_ALBUMS_PER_ARTIST) return false
        perArtist.set(artist, count + 1)
        return true
      },
    )
    const artists = rankedRollups(
      rollUpTopScores(unheard, (t) => catalog.trackArtist[t]!, scoreOf, catalog.artistIds.length),
      (i) => catalog.artistIds[i]!,
      jitter,
      YOU_MIGHT_LIKE_SNAPSHOT_SIZE,
    )
    return { albums, artists, gated: false }
  })

/**
 * Home section rule: a You-might-like row at read time, de-duplicated against the most played, rediscover
 * and last played sections, trimmed to 10.
 */
export const youMightLikeHomeRow = <Id extends string>(
  row: ReadonlyArray<Id>,
  shownElsewhere: Iterable<string>,
  limit: number = YOU_MIGHT_LIKE_HOME_SIZE,
): ReadonlyArray<Id> => {
  const seen = new Set<string>(shownElsewhere)
  return row.filter((id) => !seen.has(id)).slice(0, limit)
}
