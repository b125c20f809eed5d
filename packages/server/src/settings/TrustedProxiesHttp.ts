import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { connectionFacts } from "../http/connection.js"
import { TrustedProxies } from "./TrustedProxies.js"

export const TrustedProxiesHttpLive = HttpApiBuilder.group(TonearmApi, "trustedProxies", (handlers) =>
  Effect.gen(function* () {
    const proxies = yield* TrustedProxies
    const facts = Effect.map(HttpServerRequest.HttpServerRequest, connectionFacts)
    return handlers
      .handle("get", () => Effect.flatMap(facts, proxies.describe))
      .handle("set", ({ payload }) => Effect.flatMap(facts, (connection) => proxies.setHops(payload.hops, connection)))
  }),
)
