import { describe, expect, it } from "vitest"
import {
  type CanPlay,
  crossfadeSeconds,
  fadeLevels,
  fallbackChoice,
  firstChoice,
  parseCrossfade,
  recoverDrop,
  streamOptions,
  transcodeTarget,
} from "../../src/state/playbackFormat.js"

/** The web player's stream and crossfade rules (issue 25 items 4 and 5): pure, the browser's answers as data. */
const browser =
  (...playable: ReadonlyArray<string>): CanPlay =>
  (mime) =>
    playable.includes(mime)
const OPUS = 'audio/ogg; codecs="opus"'
/** Chromium: mp3, AAC/ALAC's container, FLAC, Ogg (Vorbis, Opus), WAV. */
const chromium = browser("audio/mpeg", "audio/mp4", "audio/aac", "audio/flac", "audio/ogg", OPUS, "audio/wav")
/** An older Safari: no Ogg at all. */
const noOgg = browser("audio/mpeg", "audio/mp4", "audio/aac", "audio/flac", "audio/wav")

describe("which stream a track asks for", () => {
  it("plays the original of a format the browser can play", () => {
    for (const format of ["mp3", "flac", "ogg", "opus", "m4a", "wav", "FLAC "]) {
      expect(firstChoice(format, chromium)).toBe("original")
    }
  })

  it("transcodes a format the browser cannot play: opus where it plays Ogg Opus, else mp3", () => {
    expect(firstChoice("ogg", noOgg)).toBe("mp3")
    expect(firstChoice("opus", noOgg)).toBe("mp3")
    expect(transcodeTarget(chromium)).toBe("opus")
    expect(transcodeTarget(noOgg)).toBe("mp3")
  })

  it("transcodes a format no browser is asked about (wma, ape, aiff…)", () => {
    expect(firstChoice("wma", chromium)).toBe("opus")
    expect(firstChoice("ape", noOgg)).toBe("mp3")
    expect(firstChoice("", chromium)).toBe("opus")
  })

  it("falls back once from a failed original to a transcode (ALAC in .m4a, ADPCM in .wav)", () => {
    expect(fallbackChoice("m4a", "original", chromium)).toBe("opus")
    expect(fallbackChoice("wav", "original", noOgg)).toBe("mp3")
  })

  it("falls back to the other format when the preferred one is the file's own codec (the server would resend it)", () => {
    expect(fallbackChoice("opus", "original", chromium)).toBe("mp3")
    expect(fallbackChoice("mp3", "original", chromium)).toBe("opus")
    expect(fallbackChoice("mp3", "original", noOgg)).toBeUndefined()
  })

  it("has no fallback after a transcode failed: the track is skipped", () => {
    expect(fallbackChoice("m4a", "opus", chromium)).toBeUndefined()
    expect(fallbackChoice("wav", "mp3", noOgg)).toBeUndefined()
  })

  it("asks the stream route for the format, and for an offset only when transcoding", () => {
    expect(streamOptions("original")).toEqual({})
    expect(streamOptions("original", 30)).toEqual({})
    expect(streamOptions("opus")).toEqual({ format: "opus" })
    expect(streamOptions("mp3", 12.34567)).toEqual({ format: "mp3", timeOffset: 12.346 })
  })
})

describe("a transcode cut off mid-way (issue 29)", () => {
  const cut = {
    choice: "opus",
    delivered: true,
    position: 130.5,
    duration: 900,
    reaskedAt: undefined,
    ended: false,
  } as const

  it("a transcode that played and then broke is asked again from the position reached", () => {
    expect(recoverDrop(cut)).toEqual({ _tag: "reask", at: 130.5 })
    // Broken again after getting further: asked again from there.
    expect(recoverDrop({ ...cut, position: 400, reaskedAt: 130.5 })).toEqual({ _tag: "reask", at: 400 })
  })

  it("a transcode that ends well before the track's length (its connection was cut) is asked again from there", () => {
    expect(recoverDrop({ ...cut, position: 716, ended: true })).toEqual({ _tag: "reask", at: 716 })
    // At the scanned length (an encoder's last frame may fall short of it): the track's end.
    expect(recoverDrop({ ...cut, position: 898.6, ended: true })).toEqual({ _tag: "finished" })
    // Length unknown: an end is an end.
    expect(recoverDrop({ ...cut, duration: 0, ended: true })).toEqual({ _tag: "finished" })
    // An original's end is its end.
    expect(recoverDrop({ ...cut, choice: "original", ended: true })).toEqual({ _tag: "finished" })
  })

  it("a re-asked transcode that breaks before getting a second further is given up", () => {
    expect(recoverDrop({ ...cut, reaskedAt: 130.5 })).toEqual({ _tag: "give_up" })
    expect(recoverDrop({ ...cut, position: 131.2, reaskedAt: 130.5 })).toEqual({ _tag: "give_up" })
    expect(recoverDrop({ ...cut, position: 131.2, reaskedAt: 130.5, ended: true })).toEqual({ _tag: "give_up" })
  })

  it("a stream that never delivered anything is a load failure, not a drop", () => {
    expect(recoverDrop({ ...cut, delivered: false, position: 0 })).toEqual({ _tag: "give_up" })
  })

  it("an original's failure is not a drop: it has its own fallback to a transcode", () => {
    expect(recoverDrop({ ...cut, choice: "original" })).toEqual({ _tag: "give_up" })
  })

  it("a break within the last two seconds is the track's end", () => {
    expect(recoverDrop({ ...cut, position: 899.2 })).toEqual({ _tag: "finished" })
    // Length unknown: an error is asked again.
    expect(recoverDrop({ ...cut, duration: 0 })).toEqual({ _tag: "reask", at: 130.5 })
  })
})

describe("crossfade", () => {
  const track = (album: string, seconds = 200) => ({ album_id: album, duration_ms: seconds * 1000 })

  it("is off by default and held to 0–12 whole seconds", () => {
    expect(parseCrossfade(null)).toBe(0)
    expect(parseCrossfade("junk")).toBe(0)
    expect(parseCrossfade("-3")).toBe(0)
    expect(parseCrossfade("6.4")).toBe(6)
    expect(parseCrossfade("40")).toBe(12)
  })

  it("fades between tracks of different albums by the setting", () => {
    expect(crossfadeSeconds(6, track("a"), track("b"))).toBe(6)
    expect(crossfadeSeconds(0, track("a"), track("b"))).toBe(0)
  })

  it("never fades between two tracks of one album: they play gapless", () => {
    expect(crossfadeSeconds(12, track("a"), track("a"))).toBe(0)
  })

  it("never fades into nothing, nor longer than half of either track", () => {
    expect(crossfadeSeconds(6, track("a"), undefined)).toBe(0)
    expect(crossfadeSeconds(12, track("a", 5), track("b"))).toBe(2.5)
    expect(crossfadeSeconds(12, track("a"), track("b", 8))).toBe(4)
  })

  it("keeps the sum of powers constant over the fade, both audible in between", () => {
    expect(fadeLevels(0)).toEqual({ out: 1, in: 0 })
    const middle = fadeLevels(0.5)
    expect(middle.out).toBeCloseTo(Math.SQRT1_2)
    expect(middle.in).toBeCloseTo(Math.SQRT1_2)
    for (const progress of [0.1, 0.3, 0.7, 0.9]) {
      const levels = fadeLevels(progress)
      expect(levels.out ** 2 + levels.in ** 2).toBeCloseTo(1)
    }
    expect(fadeLevels(2).out).toBeCloseTo(0)
    expect(fadeLevels(2).in).toBe(1)
  })
})
