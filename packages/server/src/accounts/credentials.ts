import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

/**
 * scrypt at N=2^14, r=8 (16 MiB of memory) with parallelisation `cost` (OWASP lists N=2^14, r=8, p=5 as its
 * minimum; Node runs the p lanes one after another, ~50 ms of one core each, off the event loop).
 */
const N = 16384
const R = 8
const KEY_LENGTH = 64

const derive = (password: string, salt: Buffer, n: number, r: number, p: number, keyLength: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      resume(error ? Effect.die(error) : Effect.succeed(key)),
    )
  })

/** `scrypt$N$r$p$salt$hash` with a fresh 16-byte salt per password. */
export const hashPassword = (password: string, cost: number): Effect.Effect<string> =>
  Effect.gen(function* () {
    const salt = randomBytes(16)
    const key = yield* derive(password, salt, N, R, cost, KEY_LENGTH)
    return `scrypt$${N}$${R}$${cost}$${salt.toString("base64url")}$${key.toString("base64url")}`
  })

/** Whether a stored hash is cheaper than `cost` asks (or not scrypt at all): rehash it at the next sign-in. */
export const needsRehash = (stored: string, cost: number): boolean => {
  const [scheme, n, r, p] = stored.split("$")
  return scheme !== "scrypt" || Number(n) * Number(r) * Number(p) < N * R * cost
}

/** Constant-time comparison; a malformed stored hash never matches. */
export const verifyPassword = (password: string, stored: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const [scheme, n, r, p, salt, hash] = stored.split("$")
    if (scheme !== "scrypt" || !salt || !hash) return false
    const expected = Buffer.from(hash, "base64url")
    const key = yield* derive(
      password,
      Buffer.from(salt, "base64url"),
      Number(n),
      Number(r),
      Number(p),
      expected.length,
    )
    return key.length === expected.length && timingSafeEqual(key, expected)
  })

/** A hash no password matches, verified against when the account does not exist so timing is the same. */
export const decoyPasswordHash = (cost: number) => hashPassword(randomBytes(32).toString("base64url"), cost)

/** Session and reset tokens: 32 random bytes, base64url; only their SHA-256 is stored. */
export const newToken = (): string => randomBytes(32).toString("base64url")
export const hashToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()
