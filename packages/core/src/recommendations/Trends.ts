import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"
import { MetricsFamily } from "./kinds.js"
import { TuningScope } from "./Tuning.js"

/** `weeks` defaults to 12 and is clamped to 52 (contract: caps are clamps). */
export const TrendsQuery = Schema.Struct({ weeks: Schema.optional(IntFromQuery.pipe(Schema.positive())) })

/** One family's week: rates only, no user or track identity. */
export const TrendPoint = Schema.Struct({
  week: Schema.String,
  plays: Schema.Int,
  skip_rate: Schema.NullOr(Schema.Number),
  avg_completion: Schema.NullOr(Schema.Number),
  taste_hit_rate: Schema.NullOr(Schema.Number),
  /** share of the week's plays that were the listener's first play of the track (issue 28) */
  first_listen_share: Schema.NullOr(Schema.Number),
  /** mean over listeners of the share of pairs of tracks played from the family by different artists */
  intra_list_diversity: Schema.NullOr(Schema.Number),
})

export const TrendSeries = Schema.Struct({
  family: Schema.Union(MetricsFamily, Schema.Literal("baseline")),
  points: Schema.Array(TrendPoint),
})

/** A tuning change inside the window, so an operator can line a change in the rates up with its cause. */
export const TuningMarker = Schema.Struct({
  audit_id: Schema.String,
  scope: TuningScope,
  week: Schema.String,
  changed_at: Schema.DateTimeUtc,
  fields: Schema.Array(Schema.String),
})

/** GET /api/admin/recommendation-trends: ISO weeks (UTC), oldest first. */
export class RecommendationTrends extends Schema.Class<RecommendationTrends>("RecommendationTrends")({
  weeks: Schema.Array(Schema.String),
  from: Schema.DateTimeUtc,
  series: Schema.Array(TrendSeries),
  markers: Schema.Array(TuningMarker),
}) {}
