import { Cookies, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"
import { type Effect, Redacted, Ref } from "effect"

export { TonearmApi } from "@tonearm/core"

/**
 * How the client signs in: a bearer token (scripts, mobile apps), a cookie jar that keeps whatever
 * `tonearm_session` the server sets (browsers do this themselves), or nothing (public routes only).
 */
export type TonearmCredentials =
  | { readonly _tag: "Bearer"; readonly token: Redacted.Redacted<string> }
  | { readonly _tag: "CookieJar"; readonly jar: Ref.Ref<Cookies.Cookies> }
  | { readonly _tag: "Anonymous" }

export const bearer = (token: string | Redacted.Redacted<string>): TonearmCredentials => ({
  _tag: "Bearer",
  token: typeof token === "string" ? Redacted.make(token) : token,
})

export const cookieJar = (jar: Ref.Ref<Cookies.Cookies>): TonearmCredentials => ({ _tag: "CookieJar", jar })

export const anonymous: TonearmCredentials = { _tag: "Anonymous" }

/** A fresh, empty cookie jar for `cookieJar`. */
export const makeCookieJar: Effect.Effect<Ref.Ref<Cookies.Cookies>> = Ref.make(Cookies.empty)

export interface TonearmClientOptions {
  /** e.g. `http://localhost:4533`; omit when the provided HttpClient already targets the server. */
  readonly baseUrl?: string | URL
  readonly credentials?: TonearmCredentials
  /** Extra headers on every request (a custom User-Agent, say). */
  readonly headers?: Record<string, string>
}

const withCredentials = (credentials: TonearmCredentials) => (client: HttpClient.HttpClient) => {
  switch (credentials._tag) {
    case "Bearer":
      return HttpClient.mapRequest(client, HttpClientRequest.bearerToken(credentials.token))
    case "CookieJar":
      return HttpClient.withCookiesRef(client, credentials.jar)
    case "Anonymous":
      return client
  }
}

/**
 * The typed Tonearm client, derived from the HttpApi contract: one method per route, grouped as the
 * contract groups them (`client.me.get()`, `client.auth.login({ payload })`, …). Failures decode into
 * the contract's tagged errors (`NotFound`, `Unauthenticated`, …) from the `{"error":{code,message}}` body.
 */
export const makeTonearmClient = (options: TonearmClientOptions = {}) =>
  HttpApiClient.make(TonearmApi, {
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    transformClient: (client) =>
      withCredentials(options.credentials ?? anonymous)(
        options.headers === undefined
          ? client
          : HttpClient.mapRequest(client, HttpClientRequest.setHeaders(options.headers)),
      ),
  })

export type TonearmClient = Effect.Effect.Success<ReturnType<typeof makeTonearmClient>>

export {
  type EventEnvelope,
  type EventStreamOptions,
  parseSseFrames,
  type SseFrame,
  type StreamUrlOptions,
  subscribeEvents,
  trackStreamUrl,
} from "./events.js"
