import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Data, Duration, Effect, Schema } from "effect"
import { type EnrichmentSettings, enrichmentSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"
import { ProviderThrottleRepository } from "./ProviderThrottleRepository.js"

/** A provider request that did not give a usable answer: down, 5xx, 429, timeout or garbage. Retried with backoff. */
export class ProviderFailure extends Data.TaggedError("ProviderFailure")<{
  readonly provider: string
  readonly message: string
}> {}

/** The provider answered that it does not know the entity (404 or its own "not found"): settled, nothing found. */
export class ProviderNotFound extends Data.TaggedError("ProviderNotFound")<{ readonly provider: string }> {}

export type ThrottledProvider = "musicbrainz" | "lastfm" | "listenbrainz" | "coverartarchive"

const intervalOf = (settings: EnrichmentSettings, provider: ThrottledProvider) => settings[provider].throttleMs

/**
 * Every external request goes through here: one User-Agent, a timeout, and the per-provider throttle (spec
 * "Limits": enrichment is unbounded per scan, the per-provider request throttle remains). The throttle spaces
 * request starts at least `throttleMs` apart per provider across every replica on the database (a row per provider
 * in `provider_throttles`), whoever asks (enrichment runs, connection tests, Discover's similar artists, scrobbles,
 * the Last.fm import).
 */
export class ProviderHttp extends Effect.Service<ProviderHttp>()("@tonearm/server/ProviderHttp", {
  effect: Effect.gen(function* () {
    const settings = enrichmentSettingsOf(yield* TonearmConfig)
    const http = yield* HttpClient.HttpClient
    const throttles = yield* ProviderThrottleRepository

    /** Takes this provider's next request slot (shared by every replica) and waits for it. */
    const slot = (provider: ThrottledProvider) =>
      throttles.takeSlot(provider, intervalOf(settings, provider)).pipe(
        Effect.mapError(() => new ProviderFailure({ provider, message: "the request throttle could not be read" })),
        Effect.flatMap((waitMs) => (waitMs > 0 ? Effect.sleep(Duration.millis(waitMs)) : Effect.void)),
      )

    const send = (provider: ThrottledProvider, request: HttpClientRequest.HttpClientRequest) =>
      Effect.gen(function* () {
        yield* slot(provider)
        const response = yield* http
          .execute(
            request.pipe(HttpClientRequest.setHeader("user-agent", settings.userAgent), HttpClientRequest.acceptJson),
          )
          .pipe(
            Effect.timeoutFail({
              duration: Duration.millis(settings.requestTimeoutMs),
              onTimeout: () => new ProviderFailure({ provider, message: "timed out" }),
            }),
            Effect.mapError((error) =>
              error instanceof ProviderFailure ? error : new ProviderFailure({ provider, message: error.message }),
            ),
          )
        if (response.status === 404) return yield* new ProviderNotFound({ provider })
        if (response.status < 200 || response.status >= 300)
          return yield* new ProviderFailure({ provider, message: `answered ${response.status}` })
        return response
      })

    const read = <A>(
      provider: ThrottledProvider,
      response: Effect.Effect<HttpClientResponse.HttpClientResponse, ProviderFailure | ProviderNotFound>,
      body: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, unknown>,
    ) =>
      Effect.flatMap(response, (answered) =>
        body(answered).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(settings.requestTimeoutMs),
            onTimeout: () => new ProviderFailure({ provider, message: "timed out reading the answer" }),
          }),
          Effect.mapError((error) =>
            error instanceof ProviderFailure
              ? error
              : new ProviderFailure({ provider, message: `unreadable answer: ${String(error).slice(0, 200)}` }),
          ),
        ),
      )

    /** GET a JSON document and decode it; anything else is garbage (a failure to retry). */
    const getJson = <A, I>(
      provider: ThrottledProvider,
      url: string,
      params: Record<string, string>,
      schema: Schema.Schema<A, I>,
    ) =>
      read(provider, send(provider, HttpClientRequest.get(url, { urlParams: params })), (response) =>
        Effect.flatMap(response.json, Schema.decodeUnknown(schema)),
      )

    /** GET image bytes (redirects followed); a body that is not an image is garbage. */
    const getImage = (provider: ThrottledProvider, url: string) =>
      read(provider, send(provider, HttpClientRequest.get(url)), (response) =>
        Effect.flatMap(response.arrayBuffer, (buffer) => {
          const bytes = new Uint8Array(buffer)
          const type = imageTypeOf(bytes)
          return type === undefined
            ? Effect.fail(new ProviderFailure({ provider, message: "the answer is not an image" }))
            : Effect.succeed({ bytes, extension: type })
        }),
      )

    /**
     * Sends a request (a scrobble, a signed Last.fm call) through the same throttle and timeout, and answers the status,
     * headers and body text whatever the status: the caller tells a refused token from an outage by them. Only no
     * answer at all (down, timed out) fails.
     */
    const exchange = (provider: ThrottledProvider, request: HttpClientRequest.HttpClientRequest) =>
      Effect.gen(function* () {
        yield* slot(provider)
        const timeout = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          effect.pipe(
            Effect.timeoutFail({
              duration: Duration.millis(settings.requestTimeoutMs),
              onTimeout: () => new ProviderFailure({ provider, message: "timed out" }),
            }),
            Effect.mapError((error) =>
              error instanceof ProviderFailure
                ? error
                : new ProviderFailure({ provider, message: String((error as { message?: unknown }).message ?? error) }),
            ),
          )
        const response = yield* timeout(
          http.execute(
            request.pipe(HttpClientRequest.setHeader("user-agent", settings.userAgent), HttpClientRequest.acceptJson),
          ),
        )
        const text = yield* timeout(response.text)
        return { status: response.status, headers: response.headers as Readonly<Record<string, string>>, text }
      })

    return { getJson, getImage, exchange, settings } as const
  }),
  dependencies: [ProviderThrottleRepository.Default],
}) {}

/** The image format of some bytes by their magic number (jpeg, png, webp, gif), else undefined. */
export const imageTypeOf = (bytes: Uint8Array): "jpg" | "png" | "webp" | "gif" | undefined => {
  if (bytes.length < 12) return undefined
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpg"
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return "png"
  if (bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46) return "gif"
  if (bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return "webp"
  return undefined
}
