import { type CurvePoint, TUNING_SCOPES, type TuningScope } from "@tonearm/core"
import { Data, DateTime, Effect, Either } from "effect"
import type { RemoteFlags } from "../flags.js"
import { asAdmin, printRows } from "../remote.js"
import { runCommand } from "../run.js"

export class InvalidArguments extends Data.TaggedError("InvalidArguments")<{ readonly message: string }> {}

const isScope = (scope: string): scope is TuningScope => (TUNING_SCOPES as ReadonlyArray<string>).includes(scope)

const scopeOf = (scope: string): Either.Either<TuningScope, InvalidArguments> =>
  isScope(scope)
    ? Either.right(scope)
    : Either.left(new InvalidArguments({ message: `unknown scope ${scope}: one of ${TUNING_SCOPES.join(", ")}` }))

/** `0:-1,0.25:-0.4,…` (x:y pairs) or a JSON list of {x, y}. */
export const parseCurve = (text: string): Either.Either<unknown, InvalidArguments> => {
  const trimmed = text.trim()
  if (trimmed.startsWith("[")) {
    try {
      return Either.right(JSON.parse(trimmed))
    } catch {
      return Either.left(new InvalidArguments({ message: `completion_curve is not valid JSON: ${trimmed}` }))
    }
  }
  const points: Array<CurvePoint> = []
  for (const pair of trimmed.split(",")) {
    const [x, y, ...rest] = pair.split(":").map((part) => part.trim())
    const point = { x: Number(x), y: Number(y) }
    if (
      rest.length > 0 ||
      x === undefined ||
      y === undefined ||
      x === "" ||
      y === "" ||
      Number.isNaN(point.x + point.y)
    )
      return Either.left(
        new InvalidArguments({ message: `completion_curve point "${pair}" is not x:y (for example 0.25:-0.4)` }),
      )
    points.push(point)
  }
  return Either.right(points)
}

/** A value as typed: a number when it reads as one, JSON for lists and objects, else the text (the server judges). */
const parseValue = (field: string, text: string): Either.Either<unknown, InvalidArguments> => {
  if (field === "completion_curve") return parseCurve(text)
  const trimmed = text.trim()
  if (trimmed !== "" && !Number.isNaN(Number(trimmed))) return Either.right(Number(trimmed))
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    try {
      return Either.right(JSON.parse(trimmed))
    } catch {
      // fall through: sent as text, refused by the server with its message
    }
  }
  return Either.right(text)
}

/** `FIELD=VALUE …` as the PATCH's `changes`. */
export const parseAssignments = (
  assignments: ReadonlyArray<string>,
): Either.Either<Record<string, unknown>, InvalidArguments> => {
  const changes: Record<string, unknown> = {}
  for (const assignment of assignments) {
    const at = assignment.indexOf("=")
    if (at <= 0)
      return Either.left(
        new InvalidArguments({ message: `"${assignment}" is not FIELD=VALUE (for example taste_weight=1.2)` }),
      )
    const field = assignment.slice(0, at).trim()
    const value = parseValue(field, assignment.slice(at + 1))
    if (Either.isLeft(value)) return Either.left(value.left)
    changes[field] = value.right
  }
  return Either.right(changes)
}

const isCurve = (value: unknown): value is ReadonlyArray<CurvePoint> =>
  Array.isArray(value) && value.every((point) => typeof point === "object" && point !== null && "x" in point)

/** How a value reads in a table: a curve as its x:y pairs. */
export const formatValue = (value: unknown): string =>
  isCurve(value)
    ? value.map((point) => `${point.x}:${point.y}`).join(",")
    : typeof value === "string"
      ? value
      : JSON.stringify(value)

const fieldRows = (scope: string, values: { readonly current: object; readonly shipped: object }) => {
  const current = values.current as Record<string, unknown>
  const shipped = values.shipped as Record<string, unknown>
  return Object.keys(shipped).map((field) => ({
    scope,
    field,
    current: formatValue(current[field]),
    shipped: formatValue(shipped[field]),
    tuned: formatValue(current[field]) === formatValue(shipped[field]) ? "" : "*",
  }))
}

export const getTuning = (scope: string | undefined, flags: RemoteFlags) =>
  runCommand(
    Effect.gen(function* () {
      const only = scope === undefined ? undefined : yield* scopeOf(scope)
      const view = yield* asAdmin(flags, ({ client }) => client.tuning.get())
      const scopes = only === undefined ? TUNING_SCOPES : [only]
      yield* printRows(
        flags,
        only === undefined ? view : { scope: only, ...view.scopes[only] },
        scopes.flatMap((name) => fieldRows(name, view.scopes[name])),
      )
    }),
  )

export const setTuning = (scope: string, assignments: ReadonlyArray<string>, flags: RemoteFlags) =>
  runCommand(
    Effect.gen(function* () {
      const target = yield* scopeOf(scope)
      const changes = yield* parseAssignments(assignments)
      const answer = yield* asAdmin(flags, ({ client }) => client.tuning.patch({ payload: { scope: target, changes } }))
      yield* printRows(flags, answer, fieldRows(answer.scope, answer))
    }),
  )

export const resetTuning = (scope: string, flags: RemoteFlags) =>
  runCommand(
    Effect.gen(function* () {
      const target = yield* scopeOf(scope)
      const answer = yield* asAdmin(flags, ({ client }) => client.tuning.reset({ payload: { scope: target } }))
      yield* printRows(flags, answer, fieldRows(answer.scope, answer))
    }),
  )

export const tuningAudit = (flags: RemoteFlags) =>
  runCommand(
    Effect.gen(function* () {
      const rows = yield* asAdmin(flags, ({ client }) => client.tuning.audit())
      yield* printRows(
        flags,
        rows,
        rows.map((row) => ({
          changed_at: DateTime.formatIso(row.changed_at),
          scope: row.scope,
          changed_by: row.changed_by,
          changes: row.diff
            .map((difference) => `${difference.field} ${formatValue(difference.old)} -> ${formatValue(difference.new)}`)
            .join("; "),
          id: row.id,
        })),
      )
    }),
  )
