import { InvalidRequest, NotFound, ServiceUnavailable } from "@tonearm/core"
import { Clock, Effect, Option, Redacted } from "effect"
import * as oidc from "openid-client"
import { type OidcSettings, TonearmConfig } from "../config/TonearmConfig.js"
import type { ClientInfo } from "../http/connection.js"
import { AccountsService } from "./AccountsService.js"

/** How long a started sign-in may take at the provider. */
export const OIDC_PENDING_MS = 10 * 60_000

interface Pending {
  readonly verifier: string
  readonly nonce: string
  readonly expiresAt: number
}

const notConfigured = () => new NotFound({ message: "OpenID Connect sign-in is not configured", resource: "unknown" })

/**
 * OpenID Connect sign-in (issue 29 item 7) with `openid-client`: authorization code with PKCE (S256), a random state
 * and nonce per attempt. A started attempt lives in this replica's memory for 10 minutes and is used once, and its
 * state is also set in a cookie of the browser that started it, so a callback carrying someone else's state, an old
 * one, or one already used (a replayed code) is refused before the code is spent.
 */
export class OidcService extends Effect.Service<OidcService>()("@tonearm/server/OidcService", {
  effect: Effect.gen(function* () {
    const config = yield* TonearmConfig
    const accounts = yield* AccountsService
    const settings: OidcSettings | undefined = config.oidc
    const pending = new Map<string, Pending>()
    let discovered: Promise<oidc.Configuration> | undefined

    const configuration = (settings: OidcSettings) =>
      Effect.tryPromise({
        try: () => {
          discovered ??= oidc
            .discovery(
              new URL(settings.issuer),
              settings.clientId,
              undefined,
              settings.clientSecret === null
                ? oidc.None()
                : oidc.ClientSecretPost(Redacted.value(settings.clientSecret)),
              // Plain http only for a provider on loopback (a test's, a developer's).
              /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(settings.issuer)
                ? { execute: [oidc.allowInsecureRequests] }
                : {},
            )
            .catch((error: unknown) => {
              discovered = undefined
              throw error
            })
          return discovered
        },
        catch: (error) =>
          new ServiceUnavailable({ message: `the OpenID Connect provider did not answer: ${String(error)}` }),
      })

    /** The sign-in page's button, when configured. */
    const providerName = settings === undefined ? null : { name: settings.name }

    /** The provider's authorization URL for a new attempt, and its state (for the browser's cookie). */
    const start = Effect.gen(function* () {
      if (settings === undefined) return yield* notConfigured()
      const client = yield* configuration(settings)
      const now = yield* Clock.currentTimeMillis
      for (const [state, attempt] of pending) if (attempt.expiresAt <= now) pending.delete(state)
      const verifier = oidc.randomPKCECodeVerifier()
      const state = oidc.randomState()
      const nonce = oidc.randomNonce()
      const challenge = yield* Effect.promise(() => oidc.calculatePKCECodeChallenge(verifier))
      pending.set(state, { verifier, nonce, expiresAt: now + OIDC_PENDING_MS })
      const url = oidc.buildAuthorizationUrl(client, {
        redirect_uri: settings.redirectUrl,
        scope: "openid email profile",
        response_type: "code",
        code_challenge: challenge,
        code_challenge_method: "S256",
        state,
        nonce,
      })
      return { url: url.href, state }
    })

    /**
     * The provider's redirect: `query` is the callback's query string, `cookieState` the state this browser started
     * with. Signs in as the linked or new account.
     */
    const finish = (query: string, cookieState: string | undefined, client: ClientInfo) =>
      Effect.gen(function* () {
        if (settings === undefined) return yield* notConfigured()
        const params = new URLSearchParams(query)
        const state = params.get("state") ?? ""
        const providerError = params.get("error")
        const attempt = pending.get(state)
        pending.delete(state)
        if (providerError !== null) {
          return yield* new InvalidRequest({ message: `the provider refused the sign-in: ${providerError}` })
        }
        if (attempt === undefined || state === "" || cookieState !== state) {
          return yield* new InvalidRequest({
            message: "this sign-in link is unknown, expired, already used or from another browser; start again",
          })
        }
        if (attempt.expiresAt <= (yield* Clock.currentTimeMillis)) {
          return yield* new InvalidRequest({ message: "this sign-in took too long; start again" })
        }
        const configured = yield* configuration(settings)
        const current = new URL(settings.redirectUrl)
        current.search = query
        const tokens = yield* Effect.tryPromise({
          try: () =>
            oidc.authorizationCodeGrant(configured, current, {
              pkceCodeVerifier: attempt.verifier,
              expectedState: state,
              expectedNonce: attempt.nonce,
              idTokenExpected: true,
            }),
          catch: (error) => new InvalidRequest({ message: `the provider's answer was refused: ${String(error)}` }),
        })
        const claims = tokens.claims()
        if (claims === undefined) return yield* new InvalidRequest({ message: "the provider sent no ID token" })
        // Providers may keep profile claims out of the ID token (OIDC Core §5.4): the userinfo answer, checked
        // against the ID token's subject, completes them.
        const userinfo = yield* Effect.tryPromise({
          try: () => oidc.fetchUserInfo(configured, tokens.access_token, claims.sub),
          catch: (error) => new ServiceUnavailable({ message: `the provider's userinfo failed: ${String(error)}` }),
        })
        const profile: Record<string, unknown> = { ...claims, ...userinfo }
        const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)
        return yield* accounts.externalSignIn(
          {
            issuer: claims.iss,
            subject: claims.sub,
            email: text(profile.email),
            emailVerified: profile.email_verified === true,
            preferredUsername: text(profile.preferred_username),
          },
          client,
        )
      })

    /**
     * Where a browser goes to end its session at the provider too (OpenID Connect RP-Initiated Logout 1.0): the
     * provider's `end_session_endpoint` with our client id and `postLogoutRedirect` to come back to; None when the
     * provider advertises none (only the local session ends). NotFound when OIDC is not configured.
     */
    const endSessionUrl = (postLogoutRedirect: string) =>
      Effect.gen(function* () {
        if (settings === undefined) return yield* notConfigured()
        const configured = yield* configuration(settings)
        if (configured.serverMetadata().end_session_endpoint === undefined) return Option.none<string>()
        return Option.some(
          oidc.buildEndSessionUrl(configured, {
            client_id: settings.clientId,
            post_logout_redirect_uri: postLogoutRedirect,
          }).href,
        )
      })

    return { providerName, start, finish, endSessionUrl } as const
  }),
  dependencies: [AccountsService.Default],
}) {}
