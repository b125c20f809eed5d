/**
 * A listener's plays of one album or artist, summed: what Home's listening sections (and Subsonic's `frequent`
 * and `recent` album lists) are ranked from, and what Rediscover's eligibility reads.
 */
export interface PlayStat {
  readonly id: string
  /** Unskipped plays. */
  readonly plays: number
  /** Epoch ms of the latest play of any kind. */
  readonly lastPlayedMs: number
  /** Epoch ms of the latest unskipped play; null when every play was a skip. */
  readonly lastUnskippedMs: number | null
}

const byId = (a: PlayStat, b: PlayStat) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Most played: entries with an unskipped play, most unskipped plays first (ties: latest unskipped play, then id). */
export const rankMostPlayed = (stats: ReadonlyArray<PlayStat>): ReadonlyArray<string> =>
  stats
    .filter((stat) => stat.plays > 0)
    .sort((a, b) => b.plays - a.plays || (b.lastUnskippedMs ?? 0) - (a.lastUnskippedMs ?? 0) || byId(a, b))
    .map((stat) => stat.id)

/** Last played: every played entry, the latest play of any kind (a skip too) first (ties: id). */
export const rankLastPlayed = (stats: ReadonlyArray<PlayStat>): ReadonlyArray<string> =>
  [...stats].sort((a, b) => b.lastPlayedMs - a.lastPlayedMs || byId(a, b)).map((stat) => stat.id)
