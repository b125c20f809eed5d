import {
  FORGOT_PASSWORD_MAILS_PER_ACCOUNT,
  FORGOT_PASSWORD_PER_ADDRESS,
  forgotPasswordAccountKey,
  forgotPasswordAddressKey,
  LOGIN_FAILURE_WINDOW_MS,
  loginAccountKey,
  loginCheckedKeys,
  loginThrottleDecision,
  loginThrottleKeys,
  RateLimited,
} from "@tonearm/core"
import { Effect } from "effect"
import { currentDate } from "../clock.js"
import { LoginThrottleRepository } from "./LoginThrottleRepository.js"

/** The throttle's decision over the keys' failure windows (core `loginThrottleDecision`). */
const decisionAt = (
  windows: ReadonlyArray<{ readonly failures: number; readonly latest: { readonly epochMillis: number } }>,
  now: Date,
) =>
  loginThrottleDecision(
    windows.map((row) => ({ failures: row.failures, latestMs: row.latest.epochMillis })),
    now.getTime(),
  )

/** 429 with Retry-After while a key is in its backoff. */
const refusedWhenBlocked = (decision: ReturnType<typeof loginThrottleDecision>) =>
  decision.blocked
    ? Effect.fail(
        new RateLimited({
          message: "too many failed logins; try again later",
          retry_after_seconds: decision.retryAfterSeconds,
        }),
      )
    : Effect.void

/** A sign-in attempt under way: what `succeeded` takes back or `failed` counts against the addresses. */
export interface LoginAttempt {
  readonly username: string
  readonly addresses: ReadonlyArray<string>
  readonly ids: ReadonlyArray<string>
}

/**
 * Login throttling (issue 29): per account and per counted address, a backoff after the free failures (core
 * `loginThrottleDecision`). The account's key is skipped from an address the account already holds a session from.
 */
export class LoginThrottle extends Effect.Service<LoginThrottle>()("@tonearm/server/LoginThrottle", {
  effect: Effect.gen(function* () {
    const failures = yield* LoginThrottleRepository

    /**
     * Starts a sign-in attempt: 429 when a key is in its backoff, else the attempt is counted against its account at
     * once (atomically with the check, see `reserve`), so a burst of guesses at one account gets exactly the free
     * attempts. Then `succeeded` takes it back and clears the account's count, or `failed` counts it against the
     * addresses too. The addresses are counted after the password check, as before: many people may sign in at once
     * from one address (an office behind one NAT), and a reservation there would count their attempts in flight.
     */
    const begin = Effect.fn("LoginThrottle.begin")(function* (username: string, addresses: ReadonlyArray<string>) {
      const now = yield* currentDate
      const known = addresses.length > 0 && (yield* failures.knownAddress(username, addresses[0]!))
      const { decision, ids } = yield* failures.reserve(
        loginCheckedKeys(username, addresses, known),
        [loginAccountKey(username)],
        new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS),
        now,
        (windows) => decisionAt(windows, now),
      )
      yield* refusedWhenBlocked(decision)
      return { username, addresses, ids } as const
    })

    /**
     * The check alone, counting nothing: 429 when a key is in its backoff. For a password check that runs on every
     * request (Subsonic `u`+`p`): apps send many at once with the right password, and reserving each would answer
     * the eleventh of them 429. Its failures are then counted through `begin` and `failed`.
     */
    const check = Effect.fn("LoginThrottle.check")(function* (username: string, addresses: ReadonlyArray<string>) {
      const now = yield* currentDate
      const known = addresses.length > 0 && (yield* failures.knownAddress(username, addresses[0]!))
      const windows = yield* failures.failuresSince(
        loginCheckedKeys(username, addresses, known),
        new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS),
      )
      yield* refusedWhenBlocked(decisionAt(windows, now))
    })

    /** The attempt's password was right: its reserved failure goes, and the account's count is cleared. */
    const succeeded = (attempt: LoginAttempt) =>
      Effect.zipRight(failures.forget(attempt.ids), failures.clear(loginAccountKey(attempt.username)))

    /** The attempt failed: it stays counted against the account, and is counted against the addresses now. */
    const failed = (attempt: LoginAttempt) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const addressKeys = loginThrottleKeys(attempt.username, attempt.addresses).slice(1)
        if (addressKeys.length > 0) yield* failures.record(addressKeys, now)
        yield* failures.prune(new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS))
      })

    /**
     * Counts a forgot-password request from these addresses (the login's counted addresses: the resolved one, and
     * the socket peer too when no proxy list vouches for a forwarded chain); 429 when any is past
     * FORGOT_PASSWORD_PER_ADDRESS in the window.
     */
    const forgotFromAddress = Effect.fn("LoginThrottle.forgotFromAddress")(function* (
      addresses: ReadonlyArray<string>,
    ) {
      const now = yield* currentDate
      const since = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS)
      const { admitted, oldest } = yield* failures.admit(
        addresses.map(forgotPasswordAddressKey),
        since,
        FORGOT_PASSWORD_PER_ADDRESS,
        now,
      )
      if (!admitted) {
        const until = (oldest?.getTime() ?? now.getTime()) + LOGIN_FAILURE_WINDOW_MS
        return yield* new RateLimited({
          message: "too many password reset requests; try again later",
          retry_after_seconds: Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
        })
      }
    })

    /** Whether one more reset mail may go to this account in the window (and counts it when it may), atomically. */
    const resetMailAllowed = Effect.fn("LoginThrottle.resetMailAllowed")(function* (userId: string) {
      const now = yield* currentDate
      const since = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS)
      return (yield* failures.admit(forgotPasswordAccountKey(userId), since, FORGOT_PASSWORD_MAILS_PER_ACCOUNT, now))
        .admitted
    })

    return {
      begin,
      check,
      succeeded,
      failed,
      forgotFromAddress,
      resetMailAllowed,
    } as const
  }),
  dependencies: [LoginThrottleRepository.Default],
}) {}
