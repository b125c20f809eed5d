import { DateTime } from "effect"

/** A server instant (decoded as DateTime.Utc) as a short local date and time. */
export const when = (instant: DateTime.Utc | null | undefined) =>
  instant === null || instant === undefined
    ? "–"
    : DateTime.toDateUtc(instant).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
