import { LOGIN_FAILURE_LIMIT, LOGIN_FAILURE_WINDOW_MINUTES } from "./Session.js"

export const LOGIN_FAILURE_WINDOW_MS = LOGIN_FAILURE_WINDOW_MINUTES * 60_000

/**
 * Login throttling (issue 29): failures are counted per account (the case-folded username) and per client address
 * over a sliding window. A key's first LOGIN_FAILURE_LIMIT failures are free; after that each attempt must wait
 * LOGIN_BACKOFF_BASE_MS × 2^(failures − limit) after the key's latest failure (5 s, 10 s, 20 s, … capped at the
 * window), so guessing slows to a crawl while nobody is locked out for the whole window.
 */
export const LOGIN_BACKOFF_BASE_MS = 5_000
export const LOGIN_BACKOFF_MAX_MS = LOGIN_FAILURE_WINDOW_MS

export const loginAccountKey = (username: string) => `user:${username.trim().toLowerCase()}`
export const loginAddressKey = (clientAddress: string) => `addr:${clientAddress}`

/** Every key a failure is counted under: the account and each counted address. */
export const loginThrottleKeys = (username: string, addresses: ReadonlyArray<string>): ReadonlyArray<string> => [
  loginAccountKey(username),
  ...new Set(addresses.map(loginAddressKey)),
]

/**
 * The keys a sign-in attempt is checked against. The account's key is left out when the attempt comes from an
 * address the account already holds a session from: an attacker's failures elsewhere slow the attacker, never the
 * owner at their usual place (their address's own key still counts every failure made from it).
 */
export const loginCheckedKeys = (
  username: string,
  addresses: ReadonlyArray<string>,
  knownAddress: boolean,
): ReadonlyArray<string> => {
  const keys = loginThrottleKeys(username, addresses)
  return knownAddress ? keys.slice(1) : keys
}

/** The wait a key owes after its latest failure, given its failures inside the window. */
export const loginBackoffMs = (failures: number): number =>
  failures < LOGIN_FAILURE_LIMIT
    ? 0
    : Math.min(LOGIN_BACKOFF_MAX_MS, LOGIN_BACKOFF_BASE_MS * 2 ** Math.min(30, failures - LOGIN_FAILURE_LIMIT))

export interface FailureWindow {
  /** Failures inside the window. */
  readonly failures: number
  /** Epoch ms of the latest failure inside the window. */
  readonly latestMs: number
}

/**
 * Refused while any key still owes its backoff; Retry-After is the longest remaining wait (whole seconds, at
 * least 1).
 */
export const loginThrottleDecision = (
  windows: ReadonlyArray<FailureWindow>,
  nowMs: number,
): { readonly blocked: false } | { readonly blocked: true; readonly retryAfterSeconds: number } => {
  const until = Math.max(nowMs, ...windows.map((window) => window.latestMs + loginBackoffMs(window.failures)))
  if (until <= nowMs) return { blocked: false }
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
