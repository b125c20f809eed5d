import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import {
  decodeStreamSecret,
  encodeStreamSecret,
  LOGIN_FAILURE_WINDOW_MS,
  loadableTimeZone,
  loginBackoffMs,
  loginCheckedKeys,
  loginThrottleDecision,
  loginThrottleKeys,
  Password,
  RegisterRequest,
  UpdateProfileRequest,
  weakPasswordReason,
} from "../src/index.js"

describe("time zones (PUT /api/me/timezone)", () => {
  it("IANA names load and take their registered letter case", () => {
    expect(loadableTimeZone("Europe/Paris")).toBe("Europe/Paris")
    expect(loadableTimeZone("europe/paris")).toBe("Europe/Paris")
    expect(loadableTimeZone("UTC")).toBe("UTC")
    expect(loadableTimeZone(" Asia/Tokyo ")).toBe("Asia/Tokyo")
  })

  it("a zone is stored under the name the user gave, not the runtime's canonical link target", () => {
    expect(loadableTimeZone("Asia/Kolkata")).toBe("Asia/Kolkata")
    expect(loadableTimeZone("Asia/Calcutta")).toBe("Asia/Calcutta")
    expect(loadableTimeZone("Europe/Kyiv")).toBe("Europe/Kyiv")
    expect(loadableTimeZone("Etc/UTC")).toBe("Etc/UTC")
  })

  it("a name that does not load as a zone is rejected", () => {
    for (const name of ["Mars/Base", "", "+02:00", "GMT+2 ", "Europe/Paris; x", "../etc/passwd"]) {
      expect(loadableTimeZone(name)).toBeUndefined()
    }
  })
})

describe("login throttle (issue 29: backoff per account and per address, never a lockout)", () => {
  const now = 1_000_000_000

  it("keys are the case-folded username and each counted client address", () => {
    expect(loginThrottleKeys(" Ada ", ["10.0.0.1"])).toEqual(["user:ada", "addr:10.0.0.1"])
    expect(loginThrottleKeys("ada", ["10.0.0.1", "192.0.2.9", "10.0.0.1"])).toEqual([
      "user:ada",
      "addr:10.0.0.1",
      "addr:192.0.2.9",
    ])
  })

  it("an address the account holds a session from is not checked against the account's key", () => {
    expect(loginCheckedKeys("ada", ["10.0.0.1"], true)).toEqual(["addr:10.0.0.1"])
    expect(loginCheckedKeys("ada", ["10.0.0.1"], false)).toEqual(["user:ada", "addr:10.0.0.1"])
  })

  it("the first 10 failures are free, then each attempt waits 5 s, 10 s, 20 s … after the latest failure", () => {
    expect(loginBackoffMs(9)).toBe(0)
    expect(loginBackoffMs(10)).toBe(5_000)
    expect(loginBackoffMs(11)).toBe(10_000)
    expect(loginBackoffMs(14)).toBe(80_000)
    expect(loginBackoffMs(18)).toBe(LOGIN_FAILURE_WINDOW_MS)
    expect(loginBackoffMs(10_000)).toBe(LOGIN_FAILURE_WINDOW_MS)
    expect(loginThrottleDecision([{ failures: 9, latestMs: now }], now)).toEqual({ blocked: false })
    expect(loginThrottleDecision([{ failures: 10, latestMs: now }], now)).toEqual({
      blocked: true,
      retryAfterSeconds: 5,
    })
    expect(loginThrottleDecision([{ failures: 10, latestMs: now - 5_000 }], now)).toEqual({ blocked: false })
    expect(loginThrottleDecision([{ failures: 13, latestMs: now - 3_500 }], now)).toEqual({
      blocked: true,
      retryAfterSeconds: 37,
    })
  })

  it("the longest wait of the keys wins", () => {
    const decision = loginThrottleDecision(
      [
        { failures: 12, latestMs: now - 1_000 },
        { failures: 15, latestMs: now - 2_000 },
        { failures: 3, latestMs: now },
      ],
      now,
    )
    expect(decision).toEqual({ blocked: true, retryAfterSeconds: 158 })
  })
})

describe("stream-token secret (spec Authentication 4; contract: base64url of at least 32 bytes)", () => {
  it("a 64-byte base64url secret round-trips", () => {
    const bytes = new Uint8Array(64).map((_, i) => i * 3)
    const decoded = decodeStreamSecret(encodeStreamSecret(bytes))
    expect(Either.getOrThrow(decoded)).toEqual(bytes)
  })

  it("fewer than 32 bytes, standard-base64 characters or garbage are rejected with a reason", () => {
    const short = decodeStreamSecret(encodeStreamSecret(new Uint8Array(31)))
    expect(Either.isLeft(short) && short.left).toContain("31 bytes")
    expect(Either.isLeft(decodeStreamSecret("abc+/def".repeat(8)))).toBe(true)
    expect(Either.isLeft(decodeStreamSecret("not a secret!"))).toBe(true)
    expect(Either.isLeft(decodeStreamSecret(""))).toBe(true)
  })
})

describe("account payloads", () => {
  it("usernames are trimmed and may not contain whitespace; passwords are 8 to 256 characters", () => {
    const decode = Schema.decodeUnknownEither(RegisterRequest)
    expect(Either.getOrThrow(decode({ username: "  ada ", password: "ada plays 8" })).username).toBe("ada")
    expect(Either.isLeft(decode({ username: "a d", password: "ada plays 8" }))).toBe(true)
    expect(Either.isLeft(decode({ username: "", password: "ada plays 8" }))).toBe(true)
    expect(Either.isLeft(decode({ username: "ada", password: "1234567" }))).toBe(true)
    expect(Either.isRight(decode({ username: "ada", password: "xy".repeat(128) }))).toBe(true)
    expect(Either.isLeft(decode({ username: "ada", password: "x".repeat(257) }))).toBe(true)
  })

  it("an empty or blank profile field decodes to null (clear); absent stays absent", () => {
    const decode = Schema.decodeUnknownSync(UpdateProfileRequest)
    expect(decode({ display_name: "", email: "   " })).toEqual({ display_name: null, email: null })
    expect(decode({ display_name: " Ada " })).toEqual({ display_name: "Ada" })
    expect(decode({})).toEqual({})
    expect(() => decode({ email: "nope" })).toThrow(/email/)
  })
})

describe("password blocklist (issue 29)", () => {
  const decode = Schema.decodeUnknownEither(Password)
  it("blank, one repeated character and the most common passwords are refused with a clear message", () => {
    for (const [password, reason] of [
      ["        ", "must not be blank"],
      ["password", "most common"],
      ["PassWord1 ", "most common"],
      ["12345678", "most common"],
      ["aaaaaaaaaa", "one character repeated"],
    ] as const) {
      const decoded = decode(password)
      expect(Either.isLeft(decoded), password).toBe(true)
      if (Either.isLeft(decoded)) expect(decoded.left.message, password).toContain(reason)
    }
    expect(weakPasswordReason("correct horse battery")).toBeUndefined()
    expect(Either.isRight(decode("ada plays 8"))).toBe(true)
  })
})
