import { createHmac, timingSafeEqual } from "node:crypto"

/** Stream-token lifetimes (spec Limits): clamp [60, 86400] s, default 21600; a token is never valid beyond 24 h. */
export const STREAM_TOKEN_MIN_SECONDS = 60
export const STREAM_TOKEN_MAX_SECONDS = 86_400
export const STREAM_TOKEN_DEFAULT_SECONDS = 21_600

export const clampStreamTokenLifetime = (requested: number | undefined): number => {
  if (requested === undefined || !Number.isFinite(requested)) return STREAM_TOKEN_DEFAULT_SECONDS
  return Math.min(STREAM_TOKEN_MAX_SECONDS, Math.max(STREAM_TOKEN_MIN_SECONDS, Math.floor(requested)))
}

/** base64url (no padding) of HMAC-SHA256(key, `<track_id>|<exp>`), exp in Unix seconds (contract). */
export const signStreamToken = (key: Uint8Array, trackId: string, exp: number): string =>
  createHmac("sha256", key).update(`${trackId}|${exp}`, "utf8").digest("base64url")

/**
 * Valid only for the track it was signed for, with this key, before `exp`, and for at most 24 h from now
 * (a forged far-future exp fails the HMAC anyway; this bounds tokens signed with a leaked old policy).
 * Checked when the request arrives; a long transfer is never cut at expiry. Compared in constant time.
 */
export const verifyStreamToken = (input: {
  readonly key: Uint8Array
  readonly trackId: string
  readonly exp: number
  readonly token: string
  readonly nowSeconds: number
}): boolean => {
  if (!Number.isSafeInteger(input.exp)) return false
  if (input.exp <= input.nowSeconds || input.exp > input.nowSeconds + STREAM_TOKEN_MAX_SECONDS) return false
  const expected = Buffer.from(signStreamToken(input.key, input.trackId, input.exp), "utf8")
  const given = Buffer.from(input.token, "utf8")
  return given.length === expected.length && timingSafeEqual(given, expected)
}
