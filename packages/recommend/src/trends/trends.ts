import type { ArtistId, MetricsFamily } from "@tonearm/core"
import { clampLimit, familyOfSource, METRICS_FAMILIES } from "@tonearm/core"
import type { TasteProfile } from "../taste/TasteProfile.js"

/** Limits: the trends window defaults to 12 weeks, at most 52 (a larger request is served at 52). */
export const TRENDS_DEFAULT_WEEKS = 12
export const TRENDS_MAX_WEEKS = 52

export const trendsWindowWeeks = (weeks?: number | null): number =>
  clampLimit(weeks, TRENDS_DEFAULT_WEEKS, TRENDS_MAX_WEEKS)

const DAY_MS = 86_400_000
const WEEK_MS = 7 * DAY_MS

/** ISO weekday 1–7 of a UTC day number (1970-01-01 was a Thursday). */
const isoWeekdayOfDay = (day: number) => ((((day + 3) % 7) + 7) % 7) + 1

/** The ISO week of an instant, in UTC, as `YYYY-Www` (the ISO week-numbering year). */
export const isoWeekOf = (epochMs: number): string => {
  const day = Math.floor(epochMs / DAY_MS)
  const thursday = day + (4 - isoWeekdayOfDay(day))
  const year = new Date(thursday * DAY_MS).getUTCFullYear()
  const week = Math.floor((thursday - Date.UTC(year, 0, 1) / DAY_MS) / 7) + 1
  return `${year}-W${String(week).padStart(2, "0")}`
}

/** The Monday 00:00 UTC that starts the window of `weeks` ISO weeks ending with the week of `now`. */
export const trendsWindowStart = (now: number, weeks: number): number => {
  const day = Math.floor(now / DAY_MS)
  const monday = day - (isoWeekdayOfDay(day) - 1)
  return monday * DAY_MS - (weeks - 1) * WEEK_MS
}

/** One play of any user inside the window, as the server selects it (identity never leaves this function). */
export interface TrendPlayRow {
  readonly user_id: string
  readonly artist_id: ArtistId
  readonly started_at_ms: number
  readonly source: string | null
  readonly skipped: boolean
  readonly completion: number | null
  /** the played track: tracks played from one family by one listener in one week form that week's list */
  readonly track_id?: string | undefined
  /** true when this was the listener's first play of the track ever */
  readonly first_listen?: boolean | undefined
}

export interface TrendPoint {
  readonly week: string
  readonly plays: number
  readonly skip_rate: number | null
  /** sample-weighted: the mean over the week's plays that have a completion value */
  readonly avg_completion: number | null
  /** share of plays whose artist has a positive weight in the player's current taste profile */
  readonly taste_hit_rate: number | null
  /** share of plays that were the listener's first play of the track */
  readonly first_listen_share: number | null
  /**
   * Intra-list diversity: each listener's distinct tracks played from the family in the week form a list; its
   * diversity is the share of pairs of tracks by different artists; the mean over lists of two tracks or more.
   */
  readonly intra_list_diversity: number | null
}

export interface TrendSeries {
  readonly family: MetricsFamily | "baseline"
  readonly points: ReadonlyArray<TrendPoint>
}

export interface Trends {
  readonly weeks: ReadonlyArray<string>
  readonly from_ms: number
  readonly series: ReadonlyArray<TrendSeries>
}

/**
 * Intra-list diversity of one list given as track → artist: the share of its pairs of tracks by different
 * artists (1 − Σ nₐ(nₐ − 1) / n(n − 1)); undefined below two tracks.
 */
export const artistPairDiversity = (artistOfTrack: ReadonlyMap<string, string>): number | undefined => {
  const n = artistOfTrack.size
  if (n < 2) return undefined
  const perArtist = new Map<string, number>()
  for (const artist of artistOfTrack.values()) perArtist.set(artist, (perArtist.get(artist) ?? 0) + 1)
  let samePairs = 0
  for (const count of perArtist.values()) samePairs += count * (count - 1)
  return 1 - samePairs / (n * (n - 1))
}

const meanDiversity = (lists: Iterable<ReadonlyMap<string, string>>): number | null => {
  let sum = 0
  let count = 0
  for (const list of lists) {
    const value = artistPairDiversity(list)
    if (value === undefined) continue
    sum += value
    count++
  }
  return count === 0 ? null : sum / count
}

/**
 * Weekly trends per family (spec "Administration"): skip rate, sample-weighted completion and taste-hit
 * rate, and (issue 28 item 6) the share of first listens and the intra-list diversity. Taste hits are judged against each player's current profile, so they are recomputed over the
 * whole window and drift with the profiles. Every family (and the baseline) gets a point for every week
 * of the window; a week without plays has null rates.
 */
export const weeklyTrends = (input: {
  readonly rows: Iterable<TrendPlayRow>
  readonly profiles: ReadonlyMap<string, TasteProfile>
  readonly now: number
  readonly weeks?: number | null | undefined
}): Trends => {
  const count = trendsWindowWeeks(input.weeks)
  const from = trendsWindowStart(input.now, count)
  const weeks = Array.from({ length: count }, (_, i) => isoWeekOf(from + i * WEEK_MS + 3 * DAY_MS))
  const families = ["baseline", ...METRICS_FAMILIES] as const
  const cells = new Map<
    string,
    {
      plays: number
      skips: number
      completionSum: number
      completionCount: number
      hits: number
      firsts: number
      /** per listener: track → artist of the tracks played (the week's list) */
      lists: Map<string, Map<string, string>>
    }
  >()
  for (const row of input.rows) {
    if (row.started_at_ms < from || row.started_at_ms > input.now) continue
    const family = familyOfSource(row.source)
    if (family === undefined) continue
    const key = `${family}|${Math.floor((row.started_at_ms - from) / WEEK_MS)}`
    const cell = cells.get(key) ?? {
      plays: 0,
      skips: 0,
      completionSum: 0,
      completionCount: 0,
      hits: 0,
      firsts: 0,
      lists: new Map<string, Map<string, string>>(),
    }
    cells.set(key, cell)
    cell.plays++
    if (row.skipped) cell.skips++
    if (row.completion !== null && Number.isFinite(row.completion)) {
      cell.completionSum += Math.min(1, Math.max(0, row.completion))
      cell.completionCount++
    }
    if ((input.profiles.get(row.user_id)?.artists.get(row.artist_id) ?? 0) > 0) cell.hits++
    if (row.first_listen === true) cell.firsts++
    if (row.track_id !== undefined) {
      const list = cell.lists.get(row.user_id) ?? new Map<string, string>()
      cell.lists.set(row.user_id, list)
      list.set(row.track_id, row.artist_id)
    }
  }
  return {
    weeks,
    from_ms: from,
    series: families.map((family) => ({
      family,
      points: weeks.map((week, w) => {
        const cell = cells.get(`${family}|${w}`)
        if (cell === undefined)
          return {
            week,
            plays: 0,
            skip_rate: null,
            avg_completion: null,
            taste_hit_rate: null,
            first_listen_share: null,
            intra_list_diversity: null,
          }
        return {
          week,
          plays: cell.plays,
          skip_rate: cell.skips / cell.plays,
          avg_completion: cell.completionCount > 0 ? cell.completionSum / cell.completionCount : null,
          taste_hit_rate: cell.hits / cell.plays,
          first_listen_share: cell.firsts / cell.plays,
          intra_list_diversity: meanDiversity(cell.lists.values()),
        }
      }),
    })),
  }
}
