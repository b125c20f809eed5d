import { LOGIN_FAILURE_LIMIT, LOGIN_FAILURE_WINDOW_MINUTES } from "./Session.js"

export const LOGIN_FAILURE_WINDOW_MS = LOGIN_FAILURE_WINDOW_MINUTES * 60_000

/** Login attempts are counted per username (case-insensitive) and per resolved client address. */
export const loginThrottleKeys = (username: string, clientAddress: string): ReadonlyArray<string> => [
  `user:${username.trim().toLowerCase()}`,
  `addr:${clientAddress}`,
]

export interface FailureWindow {
  /** Failures inside the window. */
  readonly failures: number
  /** Epoch ms of the oldest failure inside the window. */
  readonly oldestMs: number
}

/**
 * Blocked when any key has reached the limit inside the window; the wait lasts until enough of the
 * oldest failures age out (whole seconds, at least 1).
 */
export const loginThrottleDecision = (
  windows: ReadonlyArray<FailureWindow>,
  nowMs: number,
): { readonly blocked: false } | { readonly blocked: true; readonly retryAfterSeconds: number } => {
  const blocking = windows.filter((window) => window.failures >= LOGIN_FAILURE_LIMIT)
  if (blocking.length === 0) return { blocked: false }
  const until = Math.max(...blocking.map((window) => window.oldestMs + LOGIN_FAILURE_WINDOW_MS))
  return { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil((until - nowMs) / 1000)) }
}

/**
 * Forgot-password (issue 29): per client address at most FORGOT_PASSWORD_PER_ADDRESS requests in the login window
 * (then 429), and per account at most FORGOT_PASSWORD_MAILS_PER_ACCOUNT reset mails in it (more requests still answer
 * 202, so the answer never tells whether an account exists, but send nothing).
 */
export const FORGOT_PASSWORD_PER_ADDRESS = 10
export const FORGOT_PASSWORD_MAILS_PER_ACCOUNT = 5
export const forgotPasswordAddressKey = (clientAddress: string) => `forgot-addr:${clientAddress}`
export const forgotPasswordAccountKey = (userId: string) => `forgot-user:${userId}`
