import { SqlError } from "@effect/sql/SqlError"
import { DatabaseUnavailable, Internal, InvalidRequest } from "@tonearm/core"
import { Effect, Option, ParseResult } from "effect"

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

/** Node's network failures and PostgreSQL's "not now" codes: the database is away, not the request wrong. */
const AWAY_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
])
const AWAY_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "55000"])

/**
 * Whether a storage failure is the database being away (a refused or lost connection, a shutdown, a database not
 * accepting connections, no connection within the pool's timeout) rather than a statement's fault.
 */
export const isDatabaseAway = (error: unknown): boolean => {
  if (!(error instanceof SqlError)) return false
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const code = typeof cause?.code === "string" ? cause.code : ""
  if (AWAY_CODES.has(code) || AWAY_SQLSTATES.has(code) || code.startsWith("08")) return true
  const text = `${error.message} ${typeof cause?.message === "string" ? cause.message : ""}`
  return /Failed to acquire connection|Connection terminated|connection timeout|timeout exceeded when trying to connect|Connection timed out/i.test(
    text,
  )
}

/** What a request meets while the database is away: 503 `unavailable`, try again in a few seconds. */
export const DATABASE_AWAY = new DatabaseUnavailable({
  message: "the database is not answering: try again in a few seconds",
  retry_after_seconds: 5,
})

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
        if (isDatabaseAway(error))
          return Effect.logWarning(`${operation}: the database is not answering`).pipe(
            Effect.zipRight(Effect.die(DATABASE_AWAY)),
          )
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

/**
 * For callers that handle a refused statement themselves (the scan retries a batch folder by folder): the 400
 * defect `orInternal` raises for a value PostgreSQL refused becomes an ordinary failure again.
 */
export const refusalsAsFailures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | InvalidRequest, R> =>
  Effect.catchSomeDefect(effect, (defect) =>
    defect instanceof InvalidRequest ? Option.some(Effect.fail(defect)) : Option.none(),
  )
