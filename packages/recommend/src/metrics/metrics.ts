import type { MetricsFamily, PickKind } from "@tonearm/core"
import { clampLimit, familyOfSource, METRICS_FAMILIES, PICK_KIND_FAMILIES, PICK_KINDS } from "@tonearm/core"

/** Limits: the metrics window defaults to 30 days, at most 365 (a larger request is served at 365). */
export const METRICS_DEFAULT_DAYS = 30
export const METRICS_MAX_DAYS = 365
/** A family with fewer plays than this is flagged low confidence (still returned). */
export const LOW_CONFIDENCE_PLAYS = 20

export const metricsWindowDays = (days?: number | null): number =>
  clampLimit(days, METRICS_DEFAULT_DAYS, METRICS_MAX_DAYS)

/** One play inside the window, as the server selects it. */
export interface MetricsPlayRow {
  readonly source: string | null
  readonly pick_kind: PickKind | null
  readonly skipped: boolean
  /** played / length in [0, 1]; null when the play has no completion value */
  readonly completion: number | null
}

export interface Outcome {
  readonly plays: number
  readonly skips: number
  /** skips / plays in [0, 1]; 0 with no plays */
  readonly skip_rate: number
  /** mean completion over the plays that have one; null when none has */
  readonly avg_completion: number | null
}

export interface BreakdownRow extends Outcome {
  readonly pick_kind: PickKind | null
}

export interface BaselineRow extends Outcome {
  readonly low_confidence: boolean
}

export interface FamilyRow extends Outcome {
  readonly family: MetricsFamily
  /** family − baseline, in percentage points; null when either side has no plays */
  readonly delta_skip_rate_pp: number | null
  readonly delta_completion_pp: number | null
  readonly low_confidence: boolean
  /** per pick kind (null = earlier unattributed plays); empty for families without pick kinds */
  readonly breakdown: ReadonlyArray<BreakdownRow>
}

export interface RecommendationMetrics {
  readonly window_days: number
  readonly baseline: BaselineRow
  readonly rows: ReadonlyArray<FamilyRow>
}

interface Tally {
  plays: number
  skips: number
  completionSum: number
  completionCount: number
}

const emptyTally = (): Tally => ({ plays: 0, skips: 0, completionSum: 0, completionCount: 0 })

const add = (into: Tally, from: Tally) => {
  into.plays += from.plays
  into.skips += from.skips
  into.completionSum += from.completionSum
  into.completionCount += from.completionCount
}

/** Completion is averaged over the plays that have a value, i.e. weighted by that count when summed. */
const outcomeOf = (tally: Tally): Outcome => ({
  plays: tally.plays,
  skips: tally.skips,
  skip_rate: tally.plays > 0 ? tally.skips / tally.plays : 0,
  avg_completion: tally.completionCount > 0 ? tally.completionSum / tally.completionCount : null,
})

/**
 * The per-source play outcomes (spec "Metrics rules"): plays grouped into the four families, with no-source
 * plays as the baseline (the control); each family's skip-rate and completion deltas against it in
 * percentage points; low confidence under 20 plays; and for families whose sources stamp pick kinds, a
 * breakdown per kind plus a row for earlier unattributed plays, whose sums are the parent row. Rows
 * always list all four families in a fixed order. Plays with an unrecognised source are left out.
 */
export const rollUpMetrics = (rows: Iterable<MetricsPlayRow>, windowDays: number): RecommendationMetrics => {
  const baseline = emptyTally()
  const byFamily = new Map<MetricsFamily, Map<PickKind | null, Tally>>(
    METRICS_FAMILIES.map((family) => [family, new Map()]),
  )
  for (const row of rows) {
    const family = familyOfSource(row.source)
    if (family === undefined) continue
    let tally: Tally
    if (family === "baseline") tally = baseline
    else {
      const kinds = byFamily.get(family)!
      const kind = PICK_KIND_FAMILIES.has(family) ? row.pick_kind : null
      tally = kinds.get(kind) ?? emptyTally()
      kinds.set(kind, tally)
    }
    tally.plays++
    if (row.skipped) tally.skips++
    if (row.completion !== null && Number.isFinite(row.completion)) {
      tally.completionSum += Math.min(1, Math.max(0, row.completion))
      tally.completionCount++
    }
  }
  const base = outcomeOf(baseline)
  const familyRows = METRICS_FAMILIES.map((family): FamilyRow => {
    const kinds = byFamily.get(family)!
    const total = emptyTally()
    for (const tally of kinds.values()) add(total, tally)
    const outcome = outcomeOf(total)
    const breakdown: Array<BreakdownRow> = PICK_KIND_FAMILIES.has(family)
      ? [...PICK_KINDS, null].flatMap((kind) => {
          const tally = kinds.get(kind)
          return tally === undefined || tally.plays === 0 ? [] : [{ pick_kind: kind, ...outcomeOf(tally) }]
        })
      : []
    return {
      family,
      ...outcome,
      delta_skip_rate_pp: outcome.plays > 0 && base.plays > 0 ? (outcome.skip_rate - base.skip_rate) * 100 : null,
      delta_completion_pp:
        outcome.avg_completion !== null && base.avg_completion !== null
          ? (outcome.avg_completion - base.avg_completion) * 100
          : null,
      low_confidence: outcome.plays < LOW_CONFIDENCE_PLAYS,
      breakdown,
    }
  })
  return {
    window_days: windowDays,
    baseline: { ...base, low_confidence: base.plays < LOW_CONFIDENCE_PLAYS },
    rows: familyRows,
  }
}
