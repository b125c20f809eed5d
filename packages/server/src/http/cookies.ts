import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SESSION_COOKIE, SESSION_IDLE_DAYS, sessionSecurity } from "@tonearm/core"
import { Duration, Effect } from "effect"
import { isHttps } from "./connection.js"

/**
 * The session cookie: HttpOnly, SameSite=Lax, Path=/, Secure only when the client reached us over HTTPS
 * (a LAN server on plain http would otherwise never get its cookie back).
 */
export const setSessionCookie = (token: string) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    HttpApiBuilder.securitySetCookie(sessionSecurity.cookie, token, {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: isHttps(request),
      maxAge: Duration.days(SESSION_IDLE_DAYS),
    }),
  )

export const clearSessionCookie = HttpApp.appendPreResponseHandler((request, response) =>
  Effect.succeed(
    HttpServerResponse.expireCookie(response, SESSION_COOKIE, {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: isHttps(request),
    }),
  ),
)
