import { SqlClient } from "@effect/sql"
import { SessionId, UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export const SessionRecord = Schema.Struct({
  id: SessionId,
  user_id: UserId,
  user_agent: Schema.String,
  created_ip: Schema.String,
  last_ip: Schema.String,
  created_at: Schema.DateTimeUtcFromDate,
  last_seen_at: Schema.DateTimeUtcFromDate,
})
export type SessionRecord = typeof SessionRecord.Type

/** What an authenticated request learns about its caller in one round trip. */
export const AuthenticatedRow = Schema.Struct({
  session_id: SessionId,
  user_id: UserId,
  username: Schema.String,
  is_admin: Schema.Boolean,
  previous_seen_at: Schema.DateTimeUtcFromDate,
})
export type AuthenticatedRow = typeof AuthenticatedRow.Type

const sessionColumns = "id, user_id, user_agent, created_ip, last_ip, created_at, last_seen_at"

export class SessionRepository extends Effect.Service<SessionRepository>()("@tonearm/server/SessionRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(sessionColumns)

    const insert = (input: {
      readonly userId: UserId
      readonly tokenHash: Buffer
      readonly userAgent: string
      readonly clientAddress: string
      readonly now: Date
    }) =>
      sql`
        INSERT INTO sessions (user_id, token_hash, user_agent, created_ip, last_ip, created_at, last_seen_at)
        VALUES (${input.userId}, ${input.tokenHash}, ${input.userAgent}, ${input.clientAddress},
                ${input.clientAddress}, ${input.now}, ${input.now})
        RETURNING ${columns}`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(SessionRecord)(rows[0])),
        orInternal("SessionRepository.insert"),
      )

    /**
     * The live session holding this token hash, touched: last_seen_at and last_ip move, created_ip never
     * does. Sessions idle since before `idleCutoff` no longer authenticate. A session already touched within
     * `touchedSince` from the same address is read, not written: a client loading many things at once would
     * otherwise queue every request on its session row's lock and a commit each.
     */
    const authenticate = (input: {
      readonly tokenHash: Buffer
      readonly clientAddress: string
      readonly now: Date
      readonly idleCutoff: Date
      readonly touchedSince: Date
    }) =>
      sql`
        WITH found AS (
          SELECT id, user_id, last_seen_at, last_ip FROM sessions
          WHERE token_hash = ${input.tokenHash} AND last_seen_at > ${input.idleCutoff}
        ), touched AS (
          UPDATE sessions s SET last_seen_at = ${input.now}, last_ip = ${input.clientAddress}
          FROM found
          WHERE s.id = found.id
            AND (found.last_seen_at < ${input.touchedSince} OR found.last_ip IS DISTINCT FROM ${input.clientAddress})
          RETURNING s.id
        )
        SELECT f.id AS session_id, f.user_id, u.username, u.is_admin, f.last_seen_at AS previous_seen_at
        FROM found f JOIN users u ON u.id = f.user_id`.pipe(
        Effect.flatMap(decodeFirst(AuthenticatedRow)),
        orInternal("SessionRepository.authenticate"),
      )

    const listLive = (userId: UserId, idleCutoff: Date) =>
      sql`
        SELECT ${columns} FROM sessions
        WHERE user_id = ${userId} AND last_seen_at > ${idleCutoff}
        ORDER BY last_seen_at DESC, id`.pipe(
        Effect.flatMap(decodeRows(SessionRecord)),
        orInternal("SessionRepository.listLive"),
      )

    /** Scoped by owner (spec Authentication 6): another user's id deletes nothing. */
    const deleteOwned = (userId: UserId, sessionId: SessionId) =>
      sql`DELETE FROM sessions WHERE id = ${sessionId} AND user_id = ${userId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("SessionRepository.deleteOwned"),
      )

    /** Locks the caller's session row for the rest of the transaction; false when it is gone. */
    const lockOwned = (userId: UserId, sessionId: SessionId) =>
      sql`SELECT id FROM sessions WHERE id = ${sessionId} AND user_id = ${userId} FOR UPDATE`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("SessionRepository.lockOwned"),
      )

    const deleteAllExcept = (userId: UserId, keep: SessionId) =>
      sql`DELETE FROM sessions WHERE user_id = ${userId} AND id <> ${keep} RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        orInternal("SessionRepository.deleteAllExcept"),
      )

    const deleteAll = (userId: UserId) =>
      sql`DELETE FROM sessions WHERE user_id = ${userId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        orInternal("SessionRepository.deleteAll"),
      )

    const deleteIdle = (userId: UserId, idleCutoff: Date) =>
      sql`DELETE FROM sessions WHERE user_id = ${userId} AND last_seen_at <= ${idleCutoff}`.pipe(
        Effect.asVoid,
        orInternal("SessionRepository.deleteIdle"),
      )

    return {
      insert,
      authenticate,
      listLive,
      deleteOwned,
      lockOwned,
      deleteAllExcept,
      deleteAll,
      deleteIdle,
    } as const
  }),
}) {}
