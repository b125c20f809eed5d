import { Cookies, type HttpApi, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"
import { Context, Effect, Redacted, Ref } from "effect"
import type { Simplify } from "effect/Types"

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

type ClientOf<Api> =
  Api extends HttpApi.HttpApi<infer _Id, infer Groups, infer E, infer _R>
    ? Simplify<HttpApiClient.Client<Groups, E, never>>
    : never

/**
 * The typed Tonearm client, derived from the HttpApi contract: one method per route, grouped as the
 * contract groups them (`client.me.get()`, `client.auth.login({ payload })`, …). Failures decode into
 * the contract's tagged errors (`NotFound`, `Unauthenticated`, …) from the `{"error":{code,message}}` body.
 */
export type TonearmClient = ClientOf<typeof TonearmApi>

/**
 * The client for `TonearmClient`'s routes. Each group's methods are made when the group is first used: making
 * all 46 groups compiles every route's encoders and decoders up front (~140 ms in Node, more on a phone), which
 * every page load of the web player and every `tonearm` command paid, though each uses a few groups.
 */
export const makeTonearmClient = (
  options: TonearmClientOptions = {},
): Effect.Effect<TonearmClient, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const context = yield* Effect.context<HttpClient.HttpClient>()
    const base = Context.get(context, HttpClient.HttpClient)
    const httpClient = withCredentials(options.credentials ?? anonymous)(
      options.headers === undefined ? base : HttpClient.mapRequest(base, HttpClientRequest.setHeaders(options.headers)),
    )
    const made = new Map<string, unknown>()
    const client: Record<string, unknown> = {}
    for (const name of Object.keys(TonearmApi.groups))
      Object.defineProperty(client, name, {
        enumerable: true,
        get: () => {
          if (!made.has(name))
            made.set(
              name,
              Effect.runSync(
                HttpApiClient.group(TonearmApi, {
                  group: name as keyof TonearmClient & string,
                  httpClient,
                  ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
                }).pipe(Effect.provide(context)),
              ),
            )
          return made.get(name)
        },
      })
    return client as TonearmClient
  })

export {
  type EventEnvelope,
  type EventStreamOptions,
  parseSseFrames,
  type SseFrame,
  type StreamUrlOptions,
  subscribeEvents,
  trackStreamUrl,
} from "./events.js"
