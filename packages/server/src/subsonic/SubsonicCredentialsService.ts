import { createHash, randomBytes } from "node:crypto"
import {
  type ApiKeyId,
  ApiKeyRow,
  CreatedApiKey,
  decodeSubsonicPassword,
  missingParameter,
  NotFound,
  SubsonicErrorCode,
  SubsonicFailure,
  SubsonicPassword,
  subsonicTokenMatches,
  type UserId,
} from "@tonearm/core"
import { Data, Effect, Option } from "effect"
import { AccountsService, LoginThrottle } from "../accounts/index.js"
import { currentDate } from "../clock.js"
import type { SubsonicParams } from "./params.js"
import { SubsonicCredentialsRepository } from "./SubsonicCredentialsRepository.js"
import { SubsonicKey } from "./SubsonicKey.js"

/** A failed Subsonic sign-in, or one refused by the login throttle (answered 429 with Retry-After). */
export class SubsonicThrottled extends Data.TaggedError("SubsonicThrottled")<{ readonly retryAfterSeconds: number }> {}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest()

/** API keys are used on every request: their last_used_at is written at most once a minute. */
const TOUCH_EVERY_MS = 60_000

const wrong = () =>
  new SubsonicFailure({ code: SubsonicErrorCode.wrongCredentials, message: "Wrong username or password" })

/**
 * Credentials of Subsonic apps (contract "Subsonic compatibility"): the app password for token auth, stored
 * encrypted; API keys, stored hashed; and the sign-in of each request, failures throttled like logins.
 */
export class SubsonicCredentialsService extends Effect.Service<SubsonicCredentialsService>()(
  "@tonearm/server/SubsonicCredentialsService",
  {
    effect: Effect.gen(function* () {
      const store = yield* SubsonicCredentialsRepository
      const sealer = yield* SubsonicKey
      const accounts = yield* AccountsService
      const throttle = yield* LoginThrottle

      const createPassword = Effect.fn("SubsonicCredentialsService.createPassword")(function* (userId: UserId) {
        const password = randomBytes(18).toString("base64url")
        yield* store.savePassword(userId, sealer.encrypt(password), yield* currentDate)
        return new SubsonicPassword({ password })
      })

      const createApiKey = Effect.fn("SubsonicCredentialsService.createApiKey")(function* (
        userId: UserId,
        name: string,
      ) {
        const secret = randomBytes(32).toString("base64url")
        const row = yield* store.insertKey(userId, name, sha256(secret), yield* currentDate)
        return new CreatedApiKey({ id: row.id, name: row.name, key: secret, created_at: row.created_at })
      })

      const listApiKeys = Effect.fn("SubsonicCredentialsService.listApiKeys")(function* (userId: UserId) {
        return (yield* store.keysOf(userId)).map((row) => new ApiKeyRow(row))
      })

      /** Another user's key is "not found", like any id the caller does not own. */
      const revokeApiKey = Effect.fn("SubsonicCredentialsService.revokeApiKey")(function* (
        userId: UserId,
        id: ApiKeyId,
      ) {
        if (!(yield* store.deleteKey(userId, id)))
          return yield* new NotFound({ message: "no such API key", resource: "api_key" })
      })

      /**
       * A failed attempt: refused with 429 once the name or the address has used up its failures (the login
       * throttle), else counted. App passwords and API keys are random (144 and 256 bits), so unlike the account
       * password they are not guessable: their success path skips the throttle's read, and only failures pay it.
       */
      const failure = (username: string, clientAddresses: ReadonlyArray<string>, error: SubsonicFailure) =>
        // Checked and counted at once (`begin`), so failures fired together cannot all pass the check.
        throttle.begin(username, clientAddresses).pipe(
          Effect.catchTag("RateLimited", (limited) =>
            Effect.fail(new SubsonicThrottled({ retryAfterSeconds: limited.retry_after_seconds ?? 60 })),
          ),
          Effect.flatMap(throttle.failed),
          Effect.zipRight(Effect.fail(error)),
        )

      const byApiKey = (apiKey: string, clientAddresses: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const found = yield* store.keyOwner(sha256(apiKey))
          if (Option.isNone(found)) {
            // Keys have no user name: their failures count against the address alone.
            return yield* failure(
              `api-key@${clientAddresses[0] ?? "unknown"}`,
              clientAddresses,
              new SubsonicFailure({ code: SubsonicErrorCode.invalidApiKey, message: "Invalid API key" }),
            )
          }
          const key = found.value
          const now = yield* currentDate
          if (key.last_used_at === null || now.getTime() - key.last_used_at.epochMillis > TOUCH_EVERY_MS) {
            yield* store.touchKey(key.id, now)
          }
          return { id: key.user_id, username: key.username, isAdmin: key.is_admin }
        })

      const byToken = (username: string, token: string, salt: string, clientAddresses: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const user = yield* accounts.userByName(username)
          const sealed = Option.isSome(user) ? yield* store.passwordOf(user.value.id) : undefined
          // An unknown name answers as a known one without an app password: the answer never tells whether an
          // account exists (issue 29).
          if (sealed === undefined) {
            return yield* new SubsonicFailure({
              code: SubsonicErrorCode.tokenAuthNotSupported,
              message:
                "Token authentication needs an app password: create one with POST /api/me/subsonic-password, or sign in with u and p",
            })
          }
          const password = sealed === undefined ? undefined : sealer.decrypt(sealed)
          if (Option.isNone(user) || password === undefined || !subsonicTokenMatches(password, salt, token)) {
            return yield* failure(username, clientAddresses, wrong())
          }
          return user.value
        })

      const byPassword = (username: string, encoded: string, clientAddresses: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const password = decodeSubsonicPassword(encoded)
          if (password === undefined) return yield* wrong()
          return yield* accounts.checkPassword(username, password, clientAddresses).pipe(
            Effect.catchTags({
              InvalidCredentials: () => Effect.fail(wrong()),
              RateLimited: (error) =>
                Effect.fail(new SubsonicThrottled({ retryAfterSeconds: error.retry_after_seconds ?? 60 })),
            }),
          )
        })

      /**
       * The caller of a Subsonic request: `apiKey` (never with `u`: 43), else `u` with `t`+`s` (the app
       * password) or `p` (the account password; plain or `enc:` hex). Both `p` and `t`: 43. Nothing: 10.
       */
      const authenticate = (params: SubsonicParams, clientAddresses: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const apiKey = params.get("apiKey")
          const username = params.get("u")
          const password = params.get("p")
          const token = params.get("t")
          const salt = params.get("s")
          if (apiKey !== undefined) {
            if (username !== undefined || password !== undefined || token !== undefined) {
              return yield* new SubsonicFailure({
                code: SubsonicErrorCode.conflictingAuth,
                message: "apiKey cannot be combined with u, p or t",
              })
            }
            return yield* byApiKey(apiKey, clientAddresses)
          }
          if (username === undefined || username === "") return yield* Effect.fail(missingParameter("u"))
          if (password !== undefined && token !== undefined) {
            return yield* new SubsonicFailure({
              code: SubsonicErrorCode.conflictingAuth,
              message: "send either p or t and s, not both",
            })
          }
          if (token !== undefined) {
            if (salt === undefined || salt === "") return yield* Effect.fail(missingParameter("s"))
            return yield* byToken(username, token, salt, clientAddresses)
          }
          if (password !== undefined) return yield* byPassword(username, password, clientAddresses)
          return yield* Effect.fail(missingParameter("t"))
        })

      return { createPassword, createApiKey, listApiKeys, revokeApiKey, authenticate } as const
    }),
    dependencies: [SubsonicCredentialsRepository.Default, LoginThrottle.Default],
  },
) {}
