import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { AuthResult, CurrentSession, OptionalSession, RegisterResult, SignInOptions, TonearmApi } from "@tonearm/core"
import { Effect, Option } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { isHttps } from "../http/connection.js"
import {
  clearSessionCookie,
  clearSignedOut,
  markSignedOut,
  SIGNED_OUT_COOKIE,
  setSessionCookie,
} from "../http/cookies.js"
import { currentClient } from "../settings/index.js"
import { AccountsService } from "./AccountsService.js"
import { OIDC_PENDING_MS, OidcService } from "./OidcService.js"
import { proxyUser } from "./proxyAuth.js"
import { SessionsService } from "./SessionsService.js"

/**
 * Marks a browser whose session came from OpenID Connect, so its sign-out also visits the provider's logout
 * (`/api/auth/oidc/logout`). Not HttpOnly: the web player reads it; it holds no secret, only "1".
 */
export const OIDC_SESSION_COOKIE = "tonearm_oidc_session"

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/**
 * A failed OpenID Connect callback seen by a browser (it navigated here from the provider): a page saying what
 * went wrong and leading back to sign-in, with the error's status, instead of a JSON envelope. No script.
 */
const callbackErrorPage = (status: number, provider: string, message: string) =>
  HttpServerResponse.html(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in failed · Tonearm</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}</style></head>
<body><h1>Sign-in with ${escapeHtml(provider)} failed</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="/">Back to sign-in</a></p></body></html>`).pipe(
    HttpServerResponse.setStatus(status),
    HttpServerResponse.setHeaders({
      "cache-control": "no-store",
      "content-security-policy":
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
      "referrer-policy": "no-referrer",
    }),
  )

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
          yield* clearSignedOut
          return new AuthResult(result)
        }),
      )
      .handle("signInOptions", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const proxied = yield* Effect.option(proxyUser(request))
          return new SignInOptions({
            oidc: oidc.providerName,
            proxy: Option.match(proxied, {
              onNone: () => null,
              onSome: (username) => ({ username, automatic: request.cookies[SIGNED_OUT_COOKIE] === undefined }),
            }),
          })
        }),
      )
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
          const finished = yield* oidc
            .finish(query, request.cookies[OIDC_STATE_COOKIE], yield* currentClient)
            .pipe(Effect.either)
          if (finished._tag === "Left") {
            const error = finished.left
            // A browser on its way back from the provider gets a page; an API client keeps the JSON envelope.
            const browser = (request.headers.accept ?? "").includes("text/html")
            if (!browser || error._tag === "NotFound") return yield* error
            return callbackErrorPage(
              error._tag === "InvalidRequest" ? 400 : 503,
              oidc.providerName?.name ?? "OpenID Connect",
              error.message,
            ).pipe(HttpServerResponse.expireCookie(OIDC_STATE_COOKIE, oidcCookie(request)))
          }
          yield* setSessionCookie(finished.right.token)
          yield* clearSignedOut
          return HttpServerResponse.redirect("/", { status: 302 }).pipe(
            HttpServerResponse.expireCookie(OIDC_STATE_COOKIE, oidcCookie(request)),
            HttpServerResponse.unsafeSetCookie(OIDC_SESSION_COOKIE, "1", {
              sameSite: "lax",
              path: "/",
              secure: isHttps(request),
            }),
          )
        }),
      )
      .handle("oidcLogout", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const back = `${(yield* TonearmConfig).publicUrl}/`
          const target = yield* oidc.endSessionUrl(back)
          return HttpServerResponse.redirect(
            Option.getOrElse(target, () => "/"),
            { status: 302 },
          ).pipe(
            HttpServerResponse.expireCookie(OIDC_SESSION_COOKIE, {
              sameSite: "lax",
              path: "/",
              secure: isHttps(request),
            }),
          )
        }),
      )
      .handle("logout", () =>
        Effect.gen(function* () {
          const { sessionId, user } = yield* CurrentSession
          yield* sessions.revoke(user.id, sessionId).pipe(Effect.catchTag("NotFound", () => Effect.void))
          yield* clearSessionCookie
          // A reverse proxy's sign-in then waits for a click instead of signing straight back in.
          yield* markSignedOut
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
