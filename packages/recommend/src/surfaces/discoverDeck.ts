import type { DiscoverBucket, ReasonKind } from "@tonearm/core"
import { Effect, Random } from "effect"
import { forEachTrackEntry } from "../catalog/trackEntries.js"
import { isEmptyProfile } from "../taste/TasteProfile.js"
import { contextAt, makeScorer, nowMillis, scoringBasis } from "./basis.js"
import { DISCOVER_ARTIST_SHARE, groupShareCap } from "./diversity.js"
import { directDraws } from "./draws.js"
import { makeExplainer, makeReason } from "./reasons.js"
import type { Surface, SurfaceInput } from "./Surface.js"
import { minimumMixSize, withMinimum } from "./Surface.js"
import { type Bucket, interleaveBuckets, topK, weightedSampleIndexes } from "./select.js"

/** Rule 6: slots per 100 deck tracks, in interleave order (the deck starts with taste_unheard). */
/** The reason kind of each Discover bucket. */
export const DISCOVER_REASONS: Readonly<Record<DiscoverBucket, ReasonKind>> = {
  taste_unheard: "taste",
  dormant: "dormant",
  cross_user: "co_listened",
  random: "random",
}

export const DISCOVER_SLOTS: Readonly<Record<DiscoverBucket, number>> = {
  taste_unheard: 35,
  dormant: 30,
  cross_user: 20,
  random: 15,
}
export const DISCOVER_DECK_SIZE = 100
/** An artist is dormant when the user has not played them for this long. */
export const DORMANT_AFTER_DAYS = 180
/** The taste and dormant buckets draw from this many of their top-ranked tracks. */
export const DISCOVER_BUCKET_DEPTH = 300

const rankWeight = (rank: number) => 1 / (1 + rank / 35)

/**
 * The Discover track deck. Every bucket offers only tracks the user has never played (not even skipped),
 * never from a snoozed artist:
 * - taste_unheard ("Taste-matched"): taste match > 0, top-ranked by the daily_mix weights; empty for an
 *   empty profile;
 * - dormant: tracks of artists the user played before but not in the last 180 days (and does not dislike);
 * - cross_user: tracks other listeners play, drawn in proportion to their play counts;
 * - random: uniformly random library tracks.
 * The buckets are interleaved by their slots (rule 6).
 */
export const discoverDeck = (input: SurfaceInput): Effect.Effect<Surface> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog, history, profile } = input
    const size = catalog.size
    // open: allowed, not snoozed, never played (not even skipped)
    const open = new Uint8Array(size)
    for (let t = 0; t < size; t++)
      open[t] = basis.allowed[t] === 1 && basis.snoozed[t] === 0 && basis.unheard[t] === 1 ? 1 : 0
    const scoreOptions = { weights: input.tuning.daily_mix, now, context: contextAt(input, now) }
    const score = makeScorer(input, basis, scoreOptions)
    // the pool's top 300 by score, then drawn by rank
    const sampleRanked = (pool: Array<number>) => {
      const top = topK(pool, score, DISCOVER_BUCKET_DEPTH)
      return Effect.map(weightedSampleIndexes(top.length, rankWeight, DISCOVER_BUCKET_DEPTH), (ranks) =>
        ranks.map((rank) => top[rank]!),
      )
    }

    let taste: Array<number> = []
    if (!isEmptyProfile(profile)) {
      const pool: Array<number> = []
      for (let t = 0; t < size; t++) if (open[t] === 1 && basis.match[t]! > 0) pool.push(t)
      taste = yield* sampleRanked(pool)
    }

    const dormantSince = now - DORMANT_AFTER_DAYS * 86_400_000
    const dormantPool: Array<number> = []
    for (let t = 0; t < size; t++) {
      if (open[t] !== 1) continue
      const artist = catalog.trackArtist[t]!
      if (
        history.artistPlays[artist]! > 0 &&
        history.artistLastPlayed[artist]! < dormantSince &&
        basis.artistWeight[artist]! >= 0
      )
        dormantPool.push(t)
    }
    const dormant = yield* sampleRanked(dormantPool)

    // other users' plays, in track order (the map's order must not matter); each track appears once
    const crossPlays = new Float64Array(size)
    if (input.crossUser !== undefined)
      forEachTrackEntry(catalog, input.crossUser, (t, plays) => {
        if (open[t] === 1 && plays > 0) crossPlays[t] = plays
      })
    const crossPool: Array<number> = []
    for (let t = 0; t < size; t++) if (crossPlays[t]! > 0) crossPool.push(t)
    const crossUser = (yield* weightedSampleIndexes(
      crossPool.length,
      (i) => crossPlays[crossPool[i]!]!,
      DISCOVER_DECK_SIZE,
    )).map((i) => crossPool[i]!)

    const random = yield* randomOpenTracks(size, open, DISCOVER_DECK_SIZE)

    const buckets: ReadonlyArray<Bucket<DiscoverBucket>> = [
      { kind: "taste_unheard", slots: DISCOVER_SLOTS.taste_unheard, items: taste },
      { kind: "dormant", slots: DISCOVER_SLOTS.dormant, items: dormant },
      { kind: "cross_user", slots: DISCOVER_SLOTS.cross_user, items: crossUser },
      { kind: "random", slots: DISCOVER_SLOTS.random, items: random },
    ]
    const explain = makeExplainer(input, basis, scoreOptions)
    // No artist above DISCOVER_ARTIST_SHARE (10 %) of the deck: a track whose artist is full is passed over
    // in its bucket, and the bucket's next track takes the slot (issue 28).
    const capped = interleaveBuckets(buckets, DISCOVER_DECK_SIZE, {
      groupOf: (t) => catalog.trackArtist[t]!,
      max: discoverArtistCap(catalog.trackArtist, open),
    })
    // The cap never withholds a deck the library could fill: a tiny library whose few open tracks bunch on a few
    // artists gets the uncapped deck rather than none.
    const chosen = capped.length >= minimumMixSize("discover") ? capped : interleaveBuckets(buckets, DISCOVER_DECK_SIZE)
    const picks = chosen.map(({ item, kind }) => ({
      track_id: catalog.tracks[item]!.id,
      pick_kind: kind,
      score: score(item),
      reason: makeReason(input, DISCOVER_REASONS[kind], explain(item), { artist: catalog.tracks[item]!.artist_id }),
    }))
    return withMinimum("discover", picks)
  })

/**
 * The most tracks of one artist the deck may hold: 10 % of it (10), or an even share when fewer than ten
 * artists have open tracks (a small library still fills its deck: 3 artists → 34 each).
 */
export const discoverArtistCap = (trackArtist: Int32Array, open: Uint8Array): number => {
  const artists = new Set<number>()
  for (let t = 0; t < open.length; t++) if (open[t] === 1) artists.add(trackArtist[t]!)
  return Math.max(
    groupShareCap(DISCOVER_DECK_SIZE, DISCOVER_ARTIST_SHARE),
    Math.ceil(DISCOVER_DECK_SIZE / Math.max(1, artists.size)),
  )
}

/**
 * Up to `count` distinct random tracks passing `open`: random probes into the library, so a 100k-track
 * library is never shuffled whole; a sparse pool falls back to enumerating it.
 */
const randomOpenTracks = (size: number, open: Uint8Array, count: number): Effect.Effect<Array<number>> =>
  Effect.gen(function* () {
    const random = yield* Effect.random
    const direct = directDraws(random)
    const picked = new Set<number>()
    for (let probe = 0; probe < count * 20 && picked.size < count && size > 0; probe++) {
      const t = direct !== undefined ? direct.nextIntBetween(0, size) : yield* random.nextIntBetween(0, size)
      if (open[t] === 1) picked.add(t)
    }
    if (picked.size < count) {
      const rest: Array<number> = []
      for (let t = 0; t < size; t++) if (open[t] === 1 && !picked.has(t)) rest.push(t)
      const extra = Array.from(yield* Random.shuffle(rest)).slice(0, count - picked.size)
      for (const t of extra) picked.add(t)
    }
    return [...picked]
  })
