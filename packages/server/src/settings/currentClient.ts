import { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { type ClientInfo, connectionFacts } from "../http/connection.js"
import { TrustedProxies } from "./TrustedProxies.js"

/** The caller as a session records it; the address depends on the operator's trusted-hop setting. */
export const currentClient: Effect.Effect<ClientInfo, never, HttpServerRequest.HttpServerRequest | TrustedProxies> =
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const proxies = yield* TrustedProxies
    const connection = connectionFacts(request)
    const throttleAddresses = yield* proxies.throttleAddresses(connection)
    return {
      userAgent: (request.headers["user-agent"] ?? "").slice(0, 512),
      clientAddress: throttleAddresses[0]!,
      throttleAddresses,
    }
  })
