/**
 * Caps are clamps (contract): a limit (or a window of days or weeks) above its maximum is served at the
 * maximum, never rejected; below 1 it is 1; absent or not a number, the default.
 */
export const clampLimit = (requested: number | null | undefined, fallback: number, max: number): number =>
  requested === undefined || requested === null || !Number.isFinite(requested)
    ? fallback
    : Math.min(max, Math.max(1, Math.floor(requested)))
