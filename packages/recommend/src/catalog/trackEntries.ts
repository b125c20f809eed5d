import type { Catalog } from "./Catalog.js"

/**
 * Per-track signal maps keyed by track id (popularity, other users' plays) hold tens of thousands of
 * entries, and one hash look-up per entry in the library-sized `trackIndex` is most of what reading them
 * costs. The server's engine worker keeps the same map objects from user to user and patches a few
 * hundred entries between them, so the resolution of the previous read is remembered per (map, catalog)
 * and checked entry by entry: an id equal to the one seen at that place last time has the same track.
 */
interface Resolution {
  readonly catalog: Catalog
  /** the map's ids in the order last read */
  readonly ids: ReadonlyArray<string>
  /** their catalog tracks, −1 when not in the library */
  readonly tracks: Int32Array
}

const resolutions = new WeakMap<ReadonlyMap<string, unknown>, Resolution>()

/** Ids removed since the last read are skipped by looking this far ahead in the remembered order. */
const LOOK_AHEAD = 8

/**
 * Calls `each(track, value)` for every entry of `map` whose id is a catalog track, in the map's order:
 * the same calls as `for (const [id, value] of map) { const t = catalog.trackIndex.get(id); … }`.
 */
export const forEachTrackEntry = <V>(
  catalog: Catalog,
  map: ReadonlyMap<string, V>,
  each: (track: number, value: V) => void,
): void => {
  const prior = resolutions.get(map)
  const known = prior !== undefined && prior.catalog === catalog ? prior : undefined
  const knownIds = known?.ids ?? []
  const knownTracks = known?.tracks
  let ids: Array<string> | undefined
  let tracks: Int32Array | undefined
  let cursor = 0
  let n = 0
  map.forEach((value, id) => {
    let track = -2
    if (knownTracks !== undefined) {
      const end = Math.min(cursor + LOOK_AHEAD, knownIds.length)
      for (let k = cursor; k < end; k++)
        if (knownIds[k] === id) {
          track = knownTracks[k]!
          // still in step with the remembered order while every id is found right at the cursor
          if (k !== cursor || n !== cursor) ids ??= copyPrefix(knownIds, n)
          cursor = k + 1
          break
        }
    }
    if (track === -2) {
      track = catalog.trackIndex.get(id) ?? -1
      ids ??= copyPrefix(knownIds, n)
    }
    if (ids !== undefined) {
      if (tracks === undefined) {
        tracks = new Int32Array(map.size)
        if (knownTracks !== undefined) tracks.set(knownTracks.subarray(0, Math.min(n, knownTracks.length)))
      }
      ids.push(id)
      tracks[n] = track
    }
    n++
    if (track >= 0) each(track, value)
  })
  if (ids === undefined && n !== knownIds.length) ids = copyPrefix(knownIds, n)
  if (ids !== undefined)
    resolutions.set(map, {
      catalog,
      ids,
      tracks: tracks ?? (knownTracks ?? new Int32Array(0)).slice(0, n),
    })
}

const copyPrefix = (ids: ReadonlyArray<string>, n: number): Array<string> => ids.slice(0, n)
