import type { IncomingMessage } from "node:http"
import type { TLSSocket } from "node:tls"
import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"

/** The connection facts the trusted-hop model needs, free of any HTTP type. */
export interface ConnectionFacts {
  readonly forwardedFor: string | ReadonlyArray<string> | undefined
  readonly socketPeer: string | undefined
}

/** The forwarded chain and socket peer of a request, as the trusted-hop model reads them. */
export const connectionFacts = (request: HttpServerRequest.HttpServerRequest): ConnectionFacts => ({
  forwardedFor: request.headers["x-forwarded-for"],
  socketPeer: Option.getOrUndefined(request.remoteAddress),
})

/** Who is calling, as recorded on a session: the user agent and the resolved client address. */
export interface ClientInfo {
  readonly userAgent: string
  readonly clientAddress: string
  /** The addresses the login throttle counts (the resolved one, and without a proxy list the socket peer too). */
  readonly throttleAddresses: ReadonlyArray<string>
}

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
