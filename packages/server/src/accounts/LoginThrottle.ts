import {
  FORGOT_PASSWORD_MAILS_PER_ACCOUNT,
  FORGOT_PASSWORD_PER_ADDRESS,
  forgotPasswordAccountKey,
  forgotPasswordAddressKey,
  LOGIN_FAILURE_WINDOW_MS,
  loginThrottleDecision,
  loginThrottleKeys,
  RateLimited,
} from "@tonearm/core"
import { Effect } from "effect"
import { currentDate } from "../clock.js"
import { LoginThrottleRepository } from "./LoginThrottleRepository.js"

/** The contract's login rate limit, applied per username and per resolved client address. */
export class LoginThrottle extends Effect.Service<LoginThrottle>()("@tonearm/server/LoginThrottle", {
  effect: Effect.gen(function* () {
    const failures = yield* LoginThrottleRepository

    const check = Effect.fn("LoginThrottle.check")(function* (username: string, clientAddress: string) {
      const now = yield* currentDate
      const windows = yield* failures.failuresSince(
        loginThrottleKeys(username, clientAddress),
        new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS),
      )
      const decision = loginThrottleDecision(
        windows.map((row) => ({ failures: row.failures, oldestMs: row.oldest.epochMillis })),
        now.getTime(),
      )
      if (decision.blocked) {
        return yield* new RateLimited({
          message: "too many failed logins; try again later",
          retry_after_seconds: decision.retryAfterSeconds,
        })
      }
    })

    const recordFailure = Effect.fn("LoginThrottle.recordFailure")(function* (username: string, clientAddress: string) {
      const now = yield* currentDate
      yield* failures.record(loginThrottleKeys(username, clientAddress), now)
      yield* failures.prune(new Date(now.getTime() - LOGIN_FAILURE_WINDOW_MS))
    })

    /** A successful login clears its username's count; the address count stays, so one good account can't reset it. */
    const recordSuccess = (username: string, clientAddress: string) =>
      failures.clear(loginThrottleKeys(username, clientAddress)[0]!)

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
