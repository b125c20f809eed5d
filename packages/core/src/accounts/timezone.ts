import { IANAZone } from "luxon"

/** IANA names only (no bare offsets like "+02:00"). */
const IANA_SHAPE = /^[A-Za-z][A-Za-z0-9_+\-/]*$/

export const DEFAULT_TIMEZONE = "UTC"

let listedZones: ReadonlyMap<string, string> | undefined
/** The zone names the runtime lists, by lower-cased name, to give a name its registered letter case. */
const listed = (): ReadonlyMap<string, string> => {
  listedZones ??= new Map(Intl.supportedValuesOf("timeZone").map((zone) => [zone.toLowerCase(), zone]))
  return listedZones
}

/**
 * The name to store when `name` loads as an IANA zone, else undefined (spec: 400 invalid_timezone). The
 * name is kept as the user gave it (a link such as `Asia/Kolkata` is not swapped for the runtime's
 * canonical `Asia/Calcutta`); only its letter case is corrected when the runtime knows the spelling.
 */
export const loadableTimeZone = (name: string): string | undefined => {
  const trimmed = name.trim()
  if (!IANA_SHAPE.test(trimmed) || !IANAZone.isValidZone(trimmed)) return undefined
  const lower = trimmed.toLowerCase()
  const resolved = new Intl.DateTimeFormat("en-US", { timeZone: trimmed }).resolvedOptions().timeZone
  if (resolved.toLowerCase() === lower) return resolved
  return listed().get(lower) ?? trimmed
}
