import { HttpServerRequest } from "@effect/platform"
import {
  AdminAuthentication,
  Authentication,
  CallerIfAny,
  crossSiteRefusal,
  Forbidden,
  type RequestOrigin,
  SESSION_COOKIE,
  Unauthenticated,
} from "@tonearm/core"
import { Effect, Layer, Option } from "effect"
import { connectionFacts } from "../http/connection.js"
import { setSessionCookie } from "../http/cookies.js"
import { TrustedProxies } from "../settings/index.js"
import { SessionsService } from "./SessionsService.js"

/** The bearer token wins when both are sent; an empty bearer falls back to the cookie. */
const credentialOf = (
  request: HttpServerRequest.HttpServerRequest,
): { token: string; via: "bearer" | "cookie" } | undefined => {
  const authorization = request.headers.authorization
  if (authorization !== undefined && /^bearer /i.test(authorization)) {
    const token = authorization.slice("bearer ".length).trim()
    if (token.length > 0) return { token, via: "bearer" }
  }
  const cookie = request.cookies[SESSION_COOKIE]
  return cookie !== undefined && cookie.length > 0 ? { token: cookie, via: "cookie" } : undefined
}

const requestOrigin = (request: HttpServerRequest.HttpServerRequest): RequestOrigin => {
  const forwardedHost = request.headers["x-forwarded-host"]?.split(",")[0]?.trim()
  return {
    method: request.method,
    secFetchSite: request.headers["sec-fetch-site"],
    origin: request.headers.origin,
    hosts: [request.headers.host, forwardedHost].filter((host): host is string => host !== undefined && host !== ""),
  }
}

/**
 * Resolves the current request's credential (bearer token, else session cookie) to its session. The auth
 * middlewares read the request themselves rather than trusting the per-scheme value: both scheme handlers
 * then agree, and an admin check can't be undone by falling through to the other scheme.
 */
export class RequestAuthenticator extends Effect.Service<RequestAuthenticator>()(
  "@tonearm/server/RequestAuthenticator",
  {
    effect: Effect.gen(function* () {
      const sessions = yield* SessionsService
      const proxies = yield* TrustedProxies
      /** The caller's session, or none; fails 403 for a cookie-authenticated state change from another site. */
      const authenticate = Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const credential = credentialOf(request)
        if (credential === undefined) return Option.none()
        if (credential.via === "cookie") {
          const refusal = crossSiteRefusal(requestOrigin(request))
          if (refusal !== undefined) return yield* Effect.fail(new Forbidden({ message: refusal }))
        }
        const clientAddress = yield* proxies.clientAddress(connectionFacts(request))
        const found = yield* sessions.authenticate(credential.token, clientAddress)
        if (Option.isSome(found) && found.value.cookieStale && credential.via === "cookie") {
          yield* setSessionCookie(credential.token)
        }
        return Option.map(found, ({ sessionId, user }) => ({ sessionId, user }))
      }).pipe(
        // A storage failure is a 500, not a 401: surface it as a defect the error envelope logs.
        Effect.catchTag("Internal", (error) => Effect.die(error)),
      )
      return { authenticate } as const
    }),
    dependencies: [SessionsService.Default, TrustedProxies.Default],
  },
) {}

const makeAuthenticate = Effect.map(RequestAuthenticator, (authenticator) => authenticator.authenticate)

const unauthenticated = new Unauthenticated({ message: "sign in first: no valid session cookie or bearer token" })

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticate = yield* makeAuthenticate
    const required = Effect.flatMap(
      authenticate,
      Option.match({ onNone: () => Effect.fail<Unauthenticated | Forbidden>(unauthenticated), onSome: Effect.succeed }),
    )
    return { bearer: () => required, cookie: () => required }
  }),
)

export const AdminAuthenticationLive = Layer.effect(
  AdminAuthentication,
  Effect.gen(function* () {
    const authenticate = yield* makeAuthenticate
    const admin = Effect.flatMap(
      authenticate,
      Option.match({
        onNone: () => Effect.fail<Unauthenticated | Forbidden>(unauthenticated),
        onSome: (session) =>
          session.user.isAdmin ? Effect.succeed(session) : Effect.fail(new Forbidden({ message: "admins only" })),
      }),
    )
    return { bearer: () => admin, cookie: () => admin }
  }),
)

export const CallerIfAnyLive = Layer.effect(
  CallerIfAny,
  // An open route: a cookie that may not be used here (another site's state change) is no session at all.
  Effect.map(makeAuthenticate, (authenticate) =>
    Effect.map(Effect.orElseSucceed(authenticate, Option.none), Option.getOrUndefined),
  ),
)

export const AuthenticationMiddlewareLive = Layer.mergeAll(AuthenticationLive, AdminAuthenticationLive, CallerIfAnyLive)
