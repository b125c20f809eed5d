import type { Catalog } from "../catalog/Catalog.js"
import type { ListeningHistory } from "../history/ListeningHistory.js"

/** Rule 3: the window is 365 days; an artist's cell share shrinks toward the baseline with pseudo-count 5. */
export const CONTEXT_WINDOW_DAYS = 365
export const CONTEXT_PSEUDO_COUNT = 5

/**
 * The rule-3 formula for one artist: (cell plays + 5·baseline) / (plays + 5) − baseline, clamped to
 * [−1, 1]. An artist with no plays in the window (unknown) gets exactly 0.
 */
export const affinityFromCounts = (artistCellPlays: number, artistPlays: number, baselineShare: number): number => {
  if (artistPlays <= 0) return 0
  const shrunk = (artistCellPlays + CONTEXT_PSEUDO_COUNT * baselineShare) / (artistPlays + CONTEXT_PSEUDO_COUNT)
  return Math.min(1, Math.max(-1, shrunk - baselineShare))
}

/**
 * Context affinity per catalog artist for the cell `cell` (contextCell) at `now`: over the 365 days of
 * unskipped plays before now, an artist's share of plays in the cell minus the user's baseline share of
 * plays in the cell. Rule 4: with a device class, the cell also filters by that device (the cell is then
 * daypart × weekday/weekend × device); null or empty reproduces time-only behaviour.
 */
export const contextAffinities = (
  catalog: Catalog,
  history: ListeningHistory,
  options: { readonly now: number; readonly cell: number; readonly deviceClass?: string | null | undefined },
): Float64Array => {
  const since = options.now - CONTEXT_WINDOW_DAYS * 86_400_000
  const device =
    options.deviceClass === null || options.deviceClass === undefined || options.deviceClass === ""
      ? undefined
      : history.deviceClasses.indexOf(options.deviceClass)
  const artists = catalog.artistIds.length
  const plays = new Float64Array(artists)
  const inCell = new Float64Array(artists)
  let total = 0
  let totalInCell = 0
  for (let i = 0; i < history.playAt.length; i++) {
    const at = history.playAt[i]!
    if (at < since || at > options.now || history.playSkipped[i] === 1) continue
    const artist = catalog.trackArtist[history.playTrack[i]!]!
    plays[artist]!++
    total++
    if (history.playCell[i] === options.cell && (device === undefined || history.playDevice[i] === device)) {
      inCell[artist]!++
      totalInCell++
    }
  }
  const out = new Float64Array(artists)
  if (total === 0) return out
  const baseline = totalInCell / total
  for (let a = 0; a < artists; a++) out[a] = affinityFromCounts(inCell[a]!, plays[a]!, baseline)
  return out
}
