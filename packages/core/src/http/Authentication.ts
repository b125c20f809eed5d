import { HttpApiMiddleware, HttpApiSecurity } from "@effect/platform"
import { Context, Schema } from "effect"
import { envelopeOf, Forbidden, Unauthenticated } from "../errors.js"
import type { SessionId, UserId } from "../ids.js"

/** Cookie name fixed by the contract. */
export const SESSION_COOKIE = "tonearm_session"

/** The signed-in caller of the current request, and the session it came with (spec Authentication 5). */
export interface SessionUser {
  readonly id: UserId
  readonly username: string
  readonly isAdmin: boolean
}
export interface CurrentSessionShape {
  readonly sessionId: SessionId
  readonly user: SessionUser
}
export class CurrentSession extends Context.Tag("@tonearm/core/CurrentSession")<
  CurrentSession,
  CurrentSessionShape
>() {}

/** Present when the request carried a valid credential; routes open to anyone use it to tell admins apart. */
export class OptionalSession extends Context.Tag("@tonearm/core/OptionalSession")<
  OptionalSession,
  CurrentSessionShape | undefined
>() {}

/** Either a `tonearm_session` cookie or `Authorization: Bearer <token>`. */
export const sessionSecurity = {
  bearer: HttpApiSecurity.bearer,
  cookie: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }),
}

/**
 * Any signed-in user; 401 `unauthenticated` otherwise, 403 `forbidden` for a state change authenticated by the
 * cookie from another site (`crossSiteRefusal`).
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  failure: Schema.Union(envelopeOf(Unauthenticated), envelopeOf(Forbidden)),
  provides: CurrentSession,
  security: sessionSecurity,
}) {}

/** A signed-in admin; 401 without a valid credential, 403 for a non-admin. */
export class AdminAuthentication extends HttpApiMiddleware.Tag<AdminAuthentication>()("AdminAuthentication", {
  failure: Schema.Union(envelopeOf(Unauthenticated), envelopeOf(Forbidden)),
  provides: CurrentSession,
  security: sessionSecurity,
}) {}

/** Never fails: provides the caller's session when the credential is valid. */
export class CallerIfAny extends HttpApiMiddleware.Tag<CallerIfAny>()("CallerIfAny", {
  provides: OptionalSession,
}) {}
