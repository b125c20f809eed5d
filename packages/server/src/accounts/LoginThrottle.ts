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

/**
 * Login throttling (issue 29): per account and per counted address, a backoff after the free failures (core
 * `loginThrottleDecision`). The account's key is skipped from an address the account already holds a session from.
 */
export class LoginThrottle extends Effect.Service<LoginThrottle>()("@tonearm/server/LoginThrottle", {
  effect: Effect.gen(function* () {
    const failures = yield* LoginThrottleRepository

    const check = Effect.fn("LoginThrottle.check")(function* (username: string, addresses: ReadonlyArray<string>) {
      const now = yield* currentDate
      const known = addresses.length > 0 && (yield* failures.knownAddress(username, addresses[0]!))
      const windows = yield* failures.failuresSince(
        loginCheckedKeys(username, addresses, known),
        new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS),
      )
      const decision = loginThrottleDecision(
        windows.map((row) => ({ failures: row.failures, latestMs: row.latest.epochMillis })),
        now.getTime(),
      )
      if (decision.blocked) {
        return yield* new RateLimited({
          message: "too many failed logins; try again later",
          retry_after_seconds: decision.retryAfterSeconds,
        })
      }
    })

    const recordFailure = Effect.fn("LoginThrottle.recordFailure")(function* (
      username: string,
      addresses: ReadonlyArray<string>,
    ) {
      const now = yield* currentDate
      yield* failures.record(loginThrottleKeys(username, addresses), now)
      yield* failures.prune(new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS))
    })

    /** A successful login clears its account's count; the address counts stay, so one good account can't reset them. */
    const recordSuccess = (username: string) => failures.clear(loginAccountKey(username))

    /** Counts a forgot-password request from this address; 429 past FORGOT_PASSWORD_PER_ADDRESS in the window. */
    const forgotFromAddress = Effect.fn("LoginThrottle.forgotFromAddress")(function* (clientAddress: string) {
      const now = yield* currentDate
      const since = new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS)
      const { admitted, oldest } = yield* failures.admit(
        forgotPasswordAddressKey(clientAddress),
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

    return { check, recordFailure, recordSuccess, forgotFromAddress, resetMailAllowed } as const
  }),
  dependencies: [LoginThrottleRepository.Default],
}) {}
