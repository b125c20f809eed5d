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

/**
 * Set by an explicit sign-out (issue 29): while the browser holds it, the sign-in page does not take a reverse
 * proxy's word automatically (which would sign the user straight back in); it offers a button instead. Cleared by
 * any sign-in through the proxy. A session cookie (gone with the browser session), HttpOnly: only the server reads it.
 */
export const SIGNED_OUT_COOKIE = "tonearm_signed_out"

const signedOutOptions = (request: HttpServerRequest.HttpServerRequest) =>
  ({ httpOnly: true, sameSite: "lax", path: "/", secure: isHttps(request) }) as const

export const markSignedOut = HttpApp.appendPreResponseHandler((request, response) =>
  Effect.succeed(HttpServerResponse.unsafeSetCookie(response, SIGNED_OUT_COOKIE, "1", signedOutOptions(request))),
)

export const clearSignedOut = HttpApp.appendPreResponseHandler((request, response) =>
  Effect.succeed(
    request.cookies[SIGNED_OUT_COOKIE] === undefined
      ? response
      : HttpServerResponse.expireCookie(response, SIGNED_OUT_COOKIE, signedOutOptions(request)),
  ),
)
