import type { AlbumId, ArtistId, Tier, TrackId } from "@tonearm/core"
import { songsLikeArtistVariant } from "@tonearm/core"
import { Data, Effect } from "effect"
import { type Catalog, cosineDense, denseTagVector, type TagVector, tagVectorOf } from "../catalog/Catalog.js"
import { contextAt, makeScorer, nowMillis, type ScoringBasis, scoringBasis } from "./basis.js"
import { makeExplainer, makeReason } from "./reasons.js"
import type { Pick, Surface, SurfaceInput } from "./Surface.js"
import { withMinimum } from "./Surface.js"
import { type Bucket, capPerGroup, interleaveBuckets, spreadGroups, topK, weightedSampleIndexes } from "./select.js"

/**
 * Artist similarity to a seed in [0, 1]: 1 for the seed artist itself, otherwise the larger of the
 * providers' similar-artist score and the cosine of the two artists' tag profiles.
 */
export const artistSimilarities = (
  input: SurfaceInput,
  seedArtist: number | undefined,
  seedVector: TagVector,
): Float64Array => {
  const { candidates: catalog } = input
  const out = new Float64Array(catalog.artistIds.length)
  const seed = denseTagVector(seedVector, catalog.tagNames.length)
  for (let a = 0; a < out.length; a++) out[a] = cosineDense(catalog.artistVectors[a]!, seed)
  if (seedArtist !== undefined) {
    for (const similar of input.similarArtists?.get(catalog.artistIds[seedArtist]!) ?? []) {
      const a = catalog.artistIndex.get(similar.artist_id)
      if (a !== undefined) out[a] = Math.max(out[a]!, Math.min(1, Math.max(0, similar.score)))
    }
    out[seedArtist] = 1
  }
  return out
}

/** The cosine of a track's own tags with a seed vector given as dense per-tag values. */
const trackTagCosine = (catalog: Catalog, t: number, seed: Float64Array): number => {
  let dot = 0
  let norm = 0
  for (let k = catalog.tagOffsets[t]!; k < catalog.tagOffsets[t + 1]!; k++) {
    const w = Math.max(catalog.tagGenre[k]!, catalog.tagRelevance[k]!)
    dot += w * seed[catalog.tagIds[k]!]!
    norm += w * w
  }
  return norm > 0 ? dot / Math.sqrt(norm) : 0
}

const denseOf = (catalog: Catalog, vector: TagVector): Float64Array => denseTagVector(vector, catalog.tagNames.length)

const vectorOfTracks = (catalog: Catalog, tracks: Iterable<number>): TagVector => {
  const weights = new Map<number, number>()
  for (const t of tracks)
    for (let k = catalog.tagOffsets[t]!; k < catalog.tagOffsets[t + 1]!; k++)
      weights.set(
        catalog.tagIds[k]!,
        (weights.get(catalog.tagIds[k]!) ?? 0) + Math.max(catalog.tagGenre[k]!, catalog.tagRelevance[k]!),
      )
  return tagVectorOf(weights)
}

/** Songs like <artist>: similarity ladder of the artists (≥ 0.6, ≥ 0.35, ≥ 0.15), tiers interleaved 50/30/20. */
export const SONGS_LIKE_SIZE = 50
export const SONGS_LIKE_LADDER: Readonly<Record<Tier, number>> = { tier1: 0.6, tier2: 0.35, tier3: 0.15 }
export const SONGS_LIKE_TIER_SLOTS: Readonly<Record<Tier, number>> = { tier1: 50, tier2: 30, tier3: 20 }
export const SONGS_LIKE_ARTIST_CAP = 5
/** How many of the user's top artists get a Songs like mix in the daily rebuild. */
export const SONGS_LIKE_ARTIST_COUNT = 3

/**
 * Songs like <artist> (a system mix: device-agnostic; radio weights, similarity to the seed artist). The
 * seed artist's tracks and its closest artists are tier1; looser neighbours tier2 and tier3. An unknown
 * artist gives an empty mix, which the minimum withholds.
 */
export const songsLikeArtist = (input: SurfaceInput, artistId: ArtistId): Effect.Effect<Surface> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog } = input
    const variant = songsLikeArtistVariant(artistId)
    const seed = catalog.artistIndex.get(artistId)
    if (seed === undefined) return withMinimum(variant, [])
    const similarity = artistSimilarities(input, seed, catalog.artistVectors[seed]!)
    const scoreOptions = {
      weights: input.tuning.radio,
      now,
      context: contextAt(input, now),
      similarity: (t: number) => similarity[catalog.trackArtist[t]!]!,
    }
    const score = makeScorer(input, basis, scoreOptions)
    const explain = makeExplainer(input, basis, scoreOptions)
    const tiers: Record<Tier, Array<number>> = { tier1: [], tier2: [], tier3: [] }
    for (let artist = 0; artist < similarity.length; artist++) {
      const value = similarity[artist]!
      if (value < SONGS_LIKE_LADDER.tier3 || (artist !== seed && basis.artistWeight[artist]! < 0)) continue
      const tier: Tier =
        value >= SONGS_LIKE_LADDER.tier1 ? "tier1" : value >= SONGS_LIKE_LADDER.tier2 ? "tier2" : "tier3"
      for (const t of catalog.artistTracks[artist]!) if (basis.allowed[t] === 1) tiers[tier].push(t)
    }
    const drawn = (pool: Array<number>) => {
      const top = topK(pool, score, SONGS_LIKE_SIZE * 4)
      return weightedSampleIndexes(top.length, (rank) => 1 / (1 + rank / SONGS_LIKE_SIZE), SONGS_LIKE_SIZE * 4).pipe(
        Effect.map((ranks) =>
          capPerGroup(
            ranks.map((rank) => top[rank]!),
            (t) => catalog.trackArtist[t]!,
            SONGS_LIKE_ARTIST_CAP,
          ),
        ),
      )
    }
    const buckets: ReadonlyArray<Bucket<Tier>> = [
      { kind: "tier1", slots: SONGS_LIKE_TIER_SLOTS.tier1, items: yield* drawn(tiers.tier1) },
      { kind: "tier2", slots: SONGS_LIKE_TIER_SLOTS.tier2, items: yield* drawn(tiers.tier2) },
      { kind: "tier3", slots: SONGS_LIKE_TIER_SLOTS.tier3, items: yield* drawn(tiers.tier3) },
    ]
    const total = buckets.reduce((n, bucket) => n + bucket.items.length, 0)
    const mixed = capPerGroup(
      interleaveBuckets(buckets, total),
      (e) => catalog.trackArtist[e.item]!,
      SONGS_LIKE_ARTIST_CAP,
    ).slice(0, SONGS_LIKE_SIZE)
    const picks = spreadGroups(mixed, (e) => catalog.trackArtist[e.item]!).map(({ item, kind }) => ({
      track_id: catalog.tracks[item]!.id,
      pick_kind: kind,
      score: score(item),
      reason: makeReason(input, catalog.trackArtist[item] === seed ? "seed_artist" : "similar_artist", explain(item), {
        artist: artistId,
        seedId: artistId,
      }),
    }))
    return withMinimum(variant, picks)
  })

/** The user's strongest positive artists present in the library: the seeds of the Songs like mixes. */
export const songsLikeSeeds = (input: SurfaceInput, count = SONGS_LIKE_ARTIST_COUNT): ReadonlyArray<ArtistId> =>
  [...input.profile.artists]
    .filter(([id, weight]) => weight > 0 && input.candidates.artistIndex.has(id))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([id]) => id)

/** A radio seed (contract `POST /api/radio`). */
export type RadioSeed =
  | { readonly kind: "track"; readonly id: TrackId }
  | { readonly kind: "artist"; readonly id: ArtistId }
  | { readonly kind: "album"; readonly id: AlbumId }
  | { readonly kind: "genre"; readonly value: string }

export class RadioSeedNotFound extends Data.TaggedError("RadioSeedNotFound")<{ readonly seed: RadioSeed }> {}

/** Deployment config for radio (spec "Tuning"): recently-played hours, radio size and its maximum. */
export interface RadioOptions {
  readonly size?: number | undefined
  readonly maxSize?: number | undefined
  readonly recentlyPlayedHours?: number | undefined
}
export const RADIO_DEFAULT_SIZE = 50
export const RADIO_MAX_SIZE = 200
export const RADIO_RECENTLY_PLAYED_HOURS = 24
/** Candidates need at least this similarity to the seed. */
export const RADIO_MIN_SIMILARITY = 0.15

/**
 * Seeded radio: similarity to the seed is half artist similarity, half tag cosine (a genre seed is tag
 * cosine only); tracks are scored with the radio weights and the context of the current cell narrowed to
 * the device class of the user's latest play (rule 4). The top of the ranking is drawn with Random so two
 * radios from one seed differ, then spread so an artist does not repeat back to back. A track seed opens
 * its own radio. Radio picks carry no pick kind.
 */
export const radio = (
  input: SurfaceInput,
  seed: RadioSeed,
  options: RadioOptions = {},
): Effect.Effect<ReadonlyArray<Pick>, RadioSeedNotFound> =>
  Effect.gen(function* () {
    const now = yield* nowMillis
    const basis = scoringBasis(input)
    const { candidates: catalog } = input
    const size = Math.max(
      1,
      Math.min(Math.round(options.size ?? RADIO_DEFAULT_SIZE), options.maxSize ?? RADIO_MAX_SIZE),
    )
    const resolved = resolveSeed(catalog, seed)
    if (resolved === undefined) return yield* new RadioSeedNotFound({ seed })
    const artistSimilarity = artistSimilarities(input, resolved.artist, resolved.vector)
    const seedDense = denseOf(catalog, resolved.vector)
    const similarity = (t: number) => {
      const tags = trackTagCosine(catalog, t, seedDense)
      return resolved.artist === undefined ? tags : 0.5 * artistSimilarity[catalog.trackArtist[t]!]! + 0.5 * tags
    }
    const scoreOptions = {
      weights: input.tuning.radio,
      now,
      context: contextAt(input, now, input.history.latestDeviceClass),
      similarity,
      recentHours: options.recentlyPlayedHours ?? RADIO_RECENTLY_PLAYED_HOURS,
    }
    const score = makeScorer(input, basis, scoreOptions)
    const explain = makeExplainer(input, basis, scoreOptions)
    const pool = candidatePool(input, basis, artistSimilarity, resolved).filter(
      (t) => t !== resolved.track && similarity(t) >= RADIO_MIN_SIMILARITY,
    )
    const ranked = capPerGroup(
      topK(pool, score, size * 8),
      (t) => catalog.trackArtist[t]!,
      Math.max(3, Math.ceil(size / 8)),
    ).slice(0, size * 4)
    const drawn = (yield* weightedSampleIndexes(ranked.length, (rank) => 1 / (1 + rank / size), size)).map(
      (rank) => ranked[rank]!,
    )
    const ordered = spreadGroups(drawn, (t) => catalog.trackArtist[t]!)
    const tracks =
      resolved.track !== undefined && basis.allowed[resolved.track] === 1 ? [resolved.track, ...ordered] : ordered
    const seedArtist = resolved.artist === undefined ? undefined : catalog.artistIds[resolved.artist]
    const reasonOf = (t: number): Pick["reason"] =>
      seed.kind === "track"
        ? makeReason(input, "seed_track", explain(t), { seedId: seed.id })
        : seed.kind === "genre"
          ? makeReason(input, "tag_overlap", explain(t), { artist: catalog.tracks[t]!.artist_id })
          : makeReason(
              input,
              catalog.trackArtist[t] === resolved.artist ? "seed_artist" : "similar_artist",
              explain(t),
              {
                artist: seedArtist,
                seedId: seedArtist,
              },
            )
    return tracks
      .slice(0, size)
      .map((t) => ({ track_id: catalog.tracks[t]!.id, pick_kind: null, score: score(t), reason: reasonOf(t) }))
  })

interface ResolvedSeed {
  readonly track?: number | undefined
  readonly artist?: number | undefined
  readonly vector: TagVector
  readonly genre?: number | undefined
}

const resolveSeed = (catalog: Catalog, seed: RadioSeed): ResolvedSeed | undefined => {
  switch (seed.kind) {
    case "track": {
      const t = catalog.trackIndex.get(seed.id)
      return t === undefined
        ? undefined
        : { track: t, artist: catalog.trackArtist[t]!, vector: vectorOfTracks(catalog, [t]) }
    }
    case "artist": {
      const a = catalog.artistIndex.get(seed.id)
      return a === undefined ? undefined : { artist: a, vector: catalog.artistVectors[a]! }
    }
    case "album": {
      const album = catalog.albumIndex.get(seed.id)
      return album === undefined
        ? undefined
        : { artist: catalog.albumArtist[album]!, vector: vectorOfTracks(catalog, catalog.albumTracks[album]!) }
    }
    case "genre": {
      const tag = catalog.tagIndex.get(seed.value.trim())
      return tag === undefined ? undefined : { genre: tag, vector: tagVectorOf(new Map([[tag, 1]])) }
    }
  }
}

/** Tracks of the seed's artist and of artists close to the seed (and, for a genre seed, tracks carrying it). */
const candidatePool = (
  input: SurfaceInput,
  basis: ScoringBasis,
  artistSimilarity: Float64Array,
  seed: ResolvedSeed,
): Array<number> => {
  const { candidates: catalog } = input
  const pool = new Set<number>()
  for (let artist = 0; artist < artistSimilarity.length; artist++) {
    const value = artistSimilarity[artist]!
    if (value < RADIO_MIN_SIMILARITY || (artist !== seed.artist && basis.artistWeight[artist]! < 0)) continue
    for (const t of catalog.artistTracks[artist]!) if (basis.allowed[t] === 1) pool.add(t)
  }
  if (seed.genre !== undefined)
    for (let t = 0; t < catalog.size; t++) {
      if (basis.allowed[t] !== 1 || basis.artistWeight[catalog.trackArtist[t]!]! < 0) continue
      for (let k = catalog.tagOffsets[t]!; k < catalog.tagOffsets[t + 1]!; k++)
        if (catalog.tagIds[k] === seed.genre) {
          pool.add(t)
          break
        }
    }
  return [...pool].sort((a, b) => a - b)
}
