import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"
import { MetricsFamily, PickKind } from "./kinds.js"

/** `days` defaults to 30 and is clamped to 365 (contract: caps are clamps). */
export const MetricsQuery = Schema.Struct({ days: Schema.optional(IntFromQuery.pipe(Schema.positive())) })

const Rate = Schema.Number
const OutcomeFields = {
  plays: Schema.Int,
  skips: Schema.Int,
  skip_rate: Rate,
  avg_completion: Schema.NullOr(Rate),
}

export const MetricsBreakdownRow = Schema.Struct({ pick_kind: Schema.NullOr(PickKind), ...OutcomeFields })

/** Per-source play outcomes (contract "Discover and system playlists": metrics row). */
export const MetricsFamilyRow = Schema.Struct({
  family: MetricsFamily,
  ...OutcomeFields,
  delta_skip_rate_pp: Schema.NullOr(Schema.Number),
  delta_completion_pp: Schema.NullOr(Schema.Number),
  low_confidence: Schema.Boolean,
  breakdown: Schema.Array(MetricsBreakdownRow),
})

export const MetricsBaselineRow = Schema.Struct({ ...OutcomeFields, low_confidence: Schema.Boolean })

export class RecommendationMetrics extends Schema.Class<RecommendationMetrics>("RecommendationMetrics")({
  window_days: Schema.Int,
  baseline: MetricsBaselineRow,
  rows: Schema.Array(MetricsFamilyRow),
}) {}
