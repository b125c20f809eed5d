/**
 * Era buckets are decades of the album's release (spec "Library": `1990s`). Undated albums (year null or
 * 0, the contract's "undated") have no era, so the era term contributes nothing for them.
 */
export const eraOfYear = (year: number | null | undefined): string | undefined => {
  if (year === null || year === undefined || !Number.isInteger(year) || year <= 0) return undefined
  return `${Math.floor(year / 10) * 10}s`
}
