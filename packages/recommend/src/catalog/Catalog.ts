import type { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import { splitGenres } from "@tonearm/core"
import { eraOfYear } from "../taste/eras.js"
import { MOODS, type Mood, moodOfTag } from "../taste/moods.js"

/** An enriched folksonomy tag with its relevance in (0, 1] (a provider's count scaled to its top tag). */
export interface EnrichedTag {
  readonly name: string
  readonly weight: number
}

/**
 * One library track as the server loads it (snake_case, like the rows it comes from). `genre` is the raw
 * genre text (the genre rule is applied here), `tags` the enriched tags of the track or its artist, `year`
 * the album year (null or 0 when undated).
 */
export interface LibraryTrack {
  readonly id: TrackId
  readonly artist_id: ArtistId
  readonly album_id: AlbumId
  readonly duration_ms: number
  readonly genre: string | null
  readonly tags?: ReadonlyArray<EnrichedTag> | undefined
  readonly year: number | null
  readonly added_at_ms: number
  /** The artist's MusicBrainz id, so a snoozed suggestion also leaves the Discover deck. */
  readonly artist_mbid?: string | null | undefined
  /**
   * The album's own artist (a compilation's is "Various Artists"), for the per-artist album cap; when
   * absent, the artist with most tracks on the album stands in.
   */
  readonly album_artist_id?: ArtistId | undefined
  /**
   * The track's other credited artists (contract "Artist credits"): further main artists and featured guests,
   * beside `artist_id` (its first main artist). Absent when it has none.
   */
  readonly credits?: ReadonlyArray<{ readonly artist_id: ArtistId; readonly role: "main" | "featured" }> | undefined
}

/**
 * What a play gives each credited artist beyond the track's first main artist: another main artist the whole
 * signal, a featured guest this fraction of it (a guest verse says less about a listener's taste than the
 * artist whose record it is, and a full share would let one guest-heavy album flood Discover with the guest).
 */
export const FEATURED_CREDIT_SHARE = 0.5

/** A sparse, L2-normalised tag vector (ids ascending). */
export interface TagVector {
  readonly ids: Int32Array
  readonly values: Float64Array
}

/**
 * The library prepared once for scoring: dense indexes for tracks, artists, albums and tags, the genre
 * rule and the mood vocabulary applied, and per-artist tag vectors. The candidates of every surface.
 * Build it once per rebuild run and share it between users.
 */
export interface Catalog {
  readonly tracks: ReadonlyArray<LibraryTrack>
  readonly size: number
  readonly trackIndex: ReadonlyMap<string, number>
  readonly artistIds: ReadonlyArray<ArtistId>
  readonly artistIndex: ReadonlyMap<string, number>
  readonly albumIds: ReadonlyArray<AlbumId>
  readonly albumIndex: ReadonlyMap<string, number>
  /** per track */
  readonly trackArtist: Int32Array
  /** per track, CSR: its other credited artists and the share of a play's signal each gets */
  readonly creditOffsets: Int32Array
  readonly creditArtists: Int32Array
  readonly creditShares: Float64Array
  readonly trackAlbum: Int32Array
  readonly trackAddedAt: Float64Array
  /** per track: the era index, −1 when undated */
  readonly trackEra: Int32Array
  readonly eraNames: ReadonlyArray<string>
  /** per track: bit i set when the track carries mood MOODS[i] */
  readonly trackMoods: Uint16Array
  /**
   * per track, CSR: the distinct tags of the track (genres and enriched tags, one namespace).
   * `tagGenre` is 1 for a genre tag, `tagRelevance` the enriched relevance (0 for a genre-only tag).
   */
  readonly tagOffsets: Int32Array
  readonly tagIds: Int32Array
  readonly tagGenre: Uint8Array
  readonly tagRelevance: Float64Array
  readonly tagNames: ReadonlyArray<string>
  readonly tagIndex: ReadonlyMap<string, number>
  /** per artist / album: its tracks */
  readonly artistTracks: ReadonlyArray<Int32Array>
  readonly albumTracks: ReadonlyArray<Int32Array>
  /** per album: its album artist (given, else the artist with most tracks on it), for the per-artist cap */
  readonly albumArtist: Int32Array
  readonly artistMbid: ReadonlyArray<string | null>
  /** per artist: tag profile of its tracks, L2-normalised (empty when untagged) */
  readonly artistVectors: ReadonlyArray<TagVector>
}

const intern = <K extends string>(index: Map<string, number>, names: Array<K>, name: K): number => {
  const known = index.get(name)
  if (known !== undefined) return known
  index.set(name, names.length)
  names.push(name)
  return names.length - 1
}

const groupBy = (keys: Int32Array, groups: number): Array<Int32Array> => {
  const counts = new Int32Array(groups)
  for (const key of keys) counts[key]!++
  const out = Array.from({ length: groups }, (_, g) => new Int32Array(counts[g]!))
  const fill = new Int32Array(groups)
  keys.forEach((key, i) => {
    out[key]![fill[key]!++] = i
  })
  return out
}

const normalised = (weights: Map<number, number>): TagVector => {
  const ids = Int32Array.from([...weights.keys()].sort((a, b) => a - b))
  const values = new Float64Array(ids.length)
  let norm = 0
  ids.forEach((id, i) => {
    values[i] = weights.get(id)!
    norm += values[i]! * values[i]!
  })
  norm = Math.sqrt(norm)
  if (norm > 0) for (let i = 0; i < values.length; i++) values[i]! /= norm
  return { ids, values }
}

/** Prepares the library. Duplicate track ids keep their first row. */
export const buildCatalog = (rows: ReadonlyArray<LibraryTrack>): Catalog => {
  const trackIndex = new Map<string, number>()
  const tracks: Array<LibraryTrack> = []
  for (const row of rows) {
    if (trackIndex.has(row.id)) continue
    trackIndex.set(row.id, tracks.length)
    tracks.push(row)
  }
  const size = tracks.length
  const artistIndex = new Map<string, number>()
  const artistIds: Array<ArtistId> = []
  const albumIndex = new Map<string, number>()
  const albumIds: Array<AlbumId> = []
  const tagIndex = new Map<string, number>()
  const tagNames: Array<string> = []
  const eraIndex = new Map<string, number>()
  const eraNames: Array<string> = []
  const trackArtist = new Int32Array(size)
  const trackAlbum = new Int32Array(size)
  const trackAddedAt = new Float64Array(size)
  const trackEra = new Int32Array(size)
  const trackMoods = new Uint16Array(size)
  const tagOffsets = new Int32Array(size + 1)
  const tagIdList: Array<number> = []
  const tagGenreList: Array<number> = []
  const tagRelevanceList: Array<number> = []
  const artistMbid: Array<string | null> = []
  const tagMoodBits: Array<number | undefined> = []
  const genreCache = new Map<string, ReadonlyArray<number>>()
  const creditOffsets = new Int32Array(size + 1)
  const creditArtistList: Array<number> = []
  const creditShareList: Array<number> = []

  tracks.forEach((track, i) => {
    const artist = intern(artistIndex, artistIds, track.artist_id)
    if (artist === artistMbid.length) artistMbid.push(null)
    if (artistMbid[artist] === null && track.artist_mbid) artistMbid[artist] = track.artist_mbid
    // An album artist with no tracks of its own ("Various Artists") still gets an index, before the per-artist arrays are sized.
    if (
      track.album_artist_id !== undefined &&
      intern(artistIndex, artistIds, track.album_artist_id) === artistMbid.length
    )
      artistMbid.push(null)
    trackArtist[i] = artist
    creditOffsets[i] = creditArtistList.length
    for (const credit of track.credits ?? []) {
      const other = intern(artistIndex, artistIds, credit.artist_id)
      if (other === artistMbid.length) artistMbid.push(null)
      if (other === artist) continue
      creditArtistList.push(other)
      creditShareList.push(credit.role === "featured" ? FEATURED_CREDIT_SHARE : 1)
    }
    trackAlbum[i] = intern(albumIndex, albumIds, track.album_id)
    trackAddedAt[i] = track.added_at_ms
    const era = eraOfYear(track.year)
    trackEra[i] = era === undefined ? -1 : intern(eraIndex, eraNames, era)
    tagOffsets[i] = tagIdList.length
    const start = tagIdList.length
    const slotOf = (tag: number) => {
      for (let k = start; k < tagIdList.length; k++) if (tagIdList[k] === tag) return k
      tagIdList.push(tag)
      tagGenreList.push(0)
      tagRelevanceList.push(0)
      return tagIdList.length - 1
    }
    // many tracks share one genre text: split and intern it once
    let genreIds = genreCache.get(track.genre ?? "")
    if (genreIds === undefined) {
      genreIds = splitGenres(track.genre).map((genre) => intern(tagIndex, tagNames, genre))
      genreCache.set(track.genre ?? "", genreIds)
    }
    for (const id of genreIds) tagGenreList[slotOf(id)] = 1
    let moods = 0
    for (const tag of track.tags ?? []) {
      const name = tag.name.trim()
      if (name === "" || !(tag.weight > 0)) continue
      const id = intern(tagIndex, tagNames, name)
      const slot = slotOf(id)
      tagRelevanceList[slot] = Math.max(tagRelevanceList[slot]!, Math.min(1, tag.weight))
      // one vocabulary look-up per distinct tag, not per track
      if (tagMoodBits[id] === undefined) {
        const mood = moodOfTag(name)
        tagMoodBits[id] = mood === undefined ? 0 : 1 << MOODS.indexOf(mood)
      }
      moods |= tagMoodBits[id]!
    }
    trackMoods[i] = moods
  })
  tagOffsets[size] = tagIdList.length
  creditOffsets[size] = creditArtistList.length
  const tagIds = Int32Array.from(tagIdList)
  const tagGenre = Uint8Array.from(tagGenreList)
  const tagRelevance = Float64Array.from(tagRelevanceList)

  const artistTracks = groupBy(trackArtist, artistIds.length)
  const albumTracks = groupBy(trackAlbum, albumIds.length)
  const albumArtist = new Int32Array(albumIds.length)
  albumTracks.forEach((members, album) => {
    const given = tracks[members[0]!]!.album_artist_id
    if (given !== undefined) {
      albumArtist[album] = artistIndex.get(given)!
      return
    }
    const counts = new Map<number, number>()
    let best = trackArtist[members[0]!]!
    for (const t of members) {
      const artist = trackArtist[t]!
      const count = (counts.get(artist) ?? 0) + 1
      counts.set(artist, count)
      if (count > (counts.get(best) ?? 0)) best = artist
    }
    albumArtist[album] = best
  })
  const artistVectors = artistTracks.map((members) => {
    const weights = new Map<number, number>()
    for (const t of members)
      for (let k = tagOffsets[t]!; k < tagOffsets[t + 1]!; k++) {
        const w = Math.max(tagGenre[k]!, tagRelevance[k]!)
        weights.set(tagIds[k]!, (weights.get(tagIds[k]!) ?? 0) + w)
      }
    return normalised(weights)
  })

  return {
    tracks,
    size,
    trackIndex,
    artistIds,
    artistIndex,
    albumIds,
    albumIndex,
    trackArtist,
    creditOffsets,
    creditArtists: Int32Array.from(creditArtistList),
    creditShares: Float64Array.from(creditShareList),
    trackAlbum,
    trackAddedAt,
    trackEra,
    eraNames,
    trackMoods,
    tagOffsets,
    tagIds,
    tagGenre,
    tagRelevance,
    tagNames,
    tagIndex,
    artistTracks,
    albumTracks,
    albumArtist,
    artistMbid,
    artistVectors,
  }
}

/** The moods of a catalog track. */
export const trackMoodsOf = (catalog: Catalog, track: number): ReadonlyArray<Mood> =>
  MOODS.filter((_, i) => (catalog.trackMoods[track]! & (1 << i)) !== 0)

/** Cosine of two normalised tag vectors (merge over ascending ids). */
export const cosine = (a: TagVector, b: TagVector): number => {
  let i = 0
  let j = 0
  let dot = 0
  while (i < a.ids.length && j < b.ids.length) {
    const x = a.ids[i]!
    const y = b.ids[j]!
    if (x === y) dot += a.values[i++]! * b.values[j++]!
    else if (x < y) i++
    else j++
  }
  return dot
}

/** A tag vector as dense per-tag values (0 for tags it lacks), for many cosines against one vector. */
export const denseTagVector = (vector: TagVector, tags: number): Float64Array => {
  const dense = new Float64Array(tags)
  for (let k = 0; k < vector.ids.length; k++) dense[vector.ids[k]!] = vector.values[k]!
  return dense
}

/**
 * `cosine(a, b)` with b given dense (`denseTagVector`): the same products added in the same (ascending
 * tag) order, so exactly the same value, without the merge.
 */
export const cosineDense = (a: TagVector, dense: Float64Array): number => {
  let dot = 0
  for (let i = 0; i < a.ids.length; i++) {
    const value = dense[a.ids[i]!]
    if (value !== undefined && value !== 0) dot += a.values[i]! * value
  }
  return dot
}

/** A normalised vector from weighted tag ids (helper for centroids and seeds). */
export const tagVectorOf = (weights: ReadonlyMap<number, number>): TagVector =>
  normalised(new Map([...weights].filter(([, w]) => w > 0)))
