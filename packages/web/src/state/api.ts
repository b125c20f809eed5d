import { FetchHttpClient } from "@effect/platform"
import { makeTonearmClient, type TonearmClient } from "@tonearm/client-sdk"
import { Cause, Effect, Exit, Option } from "effect"
import { session } from "./session.js"

/**
 * The one way pages reach the server: the typed SDK at the page's own origin. The browser keeps the
 * `tonearm_session` cookie itself (same origin), so the client carries no credentials of its own.
 */
const client: Promise<TonearmClient> = Effect.runPromise(
  makeTonearmClient({ baseUrl: location.origin }).pipe(Effect.provide(FetchHttpClient.layer)),
)

/** A failure from the server, as the contract decodes it (`_tag` NotFound, Unauthenticated, …) or a network error. */
export interface ApiError {
  readonly _tag: string
  readonly message: string
}

export const isApiError = (error: unknown): error is ApiError =>
  typeof error === "object" && error !== null && "_tag" in error

export const errorMessage = (error: unknown): string =>
  isApiError(error) && error.message !== "" ? error.message : error instanceof Error ? error.message : String(error)

/**
 * Runs one SDK call as a promise that rejects with the contract's typed error. An `Unauthenticated` answer
 * signs the app out (the session expired or was revoked elsewhere). `signal` cancels a stale request.
 */
export const api = async <A, E>(
  call: (client: TonearmClient) => Effect.Effect<A, E>,
  signal?: AbortSignal,
  options: { readonly keepalive?: boolean } = {},
) => {
  const request = Effect.flatMap(
    Effect.promise(() => client),
    call,
  )
  const exit = await Effect.runPromiseExit(
    // keepalive: the request outlives the page (a play's end reported as the tab closes).
    options.keepalive ? Effect.provideService(request, FetchHttpClient.RequestInit, { keepalive: true }) : request,
    signal ? { signal } : {},
  )
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Cause.failureOption(exit.cause)
  const error = Option.isSome(failure) ? failure.value : Cause.squash(exit.cause)
  if (isApiError(error) && error._tag === "Unauthenticated") session.value = null
  throw error
}
