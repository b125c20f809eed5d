/**
 * Album rules (contract "Library"): the spellings of "Various Artists" (who an album is credited to is the
 * album-artist rule of credits.ts); dates become `release_date` and `year`; search keys.
 */
export const VARIOUS_ARTISTS = "Various Artists"

const VARIOUS_ALIASES = new Set(["various artists", "various", "va", "v.a.", "v/a"])

export const isVariousArtists = (name: string | null | undefined): boolean =>
  name !== null && name !== undefined && VARIOUS_ALIASES.has(name.trim().toLowerCase())

export interface ReleaseDate {
  /** YYYY-MM-DD, or null when undated. A year alone becomes the 1st of January of that year. */
  readonly releaseDate: string | null
  /** 0 when undated. */
  readonly year: number
}

const UNDATED: ReleaseDate = { releaseDate: null, year: 0 }
const pad = (value: number) => String(value).padStart(2, "0")

/** Reads `2001-03-04`, `2001-03`, `2001`, `2001-03-04T…` or a bare year number; anything else is undated. */
export const releaseDateOf = (date: string | null | undefined, year: number | null | undefined): ReleaseDate => {
  const match = date === null || date === undefined ? null : /^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/.exec(date)
  const fullYear = match ? Number(match[1]) : (year ?? 0)
  if (!Number.isInteger(fullYear) || fullYear < 1000 || fullYear > 9999) return UNDATED
  const month = match?.[2] ? Number(match[2]) : 1
  const day = match?.[3] ? Number(match[3]) : 1
  if (month < 1 || month > 12 || day < 1 || day > 31) return { releaseDate: `${fullYear}-01-01`, year: fullYear }
  return { releaseDate: `${fullYear}-${pad(month)}-${pad(day)}`, year: fullYear }
}

/** Letters that carry no combining mark to strip, folded the way people type them. */
const FOLDS: Record<string, string> = { ð: "d", đ: "d", þ: "th", æ: "ae", ø: "o", œ: "oe", ß: "ss", ł: "l", ı: "i" }

/** Lower-case, accents stripped: what search matches against (case- and accent-insensitive). */
export const searchKeyOf = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[ðđþæøœßłı]/g, (letter) => FOLDS[letter] ?? letter)
    .replace(/\s+/g, " ")
    .trim()
