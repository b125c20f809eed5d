import { SqlClient } from "@effect/sql"
import {
  Conflict,
  type CurrentSessionShape,
  NotFound,
  SESSION_IDLE_DAYS,
  type SessionId,
  SessionRow,
  type UserId,
} from "@tonearm/core"
import { Effect, Option } from "effect"
import { currentDate, daysBefore } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import type { ClientInfo } from "../http/connection.js"
import { hashToken, newToken } from "./credentials.js"
import { SessionRepository } from "./SessionRepository.js"

/**
 * last_seen_at's resolution: within this of its last touch, from the same address, a request reads its session
 * without writing it (a burst of requests from one client no longer queues on the row's lock and a commit each).
 */
export const SESSION_TOUCH_INTERVAL_MS = 1_000

/** A credential that authenticated, and whether its cookie is due for a refresh. */
export interface Authenticated extends CurrentSessionShape {
  /** The session had been idle for more than a day: re-send the cookie so its Max-Age slides too. */
  readonly cookieStale: boolean
}

export class SessionsService extends Effect.Service<SessionsService>()("@tonearm/server/SessionsService", {
  effect: Effect.gen(function* () {
    const sessions = yield* SessionRepository
    const sql = yield* SqlClient.SqlClient

    /** A new session for `userId`; the token is returned once and only its hash is stored. */
    const issue = Effect.fn("SessionsService.issue")(function* (userId: UserId, client: ClientInfo) {
      const now = yield* currentDate
      yield* sessions.deleteIdle(userId, daysBefore(now, SESSION_IDLE_DAYS))
      const token = newToken()
      const session = yield* sessions.insert({
        userId,
        tokenHash: hashToken(token),
        userAgent: client.userAgent,
        clientAddress: client.clientAddress,
        now,
      })
      return { token, session }
    })

    /** Resolves a token to its live session, sliding its expiry and recording the latest address. */
    const authenticate = Effect.fn("SessionsService.authenticate")(function* (token: string, clientAddress: string) {
      if (token.length === 0 || token.length > 256) return Option.none<Authenticated>()
      const now = yield* currentDate
      const row = yield* sessions.authenticate({
        tokenHash: hashToken(token),
        clientAddress,
        now,
        idleCutoff: daysBefore(now, SESSION_IDLE_DAYS),
        touchedSince: new Date(now.getTime() - SESSION_TOUCH_INTERVAL_MS),
      })
      return Option.map(
        row,
        (found): Authenticated => ({
          sessionId: found.session_id,
          user: { id: found.user_id, username: found.username, isAdmin: found.is_admin },
          cookieStale: now.getTime() - found.previous_seen_at.epochMillis > 86_400_000,
        }),
      )
    })

    /** The caller's live sessions, the current one flagged. */
    const list = Effect.fn("SessionsService.list")(function* (userId: UserId, current: SessionId) {
      const now = yield* currentDate
      const rows = yield* sessions.listLive(userId, daysBefore(now, SESSION_IDLE_DAYS))
      return rows.map(
        (row) =>
          new SessionRow({
            id: row.id,
            user_agent: row.user_agent,
            created_ip: row.created_ip,
            last_ip: row.last_ip,
            created_at: row.created_at,
            last_seen_at: row.last_seen_at,
            current: row.id === current,
          }),
      )
    })

    /** Only the owner's own session is deleted; any other id is 404 and untouched. */
    const revoke = Effect.fn("SessionsService.revoke")(function* (userId: UserId, sessionId: SessionId) {
      if (!(yield* sessions.deleteOwned(userId, sessionId))) {
        return yield* new NotFound({ message: "no such session", resource: "session" })
      }
    })

    /** Keeps the current session, removes the rest; refuses with nothing deleted when it is unknown. */
    const logoutOthers = (userId: UserId, current: SessionId | undefined) =>
      Effect.gen(function* () {
        if (current === undefined || !(yield* sessions.lockOwned(userId, current))) {
          return yield* new Conflict({
            message: "the current session is unknown; no session was revoked",
            reason: "unknown_session",
          })
        }
        return yield* sessions.deleteAllExcept(userId, current)
      }).pipe(
        sql.withTransaction,
        orInternal("SessionsService.logoutOthers"),
        Effect.withSpan("SessionsService.logoutOthers"),
      )

    const revokeAll = (userId: UserId) => sessions.deleteAll(userId)
    const revokeAllExcept = (userId: UserId, keep: SessionId) => sessions.deleteAllExcept(userId, keep)

    return { issue, authenticate, list, revoke, logoutOthers, revokeAll, revokeAllExcept } as const
  }),
  dependencies: [SessionRepository.Default],
}) {}
