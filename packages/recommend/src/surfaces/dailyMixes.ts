import type { Tier } from "@tonearm/core"
import { dailyMixVariant } from "@tonearm/core"
import { Effect } from "effect"
import { cosine, cosineDense, denseTagVector, type TagVector, tagVectorOf } from "../catalog/Catalog.js"
import { passesColdStartGate } from "../history/ListeningHistory.js"
import { contextAt, makeScorer, nowMillis, scoringBasis } from "./basis.js"
import { mixPlayOrder } from "./diversity.js"
import { makeExplainer, makeReason, tasteReason } from "./reasons.js"
import type { Surface, SurfaceInput } from "./Surface.js"
import { type Bucket, capPerGroup, interleaveBuckets, topK, topKOfRange, weightedSampleIndexes } from "./select.js"

export const DAILY_MIX_MAX = 6
const MIX_NUMBERS = [1, 2, 3, 4, 5, 6] as const
export const DAILY_MIX_SIZE = 50
/** The user's strongest artists that are clustered. */
export const DAILY_MIX_SEED_ARTISTS = 60
/** An artist joins a cluster when its tags are at least this close to the cluster's centroid. */
export const CLUSTER_MIN_SIMILARITY = 0.35
/** Once six clusters exist, a remaining artist still joins its closest one when at least this close. */
export const CLUSTER_JOIN_SIMILARITY = 0.15
/** Tier 3 draws on the 40 other artists closest to the cluster, if at least this close. */
export const NEIGHBOUR_ARTISTS = 40
export const NEIGHBOUR_MIN_SIMILARITY = 0.2
/** Tier slots: familiar favourites, unheard tracks of the cluster's artists, close neighbours. */
export const DAILY_MIX_TIER_SLOTS: Readonly<Record<Tier, number>> = { tier1: 50, tier2: 30, tier3: 20 }
export const DAILY_MIX_ARTIST_CAP = 6
/** A cluster that cannot fill this many tracks does not make a mix. */
export const DAILY_MIX_MIN_TRACKS = 15

export interface ArtistCluster {
  /** catalog artist indexes, strongest first */
  readonly artists: ReadonlyArray<number>
  readonly centroid: TagVector
  readonly weight: number
}

/**
 * Up to six coherent clusters of the user's artists: the 60 strongest positive artists, strongest first,
 * each joining the closest cluster by tag cosine (≥ 0.35) or opening a new one while fewer than six
 * exist; once six exist, an artist joins its closest cluster if at least 0.15 close, else stays out.
 * Untagged artists cannot be placed by sound and are left out. Clusters are ordered by total weight,
 * which makes daily_mix:1 the user's main taste.
 */
export const clusterArtists = (input: SurfaceInput): ReadonlyArray<ArtistCluster> => {
  const { candidates: catalog, profile } = input
  const seeds = [...profile.artists]
    .filter(([id, weight]) => weight > 0 && catalog.artistIndex.has(id))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, DAILY_MIX_SEED_ARTISTS)
  const clusters: Array<{ artists: Array<number>; sums: Map<number, number>; centroid: TagVector; weight: number }> = []
  for (const [id, weight] of seeds) {
    const artist = catalog.artistIndex.get(id)!
    const vector = catalog.artistVectors[artist]!
    if (vector.ids.length === 0) continue
    let best = -1
    let bestSimilarity = CLUSTER_MIN_SIMILARITY
    clusters.forEach((cluster, c) => {
      const similarity = cosine(vector, cluster.centroid)
      if (similarity >= bestSimilarity) {
        best = c
        bestSimilarity = similarity
      }
    })
    if (best < 0 && clusters.length >= DAILY_MIX_MAX) {
      clusters.forEach((cluster, c) => {
        const similarity = cosine(vector, cluster.centroid)
        if (similarity >= CLUSTER_JOIN_SIMILARITY && (best < 0 || similarity > bestSimilarity)) {
          best = c
          bestSimilarity = similarity
        }
      })
      if (best < 0) continue
    }
    if (best < 0) {
      clusters.push({ artists: [], sums: new Map(), centroid: vector, weight: 0 })
      best = clusters.length - 1
    }
    const cluster = clusters[best]!
    cluster.artists.push(artist)
    cluster.weight += weight
    vector.ids.forEach((tag, k) => {
      cluster.sums.set(tag, (cluster.sums.get(tag) ?? 0) + vector.values[k]!)
    })
    cluster.centroid = tagVectorOf(cluster.sums)
  }
  return clusters
    .map(({ artists, centroid, weight }) => ({ artists, centroid, weight }))
    .sort((a, b) => b.weight - a.weight)
}

/**
 * Daily mixes (device-agnostic, daily_mix weights). Each cluster's mix interleaves three eligibility tiers
 * by slots 50/30/20: tier1 tracks of the cluster's artists the user plays without skipping much, tier2 their
 * unheard tracks, tier3 unheard tracks of the 40 other artists closest to the cluster (cosine ≥ 0.2), not
 * disliked. Within a tier the top-ranked
 * tracks are drawn with Random so the mix changes day to day. No track appears in two mixes.
 */
export const dailyMixes = (input: SurfaceInput): Effect.Effect<ReadonlyArray<Surface>> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog, history } = input
    const context = contextAt(input, now)
    const used = new Set<number>()
    const mixes: Array<Surface> = []
    for (const cluster of clusterArtists(input)) {
      const similarity = new Float64Array(catalog.artistIds.length)
      const centroid = denseTagVector(cluster.centroid, catalog.tagNames.length)
      for (let a = 0; a < similarity.length; a++) similarity[a] = cosineDense(catalog.artistVectors[a]!, centroid)
      const members = new Set(cluster.artists)
      const scoreOptions = {
        weights: input.tuning.daily_mix,
        now,
        context,
        similarity: (t: number) => similarity[catalog.trackArtist[t]!]!,
      }
      const score = makeScorer(input, basis, scoreOptions)
      const explain = makeExplainer(input, basis, scoreOptions)
      const clusterSeed = catalog.artistIds[cluster.artists[0]!]
      const open = (t: number) => basis.allowed[t] === 1 && !used.has(t)
      const unheard = (t: number) => basis.unheard[t] === 1
      const tier1: Array<number> = []
      const tier2: Array<number> = []
      for (const artist of cluster.artists)
        for (const t of catalog.artistTracks[artist]!) {
          if (!open(t)) continue
          if (unheard(t)) tier2.push(t)
          else if (history.trackPlays[t]! > 0 && history.trackSkips[t]! <= history.trackPlays[t]!) tier1.push(t)
        }
      const neighbours = topKOfRange(
        catalog.artistIds.length,
        (artist) =>
          similarity[artist]! >= NEIGHBOUR_MIN_SIMILARITY && !members.has(artist) && basis.artistWeight[artist]! >= 0
            ? similarity[artist]!
            : Number.NaN,
        NEIGHBOUR_ARTISTS,
      )
      const tier3: Array<number> = []
      for (const artist of neighbours)
        for (const t of catalog.artistTracks[artist]!) if (open(t) && unheard(t)) tier3.push(t)
      const drawn = (pool: Array<number>) => {
        const top = topK(pool, score, DAILY_MIX_SIZE * 3)
        return weightedSampleIndexes(top.length, (rank) => 1 / (1 + rank / DAILY_MIX_SIZE), DAILY_MIX_SIZE * 3).pipe(
          Effect.map((ranks) =>
            capPerGroup(
              ranks.map((rank) => top[rank]!),
              (t) => catalog.trackArtist[t]!,
              DAILY_MIX_ARTIST_CAP,
            ),
          ),
        )
      }
      const buckets: ReadonlyArray<Bucket<Tier>> = [
        { kind: "tier1", slots: DAILY_MIX_TIER_SLOTS.tier1, items: yield* drawn(tier1) },
        { kind: "tier2", slots: DAILY_MIX_TIER_SLOTS.tier2, items: yield* drawn(tier2) },
        { kind: "tier3", slots: DAILY_MIX_TIER_SLOTS.tier3, items: yield* drawn(tier3) },
      ]
      const mixed = capPerGroup(
        interleaveBuckets(
          buckets,
          buckets.reduce((n, bucket) => n + bucket.items.length, 0),
        ),
        (entry) => catalog.trackArtist[entry.item]!,
        DAILY_MIX_ARTIST_CAP,
      ).slice(0, DAILY_MIX_SIZE)
      if (mixed.length < DAILY_MIX_MIN_TRACKS) continue
      for (const { item } of mixed) used.add(item)
      const ordered = mixPlayOrder(catalog, mixed)
      const index = MIX_NUMBERS[mixes.length]
      if (index === undefined) break
      mixes.push({
        variant: dailyMixVariant(index),
        picks: ordered.map(({ item, kind }) => ({
          track_id: catalog.tracks[item]!.id,
          pick_kind: kind,
          score: score(item),
          // cluster members' tracks share the mix's style; tier3 comes from neighbouring artists
          reason: makeReason(input, kind === "tier3" ? "similar_artist" : "tag_overlap", explain(item), {
            artist: clusterSeed,
            seedId: clusterSeed,
          }),
        })),
        withheld: false,
      })
    }
    if (passesColdStartGate(history)) return mixes
    // Before the cold-start gate every mix is labelled a starter mix; with no cluster mix, the starter mix.
    if (mixes.length === 0) {
      const starter = yield* starterMix(input)
      return starter === undefined ? [] : [starter]
    }
    return mixes.map((mix) => ({ ...mix, starter: true }))
  })

/**
 * Cold start (issue 28): before the cold-start gate, when no cluster makes a mix, Daily Mix 1 is a starter
 * mix instead of nothing: tier1 the tracks the user liked or played, tier2 unheard tracks of the artists they
 * liked or played, tier3 the library's most popular tracks (other listeners' plays; the fallback score when
 * nobody plays yet), interleaved 50/30/20, at most 6 per artist, labelled `starter`.
 */
export const starterMix = (input: SurfaceInput): Effect.Effect<Surface | undefined> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog, history } = input
    const options = { weights: input.tuning.daily_mix, now, context: contextAt(input, now), fallback: true }
    const score = makeScorer(input, basis, options)
    const explain = makeExplainer(input, basis, options)
    const known = new Set<number>()
    const tier1: Array<number> = []
    for (let t = 0; t < catalog.size; t++)
      if (basis.allowed[t] === 1 && (basis.like[t]! > 0 || (history.trackPlays[t]! > 0 && basis.match[t]! >= 0))) {
        tier1.push(t)
        known.add(catalog.trackArtist[t]!)
      }
    const tier2: Array<number> = []
    const tier3: Array<number> = []
    for (let t = 0; t < catalog.size; t++) {
      if (basis.allowed[t] !== 1 || basis.unheard[t] !== 1 || basis.artistWeight[catalog.trackArtist[t]!]! < 0) continue
      if (known.has(catalog.trackArtist[t]!)) tier2.push(t)
      else tier3.push(t)
    }
    const popular = (t: number) => basis.popularity[t]! * 10 + score(t)
    const buckets: ReadonlyArray<Bucket<Tier>> = [
      { kind: "tier1", slots: DAILY_MIX_TIER_SLOTS.tier1, items: topK(tier1, score, DAILY_MIX_SIZE) },
      { kind: "tier2", slots: DAILY_MIX_TIER_SLOTS.tier2, items: topK(tier2, score, DAILY_MIX_SIZE) },
      { kind: "tier3", slots: DAILY_MIX_TIER_SLOTS.tier3, items: topK(tier3, popular, DAILY_MIX_SIZE * 3) },
    ]
    const mixed = interleaveBuckets(buckets, DAILY_MIX_SIZE, {
      groupOf: (t) => catalog.trackArtist[t]!,
      max: DAILY_MIX_ARTIST_CAP,
    })
    if (mixed.length < DAILY_MIX_MIN_TRACKS) return undefined
    const ordered = mixPlayOrder(catalog, mixed)
    return {
      variant: dailyMixVariant(1),
      picks: ordered.map(({ item, kind }) => ({
        track_id: catalog.tracks[item]!.id,
        pick_kind: kind,
        score: score(item),
        reason:
          kind === "tier3"
            ? makeReason(input, "popular", explain(item), { artist: catalog.tracks[item]!.artist_id })
            : basis.like[item]! > 0
              ? makeReason(input, "liked", explain(item), { artist: catalog.tracks[item]!.artist_id })
              : tasteReason(input, item, explain(item)),
      })),
      withheld: false,
      starter: true,
    }
  })
