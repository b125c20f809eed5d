import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  clampStreamTokenLifetime,
  extensionForFormat,
  mimeForFormat,
  parseRange,
  STREAM_TOKEN_DEFAULT_SECONDS,
  signStreamToken,
  verifyStreamToken,
} from "../src/index.js"

const key = new Uint8Array(64).map((_, i) => (i * 7 + 3) % 256)
const otherKey = new Uint8Array(64).map((_, i) => (i * 11 + 5) % 256)
const track = "0b7e8a52-3a2f-4a63-9d0c-2f0e8b1f4a11"
const otherTrack = "6f1c2d9e-8b7a-4c3d-9e2f-1a2b3c4d5e6f"
const now = 1_800_000_000

describe("signed stream tokens (spec Authentication 3)", () => {
  it("the token is base64url HMAC-SHA256 over `trackID|exp`", async () => {
    const { createHmac } = await import("node:crypto")
    const expected = createHmac("sha256", key)
      .update(`${track}|${now + 60}`)
      .digest("base64url")
    expect(signStreamToken(key, track, now + 60)).toBe(expected)
    expect(expected).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it("is valid for its track, with its secret, before its expiry", () => {
    const exp = now + 3600
    const token = signStreamToken(key, track, exp)
    expect(verifyStreamToken({ key, trackId: track, exp, token, nowSeconds: now })).toBe(true)
    expect(verifyStreamToken({ key, trackId: otherTrack, exp, token, nowSeconds: now })).toBe(false)
    expect(verifyStreamToken({ key: otherKey, trackId: track, exp, token, nowSeconds: now })).toBe(false)
    expect(verifyStreamToken({ key, trackId: track, exp: exp + 1, token, nowSeconds: now })).toBe(false)
    expect(verifyStreamToken({ key, trackId: track, exp, token: `${token.slice(0, -1)}A`, nowSeconds: now })).toBe(
      false,
    )
    expect(verifyStreamToken({ key, trackId: track, exp, token: "", nowSeconds: now })).toBe(false)
  })

  it("expiry is checked on arrival: valid the second before, invalid at and after exp", () => {
    const exp = now + 10
    const token = signStreamToken(key, track, exp)
    expect(verifyStreamToken({ key, trackId: track, exp, token, nowSeconds: exp - 1 })).toBe(true)
    expect(verifyStreamToken({ key, trackId: track, exp, token, nowSeconds: exp })).toBe(false)
  })

  it("no token lives beyond 24 hours, even correctly signed", () => {
    const exp = now + 86_400 + 1
    const token = signStreamToken(key, track, exp)
    expect(verifyStreamToken({ key, trackId: track, exp, token, nowSeconds: now })).toBe(false)
    const edge = now + 86_400
    expect(
      verifyStreamToken({ key, trackId: track, exp: edge, token: signStreamToken(key, track, edge), nowSeconds: now }),
    ).toBe(true)
  })

  it("lifetimes clamp to [60, 86400] seconds with a default of 21600", () => {
    expect(STREAM_TOKEN_DEFAULT_SECONDS).toBe(21_600)
    expect(clampStreamTokenLifetime(undefined)).toBe(21_600)
    expect(clampStreamTokenLifetime(1)).toBe(60)
    expect(clampStreamTokenLifetime(-5)).toBe(60)
    expect(clampStreamTokenLifetime(600.9)).toBe(600)
    expect(clampStreamTokenLifetime(10 ** 9)).toBe(86_400)
    expect(clampStreamTokenLifetime(Number.NaN)).toBe(21_600)
  })

  it("a token signed for one track never verifies for another (property)", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), fc.integer({ min: 1, max: 86_400 }), (a, b, lifetime) => {
        fc.pre(a !== b)
        const exp = now + lifetime
        const token = signStreamToken(key, a, exp)
        return (
          verifyStreamToken({ key, trackId: a, exp, token, nowSeconds: now }) &&
          !verifyStreamToken({ key, trackId: b, exp, token, nowSeconds: now })
        )
      }),
    )
  })
})

describe("MIME table (contract Streaming and casting)", () => {
  it("maps every known format and falls back to audio/mpeg", () => {
    const table: Record<string, string> = {
      mp3: "audio/mpeg",
      mpeg: "audio/mpeg",
      flac: "audio/flac",
      m4a: "audio/mp4",
      aac: "audio/aac",
      ogg: "audio/ogg",
      vorbis: "audio/ogg",
      opus: "audio/opus",
      wav: "audio/wav",
      wave: "audio/wav",
      FLAC: "audio/flac",
      ape: "audio/mpeg",
      "": "audio/mpeg",
    }
    for (const [format, mime] of Object.entries(table)) expect(mimeForFormat(format)).toBe(mime)
  })

  it("stream URLs carry a file extension the speaker recognises", () => {
    expect(
      ["mp3", "flac", "m4a", "aac", "ogg", "opus", "wav", "vorbis", "wave", "mpeg", "xyz"].map(extensionForFormat),
    ).toEqual(["mp3", "flac", "m4a", "aac", "ogg", "opus", "wav", "ogg", "wav", "mp3", "mp3"])
  })
})

describe("single Range requests (RFC 9110)", () => {
  const size = 1000
  it("bytes=a-b, a-, -n", () => {
    expect(parseRange("bytes=0-99", size)).toEqual({ _tag: "Partial", start: 0, end: 99 })
    expect(parseRange("bytes=900-", size)).toEqual({ _tag: "Partial", start: 900, end: 999 })
    expect(parseRange("bytes=-100", size)).toEqual({ _tag: "Partial", start: 900, end: 999 })
    expect(parseRange("bytes=-5000", size)).toEqual({ _tag: "Partial", start: 0, end: 999 })
    expect(parseRange("bytes=990-5000", size)).toEqual({ _tag: "Partial", start: 990, end: 999 })
  })

  it("a range starting past the end is unsatisfiable (416)", () => {
    expect(parseRange("bytes=1000-", size)).toEqual({ _tag: "Unsatisfiable" })
    expect(parseRange("bytes=-0", size)).toEqual({ _tag: "Unsatisfiable" })
    expect(parseRange("bytes=0-", 0)).toEqual({ _tag: "Unsatisfiable" })
  })

  it("no header, another unit, several ranges or nonsense serve the whole file", () => {
    for (const header of [undefined, "items=0-1", "bytes=0-1,5-6", "bytes=abc", "bytes=5-3", "bytes=-"]) {
      expect(parseRange(header, size)).toEqual({ _tag: "Full" })
    }
  })

  it("a partial range always lies inside the file (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.nat(20_000), fc.option(fc.nat(20_000)), (length, a, b) => {
        const range = parseRange(`bytes=${a}-${b ?? ""}`, length)
        if (range._tag === "Partial") return range.start >= 0 && range.start <= range.end && range.end < length
        return true
      }),
    )
  })
})
