import { SqlClient } from "@effect/sql"
import { Conflict, UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { isUniqueViolation, orInternal, violatedConstraint } from "../db/sqlErrors.js"

/** A user as stored, secrets included: never leaves the accounts folder. */
export const UserRecord = Schema.Struct({
  id: UserId,
  username: Schema.String,
  display_name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  password_hash: Schema.String,
  is_admin: Schema.Boolean,
  timezone: Schema.String,
  timezone_updated_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  debug_mode_enabled: Schema.Boolean,
  created_at: Schema.DateTimeUtcFromDate,
})
export type UserRecord = typeof UserRecord.Type

export interface NewUser {
  readonly username: string
  readonly passwordHash: string
  readonly email: string | null
  readonly displayName: string | null
  readonly isAdmin: boolean
}

const conflictFrom = (error: unknown) =>
  violatedConstraint(error) === "users_email_key"
    ? new Conflict({ message: "email is already in use", reason: "email_taken" })
    : new Conflict({ message: "username is already taken", reason: "username_taken" })

const count = (n: ReadonlyArray<{ n: number }>) => n[0]?.n ?? 0

export class UserRepository extends Effect.Service<UserRepository>()("@tonearm/server/UserRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const one = decodeFirst(UserRecord)

    const insert = (user: NewUser, now: Date) =>
      sql`
        INSERT INTO users (username, display_name, email, password_hash, is_admin, created_at, updated_at)
        VALUES (${user.username}, ${user.displayName}, ${user.email}, ${user.passwordHash}, ${user.isAdmin}, ${now}, ${now})
        RETURNING *`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(UserRecord)(rows[0])),
        Effect.catchIf(isUniqueViolation, (error) => Effect.fail(conflictFrom(error))),
        orInternal("UserRepository.insert"),
      )

    /** Serialises sign-ups inside a transaction so exactly one first account becomes admin. */
    const lockSignups = sql`SELECT pg_advisory_xact_lock(hashtext('tonearm.signup'))`.pipe(
      Effect.asVoid,
      orInternal("UserRepository.lockSignups"),
    )

    const countUsers = sql<{ n: number }>`SELECT count(*)::int AS n FROM users`.pipe(
      Effect.map(count),
      orInternal("UserRepository.countUsers"),
    )

    const countAdmins = sql<{ n: number }>`SELECT count(*)::int AS n FROM users WHERE is_admin`.pipe(
      Effect.map(count),
      orInternal("UserRepository.countAdmins"),
    )

    const findById = (id: UserId) =>
      sql`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.flatMap(one), orInternal("UserRepository.findById"))

    const findByUsername = (name: string) =>
      sql`SELECT * FROM users WHERE lower(username) = lower(${name})`.pipe(
        Effect.flatMap(one),
        orInternal("UserRepository.findByUsername"),
      )

    /** A username match wins over an email match. */
    const findByUsernameOrEmail = (value: string) =>
      sql`
        SELECT * FROM users WHERE lower(username) = lower(${value}) OR lower(email) = lower(${value})
        ORDER BY (lower(username) = lower(${value})) DESC LIMIT 1`.pipe(
        Effect.flatMap(one),
        orInternal("UserRepository.findByUsernameOrEmail"),
      )

    const list = sql`SELECT * FROM users ORDER BY lower(username)`.pipe(
      Effect.flatMap(decodeRows(UserRecord)),
      orInternal("UserRepository.list"),
    )

    /** `undefined` leaves a field as it is; `null` clears it. */
    const updateProfile = (input: {
      readonly id: UserId
      readonly displayName?: string | null | undefined
      readonly email?: string | null | undefined
      readonly now: Date
    }) =>
      sql`
        UPDATE users SET
          display_name = CASE WHEN ${input.displayName !== undefined} THEN ${input.displayName ?? null}::text ELSE display_name END,
          email = CASE WHEN ${input.email !== undefined} THEN ${input.email ?? null}::text ELSE email END,
          updated_at = ${input.now}
        WHERE id = ${input.id}
        RETURNING *`.pipe(
        Effect.flatMap(one),
        Effect.catchIf(isUniqueViolation, (error) => Effect.fail(conflictFrom(error))),
        orInternal("UserRepository.updateProfile"),
      )

    const setTimezone = (id: UserId, timezone: string, now: Date) =>
      sql`UPDATE users SET timezone = ${timezone}, timezone_updated_at = ${now}, updated_at = ${now} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        orInternal("UserRepository.setTimezone"),
      )

    const setPasswordHash = (id: UserId, passwordHash: string, now: Date) =>
      sql`UPDATE users SET password_hash = ${passwordHash}, updated_at = ${now} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        orInternal("UserRepository.setPasswordHash"),
      )

    /** False when no such user. */
    const setDebugMode = (id: UserId, enabled: boolean, now: Date) =>
      sql`UPDATE users SET debug_mode_enabled = ${enabled}, updated_at = ${now} WHERE id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("UserRepository.setDebugMode"),
      )

    /** False when no such user; sessions and reset tokens go with it (ON DELETE CASCADE). */
    const remove = (id: UserId) =>
      sql`DELETE FROM users WHERE id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("UserRepository.remove"),
      )

    return {
      insert,
      lockSignups,
      countUsers,
      countAdmins,
      findById,
      findByUsername,
      findByUsernameOrEmail,
      list,
      updateProfile,
      setTimezone,
      setPasswordHash,
      setDebugMode,
      remove,
    } as const
  }),
}) {}
