import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { decodeStreamSecret, encodeStreamSecret, STREAM_SECRET_GENERATED_BYTES } from "@tonearm/core"
import { Config, Context, Data, Effect, Either, Layer, Option, Redacted } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"

export class StreamSecretError extends Data.TaggedError("StreamSecretError")<{ readonly message: string }> {}

/** The HMAC key of signed stream URLs (spec Authentication 4). */
export class StreamSecret extends Context.Tag("@tonearm/server/StreamSecret")<
  StreamSecret,
  { readonly key: Redacted.Redacted<Uint8Array>; readonly source: "env" | "file" | "generated" }
>() {}

export const STREAM_SECRET_FILE = "stream_secret"

/**
 * `SERVICE_STREAM_SECRET` when set (a malformed value refuses to boot), else `<data dir>/stream_secret`,
 * else a new 64-byte secret written there with mode 0600 and reused on later boots.
 */
export const loadStreamSecret = (dataDir: string, fromEnv: Option.Option<Redacted.Redacted>) =>
  Effect.gen(function* () {
    if (Option.isSome(fromEnv)) {
      const decoded = decodeStreamSecret(Redacted.value(fromEnv.value))
      if (Either.isLeft(decoded)) {
        return yield* new StreamSecretError({
          message: `SERVICE_STREAM_SECRET ${decoded.left}; generate one with: node -e "console.log(require('crypto').randomBytes(64).toString('base64url'))"`,
        })
      }
      return { key: Redacted.make(decoded.right), source: "env" as const }
    }
    const file = path.join(dataDir, STREAM_SECRET_FILE)
    return yield* Effect.try({
      try: () => {
        fs.mkdirSync(dataDir, { recursive: true })
        if (fs.existsSync(file)) return { text: fs.readFileSync(file, "utf8"), source: "file" as const }
        const text = encodeStreamSecret(randomBytes(STREAM_SECRET_GENERATED_BYTES))
        // `wx`: if another replica created it first, fail here and read theirs below.
        fs.writeFileSync(file, text, { mode: 0o600, flag: "wx" })
        return { text, source: "generated" as const }
      },
      catch: (cause) => new StreamSecretError({ message: `cannot read or create ${file}: ${cause}` }),
    }).pipe(
      Effect.orElse(() =>
        Effect.try({
          try: () => ({ text: fs.readFileSync(file, "utf8"), source: "file" as const }),
          catch: (cause) => new StreamSecretError({ message: `cannot read ${file}: ${cause}` }),
        }),
      ),
      Effect.flatMap(({ text, source }) =>
        Either.match(decodeStreamSecret(text), {
          onLeft: (reason) =>
            Effect.fail(new StreamSecretError({ message: `${file} ${reason}; delete it to generate a new one` })),
          onRight: (key) => Effect.succeed({ key: Redacted.make(key), source }),
        }),
      ),
    )
  })

export const StreamSecretLive = Layer.effect(
  StreamSecret,
  Effect.gen(function* () {
    const config = yield* TonearmConfig
    const fromEnv = yield* Config.option(Config.redacted("SERVICE_STREAM_SECRET"))
    const secret = yield* loadStreamSecret(config.dataDir, fromEnv)
    yield* Effect.logDebug(`stream secret from ${secret.source}`)
    return secret
  }),
)
