import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import {
  clampPlayedMs,
  completionOf,
  DEVICE_CLASSES,
  isSkip,
  normalizeDeviceClass,
} from "../src/listening/playRules.js"

describe("skip rule (duration < 30000 ms AND < 0.5 × track length)", () => {
  it("a 4-minute track stopped at 20 s is a skip", () => {
    expect(isSkip(20_000, 240_000)).toBe(true)
  })

  it("a 4-minute track stopped at 40 s is not a skip (30 s threshold passed)", () => {
    expect(isSkip(40_000, 240_000)).toBe(false)
  })

  it("a 50 s track stopped at 26 s is not a skip (half the track passed)", () => {
    expect(isSkip(26_000, 50_000)).toBe(false)
    expect(isSkip(24_000, 50_000)).toBe(true)
  })

  it("the thresholds are strict: exactly 30000 ms or exactly half is not a skip", () => {
    expect(isSkip(30_000, 600_000)).toBe(false)
    expect(isSkip(10_000, 20_000)).toBe(false)
    expect(isSkip(29_999, 600_000)).toBe(true)
  })

  it("durations are clamped to [0, track length] first", () => {
    expect(clampPlayedMs(-5, 1000)).toBe(0)
    expect(clampPlayedMs(5000, 1000)).toBe(1000)
    expect(isSkip(-5, 240_000)).toBe(true)
  })

  it.effect.prop(
    "a skip is exactly the AND of both thresholds",
    [fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 })],
    ([played, length]) =>
      Effect.sync(() => {
        const clamped = Math.min(played, length)
        expect(isSkip(played, length)).toBe(clamped < 30_000 && clamped < 0.5 * length)
      }),
  )
})

describe("completion", () => {
  it("is played / length, clamped to [0, 1]", () => {
    expect(completionOf(120_000, 240_000)).toBe(0.5)
    expect(completionOf(300_000, 240_000)).toBe(1)
  })

  it("a started play with no end, or a track of unknown length, has no completion value", () => {
    expect(completionOf(null, 240_000)).toBeNull()
    expect(completionOf(1000, 0)).toBeNull()
  })
})

describe("device class normalisation", () => {
  it("stores whitelisted values lowercase, matched case-insensitively", () => {
    expect(normalizeDeviceClass("Mobile")).toBe("mobile")
    expect(normalizeDeviceClass(" WEB ")).toBe("web")
    for (const known of DEVICE_CLASSES) expect(normalizeDeviceClass(known.toUpperCase())).toBe(known)
  })

  it("stores any other non-empty value as other", () => {
    expect(normalizeDeviceClass("fridge")).toBe("other")
    expect(normalizeDeviceClass("smartwatch")).toBe("other")
  })

  it("stores an empty or absent value as null", () => {
    expect(normalizeDeviceClass("")).toBeNull()
    expect(normalizeDeviceClass("   ")).toBeNull()
    expect(normalizeDeviceClass(null)).toBeNull()
    expect(normalizeDeviceClass(undefined)).toBeNull()
  })
})
