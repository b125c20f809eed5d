import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { encodeStreamSecret } from "@tonearm/core"
import { Effect, Option, Redacted } from "effect"
import { loadStreamSecret, STREAM_SECRET_FILE } from "../../src/streaming/StreamSecret.js"

const freshDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-secret-"))

describe("stream-token secret bootstrap (spec Authentication 4)", () => {
  it.effect("SERVICE_STREAM_SECRET wins over the file", () =>
    Effect.gen(function* () {
      const dir = freshDir()
      fs.writeFileSync(path.join(dir, STREAM_SECRET_FILE), encodeStreamSecret(new Uint8Array(64).fill(1)))
      const bytes = new Uint8Array(40).fill(7)
      const secret = yield* loadStreamSecret(dir, Option.some(Redacted.make(encodeStreamSecret(bytes))))
      expect(secret.source).toBe("env")
      expect(Redacted.value(secret.key)).toEqual(bytes)
    }),
  )

  it.effect("a malformed SERVICE_STREAM_SECRET is rejected with a clear message", () =>
    Effect.gen(function* () {
      for (const bad of ["too-short", "has spaces in it and is long enough to be 32 bytes..", "a+b/c".repeat(20)]) {
        const error = yield* loadStreamSecret(freshDir(), Option.some(Redacted.make(bad))).pipe(Effect.flip)
        expect(error._tag).toBe("StreamSecretError")
        expect(error.message).toMatch(/^SERVICE_STREAM_SECRET /)
      }
    }),
  )

  it.effect("without the variable a missing file is generated: 64 random bytes, base64url, mode 0600", () =>
    Effect.gen(function* () {
      const dir = freshDir()
      const secret = yield* loadStreamSecret(dir, Option.none())
      expect(secret.source).toBe("generated")
      const file = path.join(dir, STREAM_SECRET_FILE)
      const text = fs.readFileSync(file, "utf8")
      expect(text).toMatch(/^[A-Za-z0-9_-]{86}$/)
      expect(Buffer.from(text, "base64url")).toHaveLength(64)
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(Redacted.value(secret.key)).toEqual(new Uint8Array(Buffer.from(text, "base64url")))
    }),
  )

  it.effect("the generated secret is reused on later boots", () =>
    Effect.gen(function* () {
      const dir = freshDir()
      const first = yield* loadStreamSecret(dir, Option.none())
      const second = yield* loadStreamSecret(dir, Option.none())
      expect(second.source).toBe("file")
      expect(Redacted.value(second.key)).toEqual(Redacted.value(first.key))
      const other = yield* loadStreamSecret(freshDir(), Option.none())
      expect(Redacted.value(other.key)).not.toEqual(Redacted.value(first.key))
    }),
  )

  it.effect("a corrupt secret file refuses to boot rather than being silently replaced", () =>
    Effect.gen(function* () {
      const dir = freshDir()
      fs.writeFileSync(path.join(dir, STREAM_SECRET_FILE), "short")
      const error = yield* loadStreamSecret(dir, Option.none()).pipe(Effect.flip)
      expect(error.message).toContain(STREAM_SECRET_FILE)
      expect(fs.readFileSync(path.join(dir, STREAM_SECRET_FILE), "utf8")).toBe("short")
    }),
  )
})
