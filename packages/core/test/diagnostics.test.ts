import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import fc from "fast-check"
import {
  DiagnosticsQuery,
  decodeDiagnosticCursor,
  encodeDiagnosticCursor,
  installerRetryAfterSeconds,
  isDiagnosticKind,
  isPlaybackErrorKind,
  parseInstant,
  startsAtByteZero,
  unknownDiagnosticKinds,
} from "../src/index.js"

describe("diagnostics rules", () => {
  it("the kind whitelists are the contract's", () => {
    for (const kind of ["playback", "upnp_sync", "connectivity", "power", "lifecycle"])
      expect(isDiagnosticKind(kind)).toBe(true)
    for (const kind of ["Playback", "upnp", "", "crash"]) expect(isDiagnosticKind(kind)).toBe(false)
    for (const kind of ["load_failed", "stalled", "zero_duration"]) expect(isPlaybackErrorKind(kind)).toBe(true)
    expect(isPlaybackErrorKind("zero-duration")).toBe(false)
  })

  it("an unknown kind anywhere in a batch is found (each named once); a batch that is not one has none", () => {
    const batch = {
      events: [{ kind: "playback" }, { kind: "crash" }, { kind: "crash" }, { kind: 5 }, null, { kind: "x" }],
    }
    expect(unknownDiagnosticKinds(batch)).toEqual(["crash", "x"])
    expect(unknownDiagnosticKinds({ events: "nope" })).toEqual([])
    expect(unknownDiagnosticKinds(null)).toEqual([])
  })

  it("a time is RFC 3339 (with a zone) or epoch milliseconds (a number or digits)", () => {
    const at = Date.parse("2026-11-24T10:00:00Z")
    expect(Either.getOrThrow(parseInstant("2026-11-24T10:00:00Z")).getTime()).toBe(at)
    expect(Either.getOrThrow(parseInstant("2026-11-24T11:00:00+01:00")).getTime()).toBe(at)
    expect(Either.getOrThrow(parseInstant("2026-11-24T10:00:00.5z")).getTime()).toBe(at + 500)
    expect(Either.getOrThrow(parseInstant(at)).getTime()).toBe(at)
    expect(Either.getOrThrow(parseInstant(String(at))).getTime()).toBe(at)
    for (const bad of ["yesterday", "2026-11-24", "2026-11-24T10:00:00", "2026-13-45T10:00:00Z", "", 1e300, {}, null])
      expect(Either.isLeft(parseInstant(bad))).toBe(true)
  })

  it("property: any instant reads back the same from RFC 3339 and from epoch milliseconds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        const iso = new Date(ms).toISOString()
        expect(Either.getOrThrow(parseInstant(iso)).getTime()).toBe(ms)
        expect(Either.getOrThrow(parseInstant(ms)).getTime()).toBe(ms)
        expect(Either.getOrThrow(parseInstant(String(ms))).getTime()).toBe(ms)
      }),
    )
  })

  it("property: a range counts toward the limit exactly when it starts at byte 0", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.nat(20_000), (size, start) => {
        expect(startsAtByteZero(`bytes=${start}-`, size)).toBe(start === 0)
      }),
    )
  })

  it("the timeline query decodes from/to in either form", () => {
    const decoded = Schema.decodeUnknownSync(DiagnosticsQuery)({ from: "2026-11-24T10:00:00Z", to: "1764000000000" })
    expect(decoded.from?.toISOString()).toBe("2026-11-24T10:00:00.000Z")
    expect(decoded.to?.getTime()).toBe(1764000000000)
  })

  it("the timeline cursor round-trips and refuses anything this server did not hand out", () => {
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
    const cursor = encodeDiagnosticCursor("1764000000123456", id)
    expect(decodeDiagnosticCursor(cursor)).toEqual(Either.right({ occurredUs: "1764000000123456", id }))
    expect(decodeDiagnosticCursor(undefined)).toEqual(Either.right(undefined))
    for (const bad of ["garbage", encodeDiagnosticCursor("12a", id), encodeDiagnosticCursor("1", "x")])
      expect(Either.isLeft(decodeDiagnosticCursor(bad))).toBe(true)
  })
})

describe("client installer rules", () => {
  it("only a download that starts at byte 0 counts toward the 60 s limit", () => {
    const size = 1000
    expect(startsAtByteZero(undefined, size)).toBe(true)
    expect(startsAtByteZero("bytes=0-99", size)).toBe(true)
    expect(startsAtByteZero("bytes=0-", size)).toBe(true)
    expect(startsAtByteZero("bytes=-1000", size)).toBe(true)
    expect(startsAtByteZero("bytes=-5000", size)).toBe(true)
    expect(startsAtByteZero("bytes=1-", size)).toBe(false)
    expect(startsAtByteZero("bytes=500-599", size)).toBe(false)
    expect(startsAtByteZero("bytes=-10", size)).toBe(false)
    // Unsatisfiable: answered 416, never counted.
    expect(startsAtByteZero("bytes=1000-", size)).toBe(false)
  })

  it("Retry-After is the whole seconds left in the window, rounded up", () => {
    expect(installerRetryAfterSeconds(0, 0)).toBe(60)
    expect(installerRetryAfterSeconds(0, 500)).toBe(60)
    expect(installerRetryAfterSeconds(0, 59_001)).toBe(1)
    expect(installerRetryAfterSeconds(0, 60_000)).toBe(0)
    expect(installerRetryAfterSeconds(0, 90_000)).toBe(0)
  })
})
