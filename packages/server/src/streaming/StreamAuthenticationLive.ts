import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { StreamAuthentication, Unauthenticated, verifyStreamToken } from "@tonearm/core"
import { Clock, Effect, Layer, Option, Redacted } from "effect"
import { RequestAuthenticator } from "../accounts/index.js"
import { StreamSecret } from "./StreamSecret.js"

/**
 * Spec Authentication 3: a session (cookie or bearer) or a signed token valid for this track, with this
 * secret, before its expiry. Runs before any track lookup; expiry is judged on arrival only.
 */
export const StreamAuthenticationLive = Layer.effect(
  StreamAuthentication,
  Effect.gen(function* () {
    const authenticator = yield* RequestAuthenticator
    const secret = yield* StreamSecret
    return Effect.gen(function* () {
      // Streams are GETs (never refused as cross-site); a refused cookie would just be no session.
      if (Option.isSome(yield* Effect.orElseSucceed(authenticator.authenticate, Option.none))) return
      const request = yield* HttpServerRequest.HttpServerRequest
      const route = yield* HttpRouter.RouteContext
      const query = new URL(request.url, "http://localhost").searchParams
      const token = query.get("token")
      const exp = query.get("exp")
      const trackId = route.params.id
      if (token !== null && exp !== null && /^\d{1,12}$/.test(exp) && trackId !== undefined) {
        const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        if (verifyStreamToken({ key: Redacted.value(secret.key), trackId, exp: Number(exp), token, nowSeconds })) return
      }
      return yield* new Unauthenticated({ message: "a session or a valid stream token for this track is required" })
    })
  }),
)
