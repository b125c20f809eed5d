import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import {
  apiErrorInfo,
  Conflict,
  envelopeOf,
  Forbidden,
  Internal,
  InvalidCredentials,
  InvalidRequest,
  InvalidTimezone,
  InvalidToken,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  RegistrationClosed,
  Unauthenticated,
  WrongPassword,
} from "../src/index.js"

const plain =
  <A>(cls: new (props: { readonly message: string }) => A) =>
  (message: string) =>
    new cls({ message })

/** Contract "Errors": the code and status of every error the API answers, and how to make one. */
const CONTRACT = [
  [InvalidRequest, "invalid_request", 400, plain(InvalidRequest)],
  [Unauthenticated, "unauthenticated", 401, plain(Unauthenticated)],
  [InvalidCredentials, "invalid_credentials", 401, plain(InvalidCredentials)],
  [Forbidden, "forbidden", 403, plain(Forbidden)],
  [RegistrationClosed, "registration_closed", 403, plain(RegistrationClosed)],
  [NotFound, "not_found", 404, (message: string) => new NotFound({ message, resource: "track" })],
  [MethodNotAllowed, "method_not_allowed", 405, plain(MethodNotAllowed)],
  [Conflict, "conflict", 409, (message: string) => new Conflict({ message, reason: "last_admin" })],
  [PayloadTooLarge, "payload_too_large", 413, plain(PayloadTooLarge)],
  [RateLimited, "rate_limited", 429, plain(RateLimited)],
  [Internal, "internal", 500, plain(Internal)],
  [InvalidTimezone, "invalid_timezone", 400, plain(InvalidTimezone)],
  [InvalidToken, "invalid_token", 400, plain(InvalidToken)],
  [WrongPassword, "wrong_password", 400, plain(WrongPassword)],
] as const

describe("error envelope (contract Errors)", () => {
  it("every error class carries the contract's code and status", () => {
    for (const [cls, code, status, make] of CONTRACT) {
      expect({ code: cls.code, status: cls.status }).toEqual({ code, status })
      expect(apiErrorInfo(make("m"))).toMatchObject({ code, status, message: "m" })
    }
  })

  it("each encodes to {error:{code,message}} and decodes back to its own class", () => {
    for (const [cls, code, , make] of CONTRACT) {
      const wire = envelopeOf(cls as typeof InvalidRequest)
      const encoded = Schema.encodeSync(wire)(make("why") as InvalidRequest)
      expect(encoded).toEqual({ error: { code, message: "why" } })
      const decoded = Schema.decodeUnknownSync(wire)(encoded)
      expect(decoded).toBeInstanceOf(cls)
      expect(decoded.message).toBe("why")
    }
  })

  it("a NotFound's resource and a Conflict's reason stay off the wire; a client decodes them as unknown", () => {
    const missing = new NotFound({ message: "no such playlist", resource: "playlist" })
    expect(Schema.encodeSync(envelopeOf(NotFound))(missing)).toEqual({
      error: { code: "not_found", message: "no such playlist" },
    })
    expect(apiErrorInfo(missing)).toEqual({ code: "not_found", status: 404, message: "no such playlist" })
    const decoded = Schema.decodeUnknownSync(envelopeOf(NotFound))({ error: { code: "not_found", message: "x" } })
    expect(decoded).toMatchObject({ _tag: "NotFound", resource: "unknown", message: "x" })
    const refused = new Conflict({ message: "system playlist", reason: "system_playlist" })
    expect(Schema.encodeSync(envelopeOf(Conflict))(refused)).toEqual({
      error: { code: "conflict", message: "system playlist" },
    })
    expect(Schema.decodeUnknownSync(envelopeOf(Conflict))({ error: { code: "conflict", message: "y" } }).reason).toBe(
      "unknown",
    )
  })

  it("a NotFound without a known resource, or a Conflict without a reason, cannot be made", () => {
    const untyped = NotFound as unknown as new (props: object) => NotFound
    expect(() => new untyped({ message: "x" })).toThrow()
    expect(() => new untyped({ message: "x", resource: "song" })).toThrow()
    const unreasoned = Conflict as unknown as new (props: object) => Conflict
    expect(() => new unreasoned({ message: "x" })).toThrow()
  })

  it("an envelope with another code does not decode as this class", () => {
    expect(() =>
      Schema.decodeUnknownSync(envelopeOf(NotFound))({ error: { code: "forbidden", message: "x" } }),
    ).toThrow()
  })

  it("a rate-limit error carries its Retry-After seconds outside the body", () => {
    const error = new RateLimited({ message: "slow down", retry_after_seconds: 42 })
    expect(apiErrorInfo(error)).toEqual({
      code: "rate_limited",
      status: 429,
      message: "slow down",
      retryAfterSeconds: 42,
    })
    expect(Schema.encodeSync(envelopeOf(RateLimited))(error)).toEqual({
      error: { code: "rate_limited", message: "slow down" },
    })
  })

  it("values that are not API errors have no envelope info", () => {
    for (const value of [new Error("x"), null, "x", { code: "x" }]) expect(apiErrorInfo(value)).toBeUndefined()
  })
})
