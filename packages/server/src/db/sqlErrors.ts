import { SqlError } from "@effect/sql/SqlError"
import { Internal, InvalidRequest } from "@tonearm/core"
import { Effect, ParseResult } from "effect"

/** PostgreSQL's unique_violation. */
export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof SqlError && (error.cause as { code?: unknown } | undefined)?.code === "23505"

/** The constraint a unique violation hit, when PostgreSQL names it. */
export const violatedConstraint = (error: unknown): string | undefined =>
  error instanceof SqlError ? (error.cause as { constraint?: string } | undefined)?.constraint : undefined

/**
 * PostgreSQL's refusals of a value the boundary let through (a number beyond its column, text it cannot store, a
 * malformed value of a typed column): the client's input, so 400, never 500. Nothing was stored: the statement
 * failed, and a transaction around it rolled back.
 */
const INPUT_SQLSTATES: Record<string, string> = {
  "22003": "a number in the request is out of range",
  "22008": "a date or time in the request is out of range",
  "22021": "text in the request is not valid UTF-8 (or holds a NUL character)",
  "22P05": "text in the request holds a character that cannot be stored (NUL)",
  "22P02": "a value in the request has the wrong form",
  "54001": "the request is too complex",
}

/** What the client sent wrong, when a storage failure is PostgreSQL refusing a value (see INPUT_SQLSTATES). */
export const inputRefusal = (error: unknown): string | undefined => {
  if (!(error instanceof SqlError)) return undefined
  const code = (error.cause as { code?: unknown } | undefined)?.code
  return typeof code === "string" ? INPUT_SQLSTATES[code] : undefined
}

/**
 * Storage failures are never shown to clients: log them with the operation's name and fail with core's
 * `Internal` (500 `internal`, no SQL, no stack).
 */
export const orInternal =
  (operation: string) =>
  <A, E, R>(
    effect: Effect.Effect<A, E, R>,
  ): Effect.Effect<A, Exclude<E, SqlError | ParseResult.ParseError> | Internal, R> =>
    Effect.catchIf(
      effect,
      (error): error is Extract<E, SqlError | ParseResult.ParseError> =>
        error instanceof SqlError || ParseResult.isParseError(error),
      (error) => {
        // A refused value is the client's mistake: a defect carrying the 400 (the envelope answers it), so no
        // repository's error type has to name it.
        const refusal = inputRefusal(error)
        if (refusal !== undefined)
          return Effect.logWarning(`${operation}: ${refusal}`).pipe(
            Effect.zipRight(Effect.die(new InvalidRequest({ message: refusal }))),
          )
        return Effect.logError(`${operation} failed`, error).pipe(
          Effect.zipRight(Effect.fail(new Internal({ message: "internal error" }))),
        )
      },
    ) as Effect.Effect<A, Exclude<E, SqlError | ParseResult.ParseError> | Internal, R>
