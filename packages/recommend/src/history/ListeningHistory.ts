import type { AlbumId, ArtistId, LocalTime, PickKind, TrackId } from "@tonearm/core"
import { makeLocalTime } from "@tonearm/core"
import type { Catalog } from "../catalog/Catalog.js"
import { contextCellOf } from "../scoring/contextCell.js"

/**
 * One play event as the server loads it. `completion` is played/length in [0, 1] (core `completionOf`),
 * null for a play that never ended; `skipped` is the stored skip flag (core `isSkip`).
 */
export interface PlayRow {
  readonly track_id: TrackId
  readonly started_at_ms: number
  readonly skipped: boolean
  readonly completion: number | null
  readonly device_class?: string | null | undefined
  readonly source?: string | null | undefined
  readonly pick_kind?: PickKind | null | undefined
}

export interface Likes {
  readonly tracks?: Iterable<TrackId> | undefined
  readonly albums?: Iterable<AlbumId> | undefined
  readonly artists?: Iterable<ArtistId> | undefined
}

/**
 * A user's listening history, indexed against the catalog once and shared by the taste-profile builder,
 * context affinity and every surface. Plays of tracks no longer in the library are dropped.
 */
export interface ListeningHistory {
  readonly timeZone: string
  /** wall-clock parts in the user's zone (one converter, so its offset cache is shared) */
  readonly localTime: (epochMs: number) => LocalTime
  /** plays in time order, as columns */
  readonly playTrack: Int32Array
  readonly playAt: Float64Array
  readonly playSkipped: Uint8Array
  /** NaN when the play has no completion value */
  readonly playCompletion: Float64Array
  /** the daypart × weekday/weekend cell in the user's zone (contextCell) */
  readonly playCell: Uint8Array
  /** index into deviceClasses, −1 when the play had none */
  readonly playDevice: Int8Array
  readonly deviceClasses: ReadonlyArray<string>
  /** per track: unskipped plays, skips, latest play (any), −Infinity when never played */
  readonly trackPlays: Int32Array
  readonly trackSkips: Int32Array
  readonly trackLastPlayed: Float64Array
  /** per artist: unskipped plays, any plays, latest unskipped play */
  readonly artistPlays: Int32Array
  readonly artistHeard: Int32Array
  readonly artistLastPlayed: Float64Array
  readonly distinctUnskippedTracks: number
  readonly distinctUnskippedArtists: number
  readonly likedTracks: Uint8Array
  readonly likedAlbums: Uint8Array
  readonly likedArtists: Uint8Array
  /** the device class of the user's latest play (rule 4); null when it had none */
  readonly latestDeviceClass: string | null
}

/**
 * One local-time converter per zone, shared by every user in it (its offset caches fill once rather than
 * once per user). The converter is a pure function of (zone, instant); a few dozen zones are kept.
 */
const converters = new Map<string, (epochMs: number) => LocalTime>()
const MAX_CONVERTERS = 64
const localTimeOf = (zone: string): ((epochMs: number) => LocalTime) => {
  const known = converters.get(zone)
  if (known !== undefined) return known
  if (converters.size >= MAX_CONVERTERS) converters.delete(converters.keys().next().value!)
  const converter = makeLocalTime(zone)
  converters.set(zone, converter)
  return converter
}

/** Plays are best passed in time order (the server's ORDER BY started_at); any order is accepted. */
export const summarizeHistory = (input: {
  readonly catalog: Catalog
  readonly plays: ReadonlyArray<PlayRow>
  readonly likes?: Likes | undefined
  readonly timeZone: string
}): ListeningHistory => {
  const { catalog } = input
  const knownTrack: Array<number> = []
  const knownRow: Array<number> = []
  // Plays repeat tracks: a small map of the ids seen so far saves most look-ups in the library-sized one.
  const seen = new Map<string, number>()
  input.plays.forEach((play, row) => {
    let track = seen.get(play.track_id)
    if (track === undefined) {
      track = catalog.trackIndex.get(play.track_id) ?? -1
      seen.set(play.track_id, track)
    }
    if (track < 0) return
    knownTrack.push(track)
    knownRow.push(row)
  })
  const order = Array.from(knownRow.keys())
  const at = (k: number) => input.plays[knownRow[k]!]!.started_at_ms
  // The server usually loads plays in time order already; only sort when they are not.
  if (order.some((k, i) => i > 0 && at(k) < at(order[i - 1]!))) order.sort((a, b) => at(a) - at(b) || a - b)
  const n = order.length
  const localTime = localTimeOf(input.timeZone)
  const playTrack = new Int32Array(n)
  const playAt = new Float64Array(n)
  const playSkipped = new Uint8Array(n)
  const playCompletion = new Float64Array(n)
  const playCell = new Uint8Array(n)
  const playDevice = new Int8Array(n)
  const deviceClasses: Array<string> = []
  const trackPlays = new Int32Array(catalog.size)
  const trackSkips = new Int32Array(catalog.size)
  const trackLastPlayed = new Float64Array(catalog.size).fill(Number.NEGATIVE_INFINITY)
  const artists = catalog.artistIds.length
  const artistPlays = new Int32Array(artists)
  const artistHeard = new Int32Array(artists)
  const artistLastPlayed = new Float64Array(artists).fill(Number.NEGATIVE_INFINITY)
  let distinctUnskippedTracks = 0
  let distinctUnskippedArtists = 0

  order.forEach((k, i) => {
    const play = input.plays[knownRow[k]!]!
    const track = knownTrack[k]!
    const artist = catalog.trackArtist[track]!
    playTrack[i] = track
    playAt[i] = play.started_at_ms
    playSkipped[i] = play.skipped ? 1 : 0
    playCompletion[i] = play.completion === null ? Number.NaN : Math.min(1, Math.max(0, play.completion))
    playCell[i] = contextCellOf(localTime(play.started_at_ms))
    const device = play.device_class ?? ""
    if (device === "") playDevice[i] = -1
    else {
      let d = deviceClasses.indexOf(device)
      if (d < 0) d = deviceClasses.push(device) - 1
      playDevice[i] = d
    }
    artistHeard[artist]!++
    trackLastPlayed[track] = play.started_at_ms
    if (play.skipped) trackSkips[track]!++
    else {
      if (trackPlays[track]!++ === 0) distinctUnskippedTracks++
      if (artistPlays[artist]!++ === 0) distinctUnskippedArtists++
      artistLastPlayed[artist] = play.started_at_ms
    }
  })

  const flags = (size: number, ids: Iterable<string> | undefined, index: ReadonlyMap<string, number>) => {
    const out = new Uint8Array(size)
    for (const id of ids ?? []) {
      const i = index.get(id)
      if (i !== undefined) out[i] = 1
    }
    return out
  }
  const latest = n > 0 ? input.plays[knownRow[order[n - 1]!]!] : undefined
  const latestDevice = latest?.device_class ?? null
  return {
    timeZone: input.timeZone,
    localTime,
    playTrack,
    playAt,
    playSkipped,
    playCompletion,
    playCell,
    playDevice,
    deviceClasses,
    trackPlays,
    trackSkips,
    trackLastPlayed,
    artistPlays,
    artistHeard,
    artistLastPlayed,
    distinctUnskippedTracks,
    distinctUnskippedArtists,
    likedTracks: flags(catalog.size, input.likes?.tracks, catalog.trackIndex),
    likedAlbums: flags(catalog.albumIds.length, input.likes?.albums, catalog.albumIndex),
    likedArtists: flags(artists, input.likes?.artists, catalog.artistIndex),
    latestDeviceClass: latestDevice === "" ? null : latestDevice,
  }
}

/** Cold-start gate (Limits): at least 20 distinct unskipped tracks and at least 5 distinct artists. */
export const COLD_START_MIN_TRACKS = 20
export const COLD_START_MIN_ARTISTS = 5

export const passesColdStartGate = (history: ListeningHistory): boolean =>
  history.distinctUnskippedTracks >= COLD_START_MIN_TRACKS && history.distinctUnskippedArtists >= COLD_START_MIN_ARTISTS
