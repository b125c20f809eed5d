import { HttpApiBuilder, HttpApp, HttpMiddleware, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { isHttps } from "./connection.js"

/**
 * The web player's policy (issue 29 item 5): its own scripts only (no inline script, no eval), its own styles,
 * images from anywhere over HTTPS (providers' artist images and covers), audio from itself or a blob, requests
 * and the event stream to itself, never framed (clickjacking on delete and sign-out), no plugins, no <base>.
 */
export const WEB_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ")

/** Half a year: what HSTS preload lists and Mozilla's guidelines ask at least for (no subdomains: not ours). */
export const HSTS = "max-age=15552000"

/** Swagger UI at /docs runs its own inline bootstrap: it keeps every other header, and a policy that allows that. */
const DOCS_POLICY = "frame-ancestors 'none'; object-src 'none'; base-uri 'none'"

/**
 * Headers on every answer, errors included (a pre-response handler runs after the error envelope made its
 * response): `nosniff`, no framing, a same-origin referrer (stream addresses carry a token in the query), the
 * content security policy on HTML pages, and HSTS when the client came over HTTPS (a TLS socket or a proxy saying
 * so: a forged X-Forwarded-Proto only changes the forger's own answer).
 */
export const securityHeaders = HttpMiddleware.make((app) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((request, response) => {
      // The platform keeps a body's type on the body (`html`, `uint8Array`), not in the headers.
      const type = response.headers["content-type"] ?? ("contentType" in response.body ? response.body.contentType : "")
      const html = type.startsWith("text/html")
      const docs = request.url.startsWith("/docs")
      const headers: Record<string, string> = { "x-content-type-options": "nosniff", "x-frame-options": "DENY" }
      // A response with a policy of its own (the password pages: no referrer at all, their own CSP) keeps it.
      if (response.headers["referrer-policy"] === undefined) headers["referrer-policy"] = "same-origin"
      if (html && response.headers["content-security-policy"] === undefined)
        headers["content-security-policy"] = docs ? DOCS_POLICY : WEB_CONTENT_SECURITY_POLICY
      if (isHttps(request)) headers["strict-transport-security"] = HSTS
      return Effect.succeed(HttpServerResponse.setHeaders(response, headers))
    }),
    app,
  ),
)

export const SecurityHeadersLive = HttpApiBuilder.middleware(securityHeaders)
