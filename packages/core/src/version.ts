/** Release label form (spec "Versioning"): v<year>.<month>.<day>. */
export const releaseLabel = (date: { readonly year: number; readonly month: number; readonly day: number }): string =>
  `v${date.year}.${date.month}.${date.day}`
