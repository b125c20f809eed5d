import { Data, Effect, Either, ParseResult, Schema } from "effect"

/**
 * The four tuning scopes (spec "Tuning", contract "Tuning"): two weight profiles with the same eight
 * fields, the taste-profile builder's knobs, and the discovery knobs. Bounds and the curve ordering live
 * in the schemas, so a PATCH is validated by decoding it.
 */
const between = (min: number, max: number) => Schema.Number.pipe(Schema.finite(), Schema.between(min, max))

const Weight = between(0, 5)

/** The eight weight fields of the radio and daily_mix profiles, each in [0, 5]. */
export const WeightProfile = Schema.Struct({
  similarity_weight: Weight,
  taste_weight: Weight,
  context_time_weight: Weight,
  like_weight: Weight,
  novelty_weight: Weight,
  popularity_weight: Weight,
  recency_penalty_weight: Weight,
  skip_penalty_weight: Weight,
})
export type WeightProfile = typeof WeightProfile.Type

export const CurvePoint = Schema.Struct({ x: between(0, 1), y: between(-1, 1) })
export type CurvePoint = typeof CurvePoint.Type

/** Completion → engagement: points with x strictly increasing in [0, 1] and y in [-1, 1]. */
export const CompletionCurve = Schema.Array(CurvePoint).pipe(
  Schema.minItems(2, { message: () => "completion_curve needs at least two points" }),
  Schema.filter((points) => points.every((point, i) => i === 0 || point.x > points[i - 1]!.x), {
    message: () => "completion_curve x values must be strictly increasing",
  }),
)
export type CompletionCurve = typeof CompletionCurve.Type

const Damper = between(0, 1)

export const TasteTuning = Schema.Struct({
  half_life_days: between(1, 3650),
  completion_curve: CompletionCurve,
  enriched_tag_scale: Damper,
  era_scale: Damper,
  mood_scale: Damper,
})
export type TasteTuning = typeof TasteTuning.Type

export const DiscoveryTuning = Schema.Struct({
  snooze_days: Schema.Int.pipe(Schema.between(1, 3650)),
  tag_overlap_weight: between(0, 10),
})
export type DiscoveryTuning = typeof DiscoveryTuning.Type

export const TUNING_SCOPES = ["radio", "daily_mix", "taste", "discovery"] as const
export const TuningScope = Schema.Literal(...TUNING_SCOPES)
export type TuningScope = typeof TuningScope.Type

export const Tuning = Schema.Struct({
  radio: WeightProfile,
  daily_mix: WeightProfile,
  taste: TasteTuning,
  discovery: DiscoveryTuning,
})
export type Tuning = typeof Tuning.Type

/** The schema of one scope's values. */
export const scopeSchema = {
  radio: WeightProfile,
  daily_mix: WeightProfile,
  taste: TasteTuning,
  discovery: DiscoveryTuning,
} as const

export type ScopeValues<S extends TuningScope> = Tuning[S]

// TypeScript cannot correlate `scopeSchema[scope]` with `S`; this is the one place that says so.
const schemaOf = <S extends TuningScope>(scope: S) => scopeSchema[scope] as unknown as Schema.Schema<ScopeValues<S>>
const fieldsOf = (scope: TuningScope): ReadonlyArray<string> => Object.keys(scopeSchema[scope].fields)

/**
 * Shipped defaults. The spec fixes taste_weight (radio 1.0, daily_mix 1.5), context_time_weight 1.0, the
 * dampers 0.5, and the contract the half-life, curve, snooze_days and tag_overlap_weight; the other
 * weights are Tonearm's choices: penalties as strong as taste, likes a half, novelty and popularity light.
 */
export const SHIPPED_TUNING: Tuning = {
  radio: {
    similarity_weight: 1.0,
    taste_weight: 1.0,
    context_time_weight: 1.0,
    like_weight: 0.5,
    novelty_weight: 0.3,
    popularity_weight: 0.2,
    recency_penalty_weight: 1.0,
    skip_penalty_weight: 1.0,
  },
  daily_mix: {
    similarity_weight: 1.0,
    taste_weight: 1.5,
    context_time_weight: 1.0,
    like_weight: 0.5,
    novelty_weight: 0.2,
    popularity_weight: 0.1,
    recency_penalty_weight: 1.0,
    skip_penalty_weight: 1.0,
  },
  taste: {
    half_life_days: 45,
    completion_curve: [
      { x: 0, y: -1 },
      { x: 0.25, y: -0.4 },
      { x: 0.6, y: 0.3 },
      { x: 0.9, y: 0.9 },
      { x: 1, y: 1 },
    ],
    enriched_tag_scale: 0.5,
    era_scale: 0.5,
    mood_scale: 0.5,
  },
  discovery: { snooze_days: 90, tag_overlap_weight: 1.0 },
}

/** A PATCH or a stored row that does not decode: unknown field, out of bounds, or an unordered curve. */
export class InvalidTuning extends Data.TaggedError("InvalidTuning")<{
  readonly scope: string
  readonly message: string
}> {}

/** One audit difference. `old` and `new` are the JSON values (a curve is its list of points). */
export interface TuningDifference {
  readonly field: string
  readonly old: unknown
  readonly new: unknown
}

// Numbers, or arrays of {x, y}: compared as the JSON they are stored as, never by object identity.
const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The differences between two values of one scope, field by field; empty when nothing changes. */
export const tuningDiff = <S extends TuningScope>(
  scope: S,
  before: ScopeValues<S>,
  after: ScopeValues<S>,
): ReadonlyArray<TuningDifference> => {
  const old: Readonly<Record<string, unknown>> = before
  const next: Readonly<Record<string, unknown>> = after
  return fieldsOf(scope)
    .filter((field) => !sameValue(old[field], next[field]))
    .map((field) => ({ field, old: old[field], new: next[field] }))
}

export interface TuningChange<S extends TuningScope> {
  readonly scope: S
  readonly current: ScopeValues<S>
  readonly diff: ReadonlyArray<TuningDifference>
}

const formatError = (error: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(error)

/**
 * Applies a PATCH's `changes` to one scope: unknown fields and out-of-bound values are refused, the
 * merged value must still decode (bounds, curve ordering), and the diff against the current values is
 * returned. An empty diff means the server writes no audit row.
 */
export const applyTuningPatch = <S extends TuningScope>(
  scope: S,
  current: ScopeValues<S>,
  changes: unknown,
): Effect.Effect<TuningChange<S>, InvalidTuning> =>
  Effect.gen(function* () {
    if (typeof changes !== "object" || changes === null || Array.isArray(changes))
      return yield* new InvalidTuning({ scope, message: "changes must be an object of fields" })
    const fields = fieldsOf(scope)
    const unknown = Object.keys(changes).filter((field) => !fields.includes(field))
    if (unknown.length > 0)
      return yield* new InvalidTuning({ scope, message: `unknown ${scope} field(s): ${unknown.join(", ")}` })
    const merged = yield* Schema.decodeUnknown(schemaOf(scope))({ ...current, ...changes }).pipe(
      Effect.mapError((error) => new InvalidTuning({ scope, message: formatError(error) })),
    )
    return { scope, current: merged, diff: tuningDiff(scope, current, merged) }
  })

/** Reset restores the shipped values; the diff says what the reset changed. */
export const resetTuning = <S extends TuningScope>(scope: S, current: ScopeValues<S>): TuningChange<S> => {
  const shipped: ScopeValues<S> = SHIPPED_TUNING[scope]
  return { scope, current: shipped, diff: tuningDiff(scope, current, shipped) }
}

/**
 * A stored scope row as current values: fields the row lacks (added in a later release) take their
 * shipped value and fields no longer known are ignored, so re-seeding at boot never overwrites a tuned
 * field. A row that no longer decodes is reported rather than guessed at.
 */
export const tuningFromStored = <S extends TuningScope>(
  scope: S,
  stored: unknown,
): Either.Either<ScopeValues<S>, InvalidTuning> => {
  const fields = fieldsOf(scope)
  const known =
    typeof stored === "object" && stored !== null
      ? Object.fromEntries(Object.entries(stored).filter(([field]) => fields.includes(field)))
      : {}
  return Schema.decodeUnknownEither(schemaOf(scope))({ ...SHIPPED_TUNING[scope], ...known }).pipe(
    Either.mapLeft((error) => new InvalidTuning({ scope, message: formatError(error) })),
  )
}

/** The GET view: current and shipped values for every scope. */
export const tuningView = (current: Tuning) => ({
  scopes: {
    radio: { current: current.radio, shipped: SHIPPED_TUNING.radio },
    daily_mix: { current: current.daily_mix, shipped: SHIPPED_TUNING.daily_mix },
    taste: { current: current.taste, shipped: SHIPPED_TUNING.taste },
    discovery: { current: current.discovery, shipped: SHIPPED_TUNING.discovery },
  },
})

/** Piecewise-linear completion curve; outside its x range it holds the end values. */
export const completionCurveAt = (curve: CompletionCurve, completion: number): number => {
  const first = curve[0]!
  if (completion <= first.x) return first.y
  for (let i = 1; i < curve.length; i++) {
    const right = curve[i]!
    if (completion <= right.x) {
      const left = curve[i - 1]!
      return left.y + ((completion - left.x) / (right.x - left.x)) * (right.y - left.y)
    }
  }
  return curve[curve.length - 1]!.y
}

/** PATCH /api/admin/recommendation-tuning: changed fields of one scope (validated by `applyTuningPatch`). */
export const TuningPatchRequest = Schema.Struct({
  scope: TuningScope,
  changes: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
})

export const TuningResetRequest = Schema.Struct({ scope: TuningScope })

const scopeView = <A, I>(values: Schema.Schema<A, I>) => Schema.Struct({ current: values, shipped: values })

/** GET: current and shipped values of every scope. */
export class TuningView extends Schema.Class<TuningView>("TuningView")({
  scopes: Schema.Struct({
    radio: scopeView(WeightProfile),
    daily_mix: scopeView(WeightProfile),
    taste: scopeView(TasteTuning),
    discovery: scopeView(DiscoveryTuning),
  }),
}) {}

/** PATCH and reset answer the one scope they touched. */
export const TuningScopeView = Schema.Union(
  Schema.Struct({ scope: Schema.Literal("radio"), ...scopeView(WeightProfile).fields }),
  Schema.Struct({ scope: Schema.Literal("daily_mix"), ...scopeView(WeightProfile).fields }),
  Schema.Struct({ scope: Schema.Literal("taste"), ...scopeView(TasteTuning).fields }),
  Schema.Struct({ scope: Schema.Literal("discovery"), ...scopeView(DiscoveryTuning).fields }),
)
export type TuningScopeView = typeof TuningScopeView.Type

export const TuningDifferenceRow = Schema.Struct({ field: Schema.String, old: Schema.Unknown, new: Schema.Unknown })

/** One audit row per change that changed something. `changed_by` is null when the admin was deleted since. */
export class TuningAuditRow extends Schema.Class<TuningAuditRow>("TuningAuditRow")({
  id: Schema.String,
  scope: TuningScope,
  changed_by: Schema.NullOr(Schema.String),
  changed_at: Schema.DateTimeUtc,
  diff: Schema.Array(TuningDifferenceRow),
}) {}
