import { describe, expect, it } from "vitest"
import {
  dbToLinear,
  elementVolume,
  isReplayGainMode,
  type ReplayGainTags,
  replayGainFor,
  resolveReplayGainMode,
} from "../../src/state/replayGain.js"

/** The web player's ReplayGain rule (issue 31 item 7): pure, no browser. */
const tags = (partial: Partial<ReplayGainTags>): ReplayGainTags => ({
  track_gain_db: null,
  track_peak: null,
  album_gain_db: null,
  album_peak: null,
  ...partial,
})

describe("replay gain rule", () => {
  it("off plays every track at its own level", () => {
    const gain = replayGainFor(tags({ track_gain_db: -6, track_peak: 0.9, album_gain_db: -3, album_peak: 0.95 }), "off")
    expect(gain).toEqual({ mode: "off", kind: "none", gainDb: null, peak: null, scale: 1, limited: false })
  })

  it("track mode applies the track gain as a linear factor", () => {
    const gain = replayGainFor(
      tags({ track_gain_db: -6, track_peak: 0.9, album_gain_db: -3, album_peak: 0.95 }),
      "track",
    )
    expect(gain.kind).toBe("track")
    expect(gain.gainDb).toBe(-6)
    expect(gain.scale).toBeCloseTo(10 ** (-6 / 20), 10)
    expect(gain.limited).toBe(false)
  })

  it("album mode applies the album gain", () => {
    const gain = replayGainFor(
      tags({ track_gain_db: -6, track_peak: 0.9, album_gain_db: -3, album_peak: 0.95 }),
      "album",
    )
    expect(gain.kind).toBe("album")
    expect(gain.scale).toBeCloseTo(dbToLinear(-3), 10)
  })

  it("replay gain: album mode applies album gain, never above peak", () => {
    // −1 dB would be ×0.891, but a peak of 1.25 allows at most ×0.8 without clipping.
    const gain = replayGainFor(
      tags({ track_gain_db: -6, track_peak: 0.9, album_gain_db: -1, album_peak: 1.25 }),
      "album",
    )
    expect(gain.kind).toBe("album")
    expect(gain.limited).toBe(true)
    expect(gain.scale).toBeCloseTo(0.8, 10)
    expect(1.25 * gain.scale).toBeLessThanOrEqual(1)
  })

  it("a boost is limited so that peak × gain ≤ 1", () => {
    const gain = replayGainFor(tags({ track_gain_db: 10, track_peak: 0.5 }), "track")
    expect(gain.limited).toBe(true)
    expect(gain.scale).toBeCloseTo(2, 10)
    // A boost that stays under the peak's limit is applied whole.
    const small = replayGainFor(tags({ track_gain_db: 4, track_peak: 0.5 }), "track")
    expect(small.limited).toBe(false)
    expect(small.scale).toBeCloseTo(dbToLinear(4), 10)
  })

  it("with no peak tagged, the gain never goes above 0 dB; cuts still apply", () => {
    const boost = replayGainFor(tags({ track_gain_db: 5 }), "track")
    expect(boost).toMatchObject({ kind: "track", peak: null, scale: 1, limited: true })
    const cut = replayGainFor(tags({ track_gain_db: -8 }), "track")
    expect(cut.scale).toBeCloseTo(dbToLinear(-8), 10)
    expect(cut.limited).toBe(false)
    // A zero or negative peak is junk: treated as unknown.
    expect(replayGainFor(tags({ track_gain_db: 5, track_peak: 0 }), "track").scale).toBe(1)
  })

  it("falls back to the other gain when the mode's own is untagged, with its peak", () => {
    const albumOnly = replayGainFor(tags({ album_gain_db: -4, album_peak: 0.7 }), "track")
    expect(albumOnly).toMatchObject({ kind: "album", gainDb: -4, peak: 0.7 })
    const trackOnly = replayGainFor(tags({ track_gain_db: -2, track_peak: 0.6 }), "album")
    expect(trackOnly).toMatchObject({ kind: "track", gainDb: -2, peak: 0.6 })
    // The album gain with only the track's peak tagged: the track's own peak bounds it.
    const mixed = replayGainFor(tags({ album_gain_db: 6, track_peak: 0.8 }), "album")
    expect(mixed).toMatchObject({ kind: "album", peak: 0.8, limited: true })
    expect(mixed.scale).toBeCloseTo(1.25, 10)
  })

  it("an untagged track plays at its own level in every mode", () => {
    for (const mode of ["track", "album"] as const)
      expect(replayGainFor(tags({ track_peak: 0.5 }), mode)).toMatchObject({ kind: "none", scale: 1, limited: false })
  })

  it("auto is album gain when an album plays in order from its page, else track gain", () => {
    const album = "a1"
    expect(resolveReplayGainMode("auto", { source: `album:${album}`, shuffled: false, albumId: album })).toBe("album")
    expect(resolveReplayGainMode("auto", { source: `album:${album}`, shuffled: true, albumId: album })).toBe("track")
    // A track added to an album's queue from elsewhere is not part of that album.
    expect(resolveReplayGainMode("auto", { source: "album:other", shuffled: false, albumId: album })).toBe("track")
    for (const source of [undefined, "playlist:p1", "artist:x", "for_you", "radio:r"])
      expect(resolveReplayGainMode("auto", { source, shuffled: false, albumId: album })).toBe("track")
    for (const mode of ["off", "track", "album"] as const)
      expect(resolveReplayGainMode(mode, { source: `album:${album}`, shuffled: false, albumId: album })).toBe(mode)
  })

  it("the element's volume is the listener's volume times the gain, never above 1", () => {
    expect(elementVolume(1, 0.5)).toBeCloseTo(0.5, 10)
    expect(elementVolume(0.5, 0.5)).toBeCloseTo(0.25, 10)
    // A boost is applied as far as the listener's volume leaves room for it.
    expect(elementVolume(0.5, 1.5)).toBeCloseTo(0.75, 10)
    expect(elementVolume(1, 1.5)).toBe(1)
    expect(elementVolume(0, 2)).toBe(0)
    expect(elementVolume(Number.NaN, 1)).toBe(0)
  })

  it("stored settings are read back only when they are a mode", () => {
    for (const mode of ["off", "track", "album", "auto"]) expect(isReplayGainMode(mode)).toBe(true)
    for (const junk of [null, "", "loud", 1]) expect(isReplayGainMode(junk)).toBe(false)
  })
})
