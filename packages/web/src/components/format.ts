import { DateTime } from "effect"

/** 3:07, or 1:02:03 past an hour. */
export const formatTime = (seconds: number) => {
  if (!Number.isFinite(seconds) || seconds < 0) return "0:00"
  const whole = Math.floor(seconds)
  const h = Math.floor(whole / 3600)
  const m = Math.floor((whole % 3600) / 60)
  const s = String(whole % 60).padStart(2, "0")
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`
}
export const formatMs = (ms: number) => formatTime(ms / 1000)

/** Genre quick-jump link (spec "Genre rule" 6–7): the genre is a query parameter, a slash travels as %2F. */
export const genreHref = (genre: string) => `/albums?genre=${encodeURIComponent(genre)}`
export const yearHref = (year: number) => `/albums?year_from=${year}&year_to=${year}`

/**
 * A count with its noun: `plural(1, "track")` → "1 track", `plural(2, "track")` → "2 tracks",
 * `plural(3, "entry", "entries")` for an irregular plural. Every count the app shows goes through here.
 */
export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`

/** A server instant (decoded as DateTime.Utc) as a short local date and time. */
export const when = (instant: DateTime.Utc | null | undefined) =>
  instant === null || instant === undefined
    ? "–"
    : DateTime.toDateUtc(instant).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
