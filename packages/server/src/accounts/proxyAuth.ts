import type { HttpServerRequest } from "@effect/platform"
import { Forbidden, Username } from "@tonearm/core"
import { Effect, Either, Schema } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { connectionFacts } from "../http/connection.js"
import { TrustedProxies } from "../settings/index.js"

const decodeUsername = Schema.decodeUnknownEither(Username)

/**
 * The user a trusted reverse proxy names (issue 29): honoured only when `TONEARM_PROXY_AUTH_HEADER` is set, the
 * socket peer is in `TONEARM_TRUSTED_PROXIES`, and the header holds a valid username. Anything else is 403, so a
 * client reaching the server directly can never name itself.
 */
export const proxyUser = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function* () {
    const config = yield* TonearmConfig
    const proxies = yield* TrustedProxies
    const header = config.proxyAuthHeader
    if (header === undefined) {
      return yield* new Forbidden({ message: "sign-in by a reverse proxy is not enabled on this server" })
    }
    if (!proxies.fromListedProxy(connectionFacts(request))) {
      return yield* new Forbidden({ message: "this request did not come through a trusted proxy" })
    }
    const value = request.headers[header]
    if (value === undefined || value.trim() === "") {
      return yield* new Forbidden({ message: `the proxy named no user (${header} is empty)` })
    }
    const username = decodeUsername(value)
    if (Either.isLeft(username)) {
      return yield* new Forbidden({ message: `the proxy's ${header} is not a valid username` })
    }
    return username.right
  })
