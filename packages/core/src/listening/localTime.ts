import { IANAZone } from "luxon"

/** A moment as seen on the wall clock of a user's time zone. */
export interface LocalTime {
  /** 0–23 */
  readonly hour: number
  /** ISO weekday: 1 = Monday … 7 = Sunday */
  readonly isoWeekday: number
  /** Days since 1970-01-01 on the local calendar (a stable key for "the same local day"). */
  readonly localDay: number
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const WEEK_MS = 7 * DAY_MS

/**
 * A converter from epoch milliseconds to local wall-clock parts in `zone` (an IANA name; an unknown zone
 * reads as UTC, since the server only stores zones that load). Offsets are looked up through luxon once
 * per UTC week: a zone changes its offset at most once a week, so when both ends of a week agree the whole
 * week shares that offset; a week with a change is resolved per day, then per hour, and inside the hour
 * of the change exactly. This keeps a year of plays to a few hundred zone look-ups.
 */
export const makeLocalTime = (zone: string): ((epochMs: number) => LocalTime) => {
  const iana = IANAZone.isValidZone(zone) ? IANAZone.create(zone) : undefined
  // null marks a span whose ends disagree (an offset change inside it)
  const weekOffsets = new Map<number, number | null>()
  const dayOffsets = new Map<number, number | null>()
  const hourOffsets = new Map<number, number | null>()
  const spanOffset = (cache: Map<number, number | null>, span: number, length: number): number | null => {
    const cached = cache.get(span)
    if (cached !== undefined) return cached
    const start = iana!.offset(span * length)
    const value = start === iana!.offset(span * length + length - 1) ? start : null
    cache.set(span, value)
    return value
  }
  const offsetMinutes = (epochMs: number): number => {
    if (iana === undefined) return 0
    return (
      spanOffset(weekOffsets, Math.floor(epochMs / WEEK_MS), WEEK_MS) ??
      spanOffset(dayOffsets, Math.floor(epochMs / DAY_MS), DAY_MS) ??
      spanOffset(hourOffsets, Math.floor(epochMs / HOUR_MS), HOUR_MS) ??
      iana.offset(epochMs)
    )
  }
  return (epochMs) => {
    const local = epochMs + offsetMinutes(epochMs) * 60_000
    const localDay = Math.floor(local / DAY_MS)
    const hour = Math.floor((local - localDay * DAY_MS) / HOUR_MS)
    // 1970-01-01 was a Thursday (ISO weekday 4).
    const isoWeekday = ((((localDay + 3) % 7) + 7) % 7) + 1
    return { hour, isoWeekday, localDay }
  }
}

/** The local calendar date (YYYY-MM-DD) of a local day number. */
export const localDayToIsoDate = (localDay: number): string => new Date(localDay * DAY_MS).toISOString().slice(0, 10)
