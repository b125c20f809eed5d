import type { ArtistId } from "@tonearm/core"
import { type Catalog, cosine, type EnrichedTag } from "../catalog/Catalog.js"

/**
 * In-library artist similarity, as pure data in and out (it runs wherever the engine runs, a worker
 * thread included). Two sources, merged per artist by the larger score (as `artistSimilarities` merges
 * providers with tag cosine):
 *
 * - co-listening on this server: each listener's artists weighted log(1 + plays) relative to their most
 *   played artist, cosine between two artists' listener vectors, shrunk by n / (n + 2) for n shared
 *   listeners so one person's eclectic taste does not make everything they play "similar";
 * - the cosine of the two artists' tag profiles (genres and enriched tags) in the catalog.
 */

/** One listener's unskipped plays of one artist (all users: co-listening is a server-wide signal). */
export interface CoListenRow {
  readonly user_id: string
  readonly artist_id: ArtistId
  readonly plays: number
}

export interface SimilarArtistsQuery {
  readonly seeds: ReadonlyArray<ArtistId>
  readonly coListens: ReadonlyArray<CoListenRow>
  /** the most similar artists kept per seed */
  readonly limit: number
}

/** One in-library artist similar to a seed. `mbid` is null when the artist has no MusicBrainz id. */
export interface SimilarArtistHit {
  readonly artist_id: ArtistId
  readonly score: number
  readonly mbid: string | null
  /** the artist's tags, strongest = 1 (what rule 5's tag overlap reads) */
  readonly tags: ReadonlyArray<EnrichedTag>
}

export interface SeedSimilarities {
  readonly seed: ArtistId
  readonly similar: ReadonlyArray<SimilarArtistHit>
}

/** Shared listeners needed for a co-listening score to count half: n / (n + CO_LISTEN_SHRINK). */
export const CO_LISTEN_SHRINK = 2

export const similarInLibrary = (catalog: Catalog, query: SimilarArtistsQuery): ReadonlyArray<SeedSimilarities> => {
  // Listener vectors, only over artists still in the library.
  const listeners = new Map<string, Array<{ artist: number; weight: number }>>()
  const top = new Map<string, number>()
  for (const row of query.coListens) {
    if (!(row.plays > 0) || !catalog.artistIndex.has(row.artist_id)) continue
    top.set(row.user_id, Math.max(top.get(row.user_id) ?? 0, row.plays))
  }
  const norms = new Float64Array(catalog.artistIds.length)
  const byArtist = new Map<number, Array<{ user: string; weight: number }>>()
  for (const row of query.coListens) {
    const artist = catalog.artistIndex.get(row.artist_id)
    if (!(row.plays > 0) || artist === undefined) continue
    const weight = Math.log1p(row.plays) / Math.log1p(top.get(row.user_id)!)
    const list = listeners.get(row.user_id) ?? []
    list.push({ artist, weight })
    listeners.set(row.user_id, list)
    const users = byArtist.get(artist) ?? []
    users.push({ user: row.user_id, weight })
    byArtist.set(artist, users)
    norms[artist]! += weight * weight
  }

  return query.seeds.map((seed) => {
    const s = catalog.artistIndex.get(seed)
    if (s === undefined) return { seed, similar: [] }
    const scores = new Float64Array(catalog.artistIds.length)
    const seedVector = catalog.artistVectors[s]!
    catalog.artistVectors.forEach((vector, a) => {
      scores[a] = Math.max(0, cosine(vector, seedVector))
    })
    const dots = new Map<number, { dot: number; shared: number }>()
    for (const { user, weight } of byArtist.get(s) ?? [])
      for (const other of listeners.get(user) ?? []) {
        if (other.artist === s) continue
        const entry = dots.get(other.artist) ?? { dot: 0, shared: 0 }
        entry.dot += weight * other.weight
        entry.shared += 1
        dots.set(other.artist, entry)
      }
    for (const [a, { dot, shared }] of dots) {
      const co = (dot / Math.sqrt(norms[s]! * norms[a]!)) * (shared / (shared + CO_LISTEN_SHRINK))
      if (co > scores[a]!) scores[a] = Math.min(1, co)
    }

    scores[s] = 0
    const ranked: Array<number> = []
    scores.forEach((score, a) => {
      if (score > 0) ranked.push(a)
    })
    ranked.sort((a, b) => scores[b]! - scores[a]! || (catalog.artistIds[a]! < catalog.artistIds[b]! ? -1 : 1))
    return {
      seed,
      similar: ranked.slice(0, query.limit).map((a) => ({
        artist_id: catalog.artistIds[a]!,
        score: scores[a]!,
        mbid: catalog.artistMbid[a] ?? null,
        tags: artistTags(catalog, a),
      })),
    }
  })
}

/** The artist's tag profile with its strongest tag at 1, strongest first. */
const artistTags = (catalog: Catalog, artist: number): ReadonlyArray<EnrichedTag> => {
  const vector = catalog.artistVectors[artist]!
  let strongest = 0
  for (const value of vector.values) strongest = Math.max(strongest, value)
  if (strongest <= 0) return []
  const tags: Array<EnrichedTag> = []
  vector.ids.forEach((id, k) => {
    const weight = vector.values[k]! / strongest
    if (weight > 0) tags.push({ name: catalog.tagNames[id]!, weight })
  })
  return tags.sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : 1))
}
