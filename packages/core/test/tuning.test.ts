import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import {
  applyTuningPatch,
  completionCurveAt,
  resetTuning,
  SHIPPED_TUNING,
  tuningDiff,
  tuningFromStored,
  tuningView,
} from "../src/index.js"

const WEIGHT_FIELDS = [
  "similarity_weight",
  "taste_weight",
  "context_time_weight",
  "like_weight",
  "novelty_weight",
  "popularity_weight",
  "recency_penalty_weight",
  "skip_penalty_weight",
] as const

describe("tuning scopes: shipped defaults", () => {
  it("radio: eight weight fields, taste_weight 1.0 and context_time_weight 1.0", () => {
    expect(Object.keys(SHIPPED_TUNING.radio).sort()).toEqual([...WEIGHT_FIELDS].sort())
    expect(SHIPPED_TUNING.radio.taste_weight).toBe(1.0)
    expect(SHIPPED_TUNING.radio.context_time_weight).toBe(1.0)
  })

  it("daily_mix: the same eight fields, shipped taste weight 1.5 and context_time_weight 1.0", () => {
    expect(Object.keys(SHIPPED_TUNING.daily_mix).sort()).toEqual([...WEIGHT_FIELDS].sort())
    expect(SHIPPED_TUNING.daily_mix.taste_weight).toBe(1.5)
    expect(SHIPPED_TUNING.daily_mix.context_time_weight).toBe(1.0)
  })

  it("taste: half-life 45, the contract curve, dampers 0.5", () => {
    expect(SHIPPED_TUNING.taste).toEqual({
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
    })
  })

  it("discovery: snooze_days 90 (the default snooze horizon) and tag_overlap_weight 1.0", () => {
    expect(SHIPPED_TUNING.discovery).toEqual({ snooze_days: 90, tag_overlap_weight: 1.0 })
  })

  it("the GET view echoes current and shipped values for every scope", () => {
    const view = tuningView(SHIPPED_TUNING)
    expect(Object.keys(view.scopes)).toEqual(["radio", "daily_mix", "taste", "discovery"])
    expect(view.scopes.daily_mix.shipped.taste_weight).toBe(1.5)
  })
})

describe("tuning validation", () => {
  const rejects = (scope: "radio" | "taste" | "discovery", changes: unknown) =>
    Effect.gen(function* () {
      const current = SHIPPED_TUNING[scope]
      const error = yield* Effect.flip(applyTuningPatch(scope, current, changes))
      expect(error._tag).toBe("InvalidTuning")
      return error.message
    })

  it.effect("each weight is bounded to [0, 5]", () =>
    Effect.gen(function* () {
      for (const field of WEIGHT_FIELDS) {
        yield* rejects("radio", { [field]: 5.01 })
        yield* rejects("radio", { [field]: -0.01 })
        const ok = yield* applyTuningPatch("radio", SHIPPED_TUNING.radio, { [field]: 5 })
        expect(ok.current[field]).toBe(5)
      }
    }),
  )

  it.effect("taste and discovery bounds: half-life 1–3650, dampers [0,1], snooze_days 1–3650, overlap 0–10", () =>
    Effect.gen(function* () {
      yield* rejects("taste", { half_life_days: 0.5 })
      yield* rejects("taste", { half_life_days: 3651 })
      yield* rejects("taste", { enriched_tag_scale: 1.1 })
      yield* rejects("taste", { era_scale: -0.1 })
      yield* rejects("taste", { mood_scale: 2 })
      yield* rejects("discovery", { snooze_days: 0 })
      yield* rejects("discovery", { snooze_days: 3651 })
      yield* rejects("discovery", { snooze_days: 7.5 })
      yield* rejects("discovery", { tag_overlap_weight: 10.5 })
      yield* rejects("discovery", { tag_overlap_weight: Number.NaN })
    }),
  )

  it.effect("the completion curve needs x strictly increasing in [0,1] and y in [-1,1]", () =>
    Effect.gen(function* () {
      const message = yield* rejects("taste", {
        completion_curve: [
          { x: 0, y: -1 },
          { x: 0.5, y: 0 },
          { x: 0.5, y: 0.5 },
        ],
      })
      expect(message).toContain("strictly increasing")
      yield* rejects("taste", {
        completion_curve: [
          { x: 0.6, y: 0 },
          { x: 0.2, y: 1 },
        ],
      })
      yield* rejects("taste", {
        completion_curve: [
          { x: 0, y: -1.5 },
          { x: 1, y: 1 },
        ],
      })
      yield* rejects("taste", {
        completion_curve: [
          { x: 0, y: 0 },
          { x: 1.2, y: 1 },
        ],
      })
      yield* rejects("taste", { completion_curve: [{ x: 0, y: 0 }] })
    }),
  )

  it.effect("unknown fields and non-object bodies are refused", () =>
    Effect.gen(function* () {
      expect(yield* rejects("radio", { taste_wieght: 1 })).toContain("taste_wieght")
      yield* rejects("radio", [1, 2])
      yield* rejects("radio", null)
    }),
  )
})

describe("tuning diff (the audit rows)", () => {
  it.effect("a patch that changes nothing has an empty diff", () =>
    Effect.gen(function* () {
      const change = yield* applyTuningPatch("taste", SHIPPED_TUNING.taste, {
        half_life_days: 45,
        completion_curve: SHIPPED_TUNING.taste.completion_curve.map((p) => ({ ...p })),
      })
      expect(change.diff).toEqual([])
      expect((yield* applyTuningPatch("radio", SHIPPED_TUNING.radio, {})).diff).toEqual([])
    }),
  )

  it.effect("lists exactly the changed fields with old and new values", () =>
    Effect.gen(function* () {
      const change = yield* applyTuningPatch("daily_mix", SHIPPED_TUNING.daily_mix, {
        taste_weight: 2,
        context_time_weight: 1.0,
        novelty_weight: 0,
      })
      expect(change.diff).toEqual([
        { field: "taste_weight", old: 1.5, new: 2 },
        { field: "novelty_weight", old: 0.2, new: 0 },
      ])
      expect(change.current.taste_weight).toBe(2)
    }),
  )

  it("a reset diff says what the reset restored; resetting shipped values is empty", () => {
    const tuned = { ...SHIPPED_TUNING.discovery, snooze_days: 30 }
    expect(resetTuning("discovery", tuned).diff).toEqual([{ field: "snooze_days", old: 30, new: 90 }])
    expect(resetTuning("discovery", SHIPPED_TUNING.discovery).diff).toEqual([])
  })

  it.prop(
    "patching with the current values never changes anything; a real change shows only patched fields",
    [
      fc.double({ min: 0, max: 5, noNaN: true }),
      fc.constantFrom("taste_weight" as const, "like_weight" as const, "skip_penalty_weight" as const),
    ],
    ([value, field]) => {
      const same = Effect.runSync(applyTuningPatch("radio", SHIPPED_TUNING.radio, { ...SHIPPED_TUNING.radio }))
      expect(same.diff).toEqual([])
      const change = Effect.runSync(applyTuningPatch("radio", SHIPPED_TUNING.radio, { [field]: value }))
      expect(change.diff.every((d) => d.field === field)).toBe(true)
      expect(change.diff.length).toBe(value === SHIPPED_TUNING.radio[field] ? 0 : 1)
      expect(tuningDiff("radio", SHIPPED_TUNING.radio, change.current)).toEqual(change.diff)
    },
  )
})

describe("stored tuning rows", () => {
  it("fields missing from a stored row take the shipped value; tuned fields are kept", () => {
    const stored = tuningFromStored("radio", { taste_weight: 2.5, retired_field: 1 })
    expect(Either.getOrThrow(stored)).toEqual({ ...SHIPPED_TUNING.radio, taste_weight: 2.5 })
  })

  it("a stored row that no longer decodes is reported", () => {
    expect(Either.isLeft(tuningFromStored("discovery", { snooze_days: -3 }))).toBe(true)
  })
})

describe("completion curve", () => {
  it("passes through the shipped points and interpolates linearly between them", () => {
    const curve = SHIPPED_TUNING.taste.completion_curve
    expect(completionCurveAt(curve, 0)).toBe(-1)
    expect(completionCurveAt(curve, 0.25)).toBeCloseTo(-0.4, 12)
    expect(completionCurveAt(curve, 0.6)).toBeCloseTo(0.3, 12)
    expect(completionCurveAt(curve, 0.9)).toBeCloseTo(0.9, 12)
    expect(completionCurveAt(curve, 1)).toBe(1)
    expect(completionCurveAt(curve, 0.425)).toBeCloseTo(-0.05, 12)
    expect(completionCurveAt(curve, 0.75)).toBeCloseTo(0.6, 12)
  })

  it("holds its end values outside its range", () => {
    const curve = [
      { x: 0.2, y: -0.5 },
      { x: 0.8, y: 0.5 },
    ]
    expect(completionCurveAt(curve, 0)).toBe(-0.5)
    expect(completionCurveAt(curve, 1)).toBe(0.5)
  })
})
