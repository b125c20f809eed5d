import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Effect } from "effect"

/** scrypt parameters: ~50 ms per hash on one core, 16 MiB of memory. */
const N = 16384
const R = 8
const P = 1
const KEY_LENGTH = 64

const derive = (password: string, salt: Buffer, n: number, r: number, p: number, keyLength: number) =>
  Effect.async<Buffer>((resume) => {
    scrypt(password.normalize("NFC"), salt, keyLength, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      resume(error ? Effect.die(error) : Effect.succeed(key)),
    )
  })

/** `scrypt$N$r$p$salt$hash` with a fresh 16-byte salt per password. */
export const hashPassword = (password: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    const salt = randomBytes(16)
    const key = yield* derive(password, salt, N, R, P, KEY_LENGTH)
    return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`
  })

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
export const decoyPasswordHash = hashPassword(randomBytes(32).toString("base64url"))

/** Session and reset tokens: 32 random bytes, base64url; only their SHA-256 is stored. */
export const newToken = (): string => randomBytes(32).toString("base64url")
export const hashToken = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest()
