import type { IncomingMessage } from "node:http"
import type { TLSSocket } from "node:tls"
import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { type ConnectionFacts, TrustedProxies } from "../settings/index.js"

/** The forwarded chain and socket peer of a request, as the trusted-hop model reads them. */
export const connectionFacts = (request: HttpServerRequest.HttpServerRequest): ConnectionFacts => ({
  forwardedFor: request.headers["x-forwarded-for"],
  socketPeer: Option.getOrUndefined(request.remoteAddress),
})

/** Who is calling, as recorded on a session: the user agent and the resolved client address. */
export interface ClientInfo {
  readonly userAgent: string
  readonly clientAddress: string
}

export const currentClient: Effect.Effect<ClientInfo, never, HttpServerRequest.HttpServerRequest | TrustedProxies> =
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const proxies = yield* TrustedProxies
    return {
      userAgent: (request.headers["user-agent"] ?? "").slice(0, 512),
      clientAddress: yield* proxies.clientAddress(connectionFacts(request)),
    }
  })

/** HTTPS as the client sees it: a TLS socket, or a proxy saying so in X-Forwarded-Proto. */
export const isHttps = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const forwarded = request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase()
  if (forwarded !== undefined && forwarded !== "") return forwarded === "https"
  const source = request.source as Partial<IncomingMessage> | undefined
  return (source?.socket as TLSSocket | undefined)?.encrypted === true
}

/** Scheme and host the client used (spec: X-Forwarded-Proto/Host when present, else TLS state and Host). */
export const publicOrigin = (request: HttpServerRequest.HttpServerRequest): { scheme: string; host: string } => {
  const first = (value: string | undefined) => value?.split(",")[0]?.trim() || undefined
  const forwardedProto = first(request.headers["x-forwarded-proto"])?.toLowerCase()
  const scheme =
    forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : isHttps(request) ? "https" : "http"
  const host = first(request.headers["x-forwarded-host"]) ?? request.headers.host ?? "localhost"
  return { scheme, host }
}
