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

/**
 * A converter from epoch milliseconds to local wall-clock parts in `zone` (an IANA name; an unknown zone
 * reads as UTC, since the server only stores zones that load). Offsets are looked up through luxon once
 * per UTC hour: a zone changes offset at most once inside an hour, so when both ends of the hour agree
 * the whole hour shares that offset. This keeps 50k plays to a few thousand zone look-ups.
 */
export const makeLocalTime = (zone: string): ((epochMs: number) => LocalTime) => {
  const iana = IANAZone.isValidZone(zone) ? IANAZone.create(zone) : undefined
  const hourOffsets = new Map<number, number>()
  const offsetMinutes = (epochMs: number): number => {
    if (iana === undefined) return 0
    const hour = Math.floor(epochMs / HOUR_MS)
    const cached = hourOffsets.get(hour)
    if (cached !== undefined) return cached
    const start = iana.offset(hour * HOUR_MS)
    const end = iana.offset(hour * HOUR_MS + HOUR_MS - 1)
    if (start === end) {
      hourOffsets.set(hour, start)
      return start
    }
    return iana.offset(epochMs)
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
