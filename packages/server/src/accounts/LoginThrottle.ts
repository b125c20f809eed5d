import { LOGIN_FAILURE_WINDOW_MS, loginThrottleDecision, loginThrottleKeys, RateLimited } from "@tonearm/core"
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

    return { check, recordFailure, recordSuccess } as const
  }),
  dependencies: [LoginThrottleRepository.Default],
}) {}
