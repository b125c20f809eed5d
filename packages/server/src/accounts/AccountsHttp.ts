import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { AuthResult, CurrentSession, OptionalSession, RegisterResult, SignInOptions, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { isHttps } from "../http/connection.js"
import { clearSessionCookie, setSessionCookie } from "../http/cookies.js"
import { currentClient } from "../settings/index.js"
import { AccountsService } from "./AccountsService.js"
import { OIDC_PENDING_MS, OidcService } from "./OidcService.js"
import { proxyUser } from "./proxyAuth.js"
import { SessionsService } from "./SessionsService.js"

/** The browser's half of an OpenID Connect attempt: its state, for the callback to compare. */
const OIDC_STATE_COOKIE = "tonearm_oidc_state"
const oidcCookie = (request: HttpServerRequest.HttpServerRequest) =>
  ({
    httpOnly: true,
    sameSite: "lax",
    path: "/api/auth/oidc",
    secure: isHttps(request),
  }) as const

export const AuthHttpLive = HttpApiBuilder.group(TonearmApi, "auth", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* AccountsService
    const oidc = yield* OidcService
    const sessions = yield* SessionsService
    return handlers
      .handle("register", ({ payload }) =>
        Effect.gen(function* () {
          const result = yield* accounts.register(payload, yield* OptionalSession, yield* currentClient)
          if (result.token !== undefined) yield* setSessionCookie(result.token)
          return new RegisterResult(result)
        }),
      )
      .handle("login", ({ payload }) =>
        Effect.gen(function* () {
          const result = yield* accounts.login(payload, yield* currentClient)
          yield* setSessionCookie(result.token)
          return new AuthResult(result)
        }),
      )
      .handle("proxyLogin", () =>
        Effect.gen(function* () {
          const username = yield* proxyUser(yield* HttpServerRequest.HttpServerRequest)
          const result = yield* accounts.proxySignIn(username, yield* currentClient)
          yield* setSessionCookie(result.token)
          return new AuthResult(result)
        }),
      )
      .handle("signInOptions", () => Effect.succeed(new SignInOptions({ oidc: oidc.providerName })))
      .handle("oidcStart", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const { url, state } = yield* oidc.start
          return HttpServerResponse.redirect(url, { status: 302 }).pipe(
            HttpServerResponse.unsafeSetCookie(OIDC_STATE_COOKIE, state, {
              ...oidcCookie(request),
              maxAge: `${OIDC_PENDING_MS / 1000} seconds`,
            }),
          )
        }),
      )
      .handle("oidcCallback", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const query = new URL(request.url, "http://localhost").search
          const result = yield* oidc.finish(query, request.cookies[OIDC_STATE_COOKIE], yield* currentClient)
          yield* setSessionCookie(result.token)
          return HttpServerResponse.redirect("/", { status: 302 }).pipe(
            HttpServerResponse.expireCookie(OIDC_STATE_COOKIE, oidcCookie(request)),
          )
        }),
      )
      .handle("logout", () =>
        Effect.gen(function* () {
          const { sessionId, user } = yield* CurrentSession
          yield* sessions.revoke(user.id, sessionId).pipe(Effect.catchTag("NotFound", () => Effect.void))
          yield* clearSessionCookie
        }),
      )
      .handle("forgotPassword", ({ payload }) =>
        Effect.flatMap(currentClient, (client) => accounts.forgotPassword(payload.username_or_email, client)),
      )
      .handle("resetPassword", ({ payload }) => accounts.resetPassword(payload.token, payload.password))
  }),
)

export const MeHttpLive = HttpApiBuilder.group(TonearmApi, "me", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* AccountsService
    const sessions = yield* SessionsService
    return handlers
      .handle("get", () => Effect.flatMap(CurrentSession, ({ user }) => accounts.me(user.id)))
      .handle("updateProfile", ({ payload }) =>
        Effect.flatMap(CurrentSession, ({ user }) => accounts.updateProfile(user.id, payload)),
      )
      .handle("setTimezone", ({ payload }) =>
        Effect.flatMap(CurrentSession, ({ user }) => accounts.setTimezone(user.id, payload.timezone)),
      )
      .handle("changePassword", ({ payload }) =>
        Effect.flatMap(CurrentSession, ({ user, sessionId }) =>
          accounts.changePassword(user.id, sessionId, payload.current_password, payload.new_password),
        ),
      )
      .handle("listSessions", () =>
        Effect.flatMap(CurrentSession, ({ user, sessionId }) => sessions.list(user.id, sessionId)),
      )
      .handle("deleteSession", ({ path }) =>
        Effect.flatMap(CurrentSession, ({ user }) => sessions.revoke(user.id, path.id)),
      )
      .handle("logoutOthers", () =>
        Effect.flatMap(CurrentSession, ({ user, sessionId }) =>
          Effect.map(sessions.logoutOthers(user.id, sessionId), (revoked) => ({ revoked })),
        ),
      )
  }),
)

export const AdminUsersHttpLive = HttpApiBuilder.group(TonearmApi, "adminUsers", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* AccountsService
    return handlers
      .handle("list", () => accounts.listUsers())
      .handle("create", ({ payload }) => Effect.map(accounts.createUser(payload), (user) => ({ user })))
      .handle("delete", ({ path }) => accounts.deleteUser(path.id))
      .handle("setDebugMode", ({ path, payload }) => accounts.setDebugMode(path.id, payload.enabled))
      .handle("resetLink", ({ path }) => accounts.resetLinkFor(path.id))
  }),
)
