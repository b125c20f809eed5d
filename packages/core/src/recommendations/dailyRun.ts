import { IANAZone } from "luxon"

/** Spec "Limits": each user's daily job runs at 03:00 in the user's timezone. */
export const DAILY_RUN_HOUR = 3

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

/** The zone a job runs in: the user's, or UTC when it does not load (it always should: it was validated). */
export const scheduleZone = (name: string): IANAZone => {
  const zone = IANAZone.create(name)
  return zone.isValid ? zone : IANAZone.create("UTC")
}

/** The wall-clock reading at `at` in `zone`, as milliseconds of a UTC calendar (date and time, no offset). */
const wallClock = (zone: IANAZone, at: number) => at + zone.offset(at) * MINUTE_MS

/**
 * The first instant whose wall-clock reading in `zone` is at or after `wall` (a local date and time as UTC
 * milliseconds). An ordinary local time maps to its one instant; an ambiguous one (clocks set back) to its
 * first occurrence; one that does not exist (clocks set forward over it) to the instant the clocks jump,
 * which is the first valid instant after it.
 */
export const firstInstantAtOrAfter = (zone: IANAZone, wall: number): number => {
  // Every offset in force around that day: at most two (one transition) in any real zone.
  const offsets = [...new Set([-DAY_MS, 0, DAY_MS].map((shift) => zone.offset(wall + shift)))]
  const exact = offsets.map((offset) => wall - offset * MINUTE_MS).filter((at) => wallClock(zone, at) === wall)
  if (exact.length > 0) return Math.min(...exact)
  // A gap: `wall` read with the later offset is before the jump, with the earlier one after it.
  let before = Math.min(...offsets.map((offset) => wall - offset * MINUTE_MS))
  let after = Math.max(...offsets.map((offset) => wall - offset * MINUTE_MS))
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2)
    if (wallClock(zone, middle) >= wall) after = middle
    else before = middle
  }
  return after
}

/**
 * When a user's daily job runs next: the first 03:00 (local, DST-correct as in `firstInstantAtOrAfter`)
 * strictly after `after`. A job whose 03:00 passed while the server was down is simply due; claiming it
 * moves it here, so missed days are not run one by one.
 */
export const nextRunAt = (timeZone: string, after: Date): Date => {
  const zone = scheduleZone(timeZone)
  const now = after.getTime()
  const today = Math.floor(wallClock(zone, now) / DAY_MS) * DAY_MS
  for (let day = 0; day <= 2; day++) {
    const at = firstInstantAtOrAfter(zone, today + day * DAY_MS + DAILY_RUN_HOUR * 3_600_000)
    if (at > now) return new Date(at)
  }
  // Unreachable for real zones (a day is never skipped twice); keeps the function total.
  return new Date(now + DAY_MS)
}

/**
 * Issue 28: the daily run rebuilds **active** users only. A user is active when their latest activity — a play
 * (scrobbles and imported plays included), a sign-in or an API call (a session seen), or the account's creation —
 * is at most this many days old. An inactive user's run is skipped and recorded; their next visit rebuilds them.
 */
export const ACTIVE_USER_DAYS = 30

/** Whether the latest activity (epoch ms, null: none at all) makes the user active at `now`. */
export const isActiveUser = (lastActivityMs: number | null, now: number): boolean =>
  lastActivityMs !== null && lastActivityMs >= now - ACTIVE_USER_DAYS * DAY_MS
