import { IANAZone } from "luxon"

/** IANA names only (no bare offsets like "+02:00"), canonicalised to their registered spelling. */
const IANA_SHAPE = /^[A-Za-z][A-Za-z0-9_+\-/]*$/

export const DEFAULT_TIMEZONE = "UTC"

/** The canonical zone name when `name` loads as an IANA zone, else undefined (spec: 400 invalid_timezone). */
export const canonicalTimeZone = (name: string): string | undefined => {
  const trimmed = name.trim()
  if (!IANA_SHAPE.test(trimmed) || !IANAZone.isValidZone(trimmed)) return undefined
  return new Intl.DateTimeFormat("en-US", { timeZone: trimmed }).resolvedOptions().timeZone
}
