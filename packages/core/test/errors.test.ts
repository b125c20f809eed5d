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

/** Contract "Errors": the code and status of every error the API answers. */
const CONTRACT = [
  [InvalidRequest, "invalid_request", 400],
  [Unauthenticated, "unauthenticated", 401],
  [InvalidCredentials, "invalid_credentials", 401],
  [Forbidden, "forbidden", 403],
  [RegistrationClosed, "registration_closed", 403],
  [NotFound, "not_found", 404],
  [MethodNotAllowed, "method_not_allowed", 405],
  [Conflict, "conflict", 409],
  [PayloadTooLarge, "payload_too_large", 413],
  [RateLimited, "rate_limited", 429],
  [Internal, "internal", 500],
  [InvalidTimezone, "invalid_timezone", 400],
  [InvalidToken, "invalid_token", 400],
  [WrongPassword, "wrong_password", 400],
] as const

describe("error envelope (contract Errors)", () => {
  it("every error class carries the contract's code and status", () => {
    for (const [cls, code, status] of CONTRACT) {
      expect({ code: cls.code, status: cls.status }).toEqual({ code, status })
      expect(apiErrorInfo(new cls({ message: "m" }))).toMatchObject({ code, status, message: "m" })
    }
  })

  it("each encodes to {error:{code,message}} and decodes back to its own class", () => {
    for (const [cls, code] of CONTRACT) {
      const wire = envelopeOf(cls as typeof NotFound)
      const encoded = Schema.encodeSync(wire)(new cls({ message: "why" }) as NotFound)
      expect(encoded).toEqual({ error: { code, message: "why" } })
      const decoded = Schema.decodeUnknownSync(wire)(encoded)
      expect(decoded).toBeInstanceOf(cls)
      expect(decoded.message).toBe("why")
    }
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
