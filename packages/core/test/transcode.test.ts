import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import fc from "fast-check"
import { clampBitrate, decideStream, ffmpegArguments, TRANSCODE_BITRATES, TranscodeParams } from "../src/index.js"

const flac = { format: "flac", bitrateKbps: 900 }
const mp3At128 = { format: "mp3", bitrateKbps: 128 }
const decode = Schema.decodeUnknownEither(TranscodeParams)

describe("transcoding rules", () => {
  it("format=raw always serves the original", () => {
    expect(decideStream({ format: "raw", maxBitRate: 64, timeOffset: 30 }, flac, true)).toEqual({
      _tag: "Original",
      reason: "raw",
    })
  })

  it("without ffmpeg the original is served", () => {
    expect(decideStream({ format: "mp3", maxBitRate: 64 }, flac, false)).toEqual({
      _tag: "Original",
      reason: "no_ffmpeg",
    })
  })

  it("no options: the original", () => {
    expect(decideStream({}, flac, true)._tag).toBe("Original")
  })

  it("mp3 at 64 kbit/s from flac transcodes at 64", () => {
    expect(decideStream({ format: "mp3", maxBitRate: 64 }, flac, true)).toEqual({
      _tag: "Transcode",
      format: "mp3",
      bitrateKbps: 64,
      offsetSeconds: 0,
    })
  })

  it("an original already in the format and within maxBitRate is served as is", () => {
    expect(decideStream({ format: "mp3", maxBitRate: 192 }, mp3At128, true)).toEqual({
      _tag: "Original",
      reason: "fits",
    })
    expect(decideStream({ format: "mp3", maxBitRate: 0 }, mp3At128, true)._tag).toBe("Original")
    expect(decideStream({ format: "mp3", maxBitRate: 96 }, mp3At128, true)._tag).toBe("Transcode")
    // An unknown bit rate cannot be proven within the limit.
    expect(decideStream({ format: "mp3", maxBitRate: 96 }, { format: "mp3", bitrateKbps: null }, true)._tag).toBe(
      "Transcode",
    )
  })

  it("maxBitRate alone transcodes to mp3 only when the original is above it (Subsonic)", () => {
    expect(decideStream({ maxBitRate: 128 }, flac, true)).toMatchObject({ _tag: "Transcode", format: "mp3" })
    expect(decideStream({ maxBitRate: 320 }, mp3At128, true)._tag).toBe("Original")
  })

  it("a timeOffset transcodes (a byte range cannot seek), to mp3 when no format is asked", () => {
    expect(decideStream({ timeOffset: 30 }, mp3At128, true)).toEqual({
      _tag: "Transcode",
      format: "mp3",
      bitrateKbps: 192,
      offsetSeconds: 30,
    })
    expect(decideStream({ format: "opus", timeOffset: 12.5 }, flac, true)).toMatchObject({ offsetSeconds: 12.5 })
  })

  it("maxBitRate is clamped to the encoder's range; 0 means the format's default", () => {
    expect(clampBitrate("mp3", 8)).toBe(32)
    expect(clampBitrate("mp3", 1000)).toBe(320)
    expect(clampBitrate("mp3", 0)).toBe(192)
    expect(clampBitrate("opus", 8)).toBe(16)
    expect(clampBitrate("opus", 1000)).toBe(256)
    expect(clampBitrate("opus", undefined)).toBe(128)
    fc.assert(
      fc.property(fc.constantFrom("mp3" as const, "opus" as const), fc.integer({ min: 1, max: 100_000 }), (f, n) => {
        const rate = clampBitrate(f, n)
        return rate >= TRANSCODE_BITRATES[f].min && rate <= TRANSCODE_BITRATES[f].max
      }),
    )
  })

  it("ffmpeg seeks before -i, writes mp3 or Ogg Opus to stdout", () => {
    const mp3 = ffmpegArguments("/music/a.flac", {
      _tag: "Transcode",
      format: "mp3",
      bitrateKbps: 64,
      offsetSeconds: 30,
    })
    expect(mp3.indexOf("-ss")).toBeLessThan(mp3.indexOf("-i"))
    expect(mp3[mp3.indexOf("-ss") + 1]).toBe("30")
    expect(mp3[mp3.indexOf("-i") + 1]).toBe("/music/a.flac")
    expect(mp3).toEqual(expect.arrayContaining(["libmp3lame", "64k", "mp3"]))
    expect(mp3.at(-1)).toBe("pipe:1")
    const opus = ffmpegArguments("/music/a.flac", {
      _tag: "Transcode",
      format: "opus",
      bitrateKbps: 96,
      offsetSeconds: 0,
    })
    expect(opus).not.toContain("-ss")
    expect(opus).toEqual(expect.arrayContaining(["libopus", "96k", "ogg"]))
  })

  it("query parameters: valid values decode, bad ones are rejected", () => {
    expect(decode({ format: "opus", maxBitRate: "96", timeOffset: "12.5" })).toEqual(
      Either.right({ format: "opus", maxBitRate: 96, timeOffset: 12.5 }),
    )
    for (const bad of [{ format: "wma" }, { maxBitRate: "-1" }, { maxBitRate: "fast" }, { timeOffset: "-3" }]) {
      expect(Either.isLeft(decode(bad))).toBe(true)
    }
  })
})
