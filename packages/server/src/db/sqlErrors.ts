import { SqlError } from "@effect/sql/SqlError"
import { Internal } from "@tonearm/core"
import { Effect, ParseResult } from "effect"

/** PostgreSQL's unique_violation. */
export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof SqlError && (error.cause as { code?: unknown } | undefined)?.code === "23505"

/** The constraint a unique violation hit, when PostgreSQL names it. */
export const violatedConstraint = (error: unknown): string | undefined =>
  error instanceof SqlError ? (error.cause as { constraint?: string } | undefined)?.constraint : undefined

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
      (error) =>
        Effect.logError(`${operation} failed`, error).pipe(
          Effect.zipRight(Effect.fail(new Internal({ message: "internal error" }))),
        ),
    ) as Effect.Effect<A, Exclude<E, SqlError | ParseResult.ParseError> | Internal, R>
