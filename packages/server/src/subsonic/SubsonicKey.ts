import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Context, Data, Effect, Layer, Redacted } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"

export class SubsonicKeyError extends Data.TaggedError("SubsonicKeyError")<{ readonly message: string }> {}

/** The AES-256-GCM key that encrypts Subsonic app passwords at rest (token auth needs them recoverable). */
export class SubsonicKey extends Context.Tag("@tonearm/server/SubsonicKey")<
  SubsonicKey,
  {
    readonly encrypt: (plain: string) => Buffer
    /** Undefined when the ciphertext was not made with this key (a replaced key file). */
    readonly decrypt: (sealed: Uint8Array) => string | undefined
  }
>() {}

export const SUBSONIC_KEY_FILE = "subsonic_key"

/**
 * `<data dir>/subsonic_key`: 32 random bytes (base64url), made on first boot with mode 0600 and reused, the way
 * the stream secret is kept. Losing it only invalidates the app passwords (users make new ones).
 */
export const loadSubsonicKey = (dataDir: string) =>
  Effect.try({
    try: () => {
      const file = path.join(dataDir, SUBSONIC_KEY_FILE)
      fs.mkdirSync(dataDir, { recursive: true })
      try {
        fs.writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
      const key = Buffer.from(fs.readFileSync(file, "utf8").trim(), "base64url")
      if (key.length !== 32) throw new Error(`${file} must hold 32 bytes, base64url; delete it to make a new one`)
      return Redacted.make(key)
    },
    catch: (cause) => new SubsonicKeyError({ message: `cannot read or create the Subsonic key: ${cause}` }),
  })

const IV_BYTES = 12
const TAG_BYTES = 16

export const SubsonicKeyLive = Layer.effect(
  SubsonicKey,
  Effect.gen(function* () {
    const { dataDir } = yield* TonearmConfig
    const key = yield* loadSubsonicKey(dataDir)
    return {
      encrypt: (plain) => {
        const iv = randomBytes(IV_BYTES)
        const cipher = createCipheriv("aes-256-gcm", Redacted.value(key), iv)
        const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
        return Buffer.concat([iv, cipher.getAuthTag(), body])
      },
      decrypt: (sealed) => {
        try {
          const bytes = Buffer.from(sealed)
          const decipher = createDecipheriv("aes-256-gcm", Redacted.value(key), bytes.subarray(0, IV_BYTES))
          decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
          return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
            "utf8",
          )
        } catch {
          return undefined
        }
      },
    }
  }),
)
