import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  isValidArtSource,
  mergeTags,
  missingManagerDefaults,
  nextRequestSlot,
  PROVIDERS,
  resolveProfileId,
  retryDecision,
  trackTagsOf,
  weightTags,
} from "../src/index.js"

describe("provider registry (art sources are free-form strings checked against it)", () => {
  it("knows the tag providers and the cover providers, external and local", () => {
    expect(PROVIDERS.map((provider) => provider.id)).toEqual([
      "musicbrainz",
      "lastfm",
      "listenbrainz",
      "coverartarchive",
      "sidecar",
      "embedded",
    ])
    for (const source of ["sidecar", "embedded", "coverartarchive", "lastfm"])
      expect(isValidArtSource(source)).toBe(true)
    for (const source of ["", null, undefined, "musicbrainz", "somewhere"]) expect(isValidArtSource(source)).toBe(false)
  })
})

describe("weightTags: a provider's counts as weights in (0, 1]", () => {
  it("scales to the strongest, drops noise, empties and weak tags, merges spellings", () => {
    expect(
      weightTags([
        { name: "Shoegaze", count: 10 },
        { name: "shoegaze", count: 4 },
        { name: "seen live", count: 50 },
        { name: " ", count: 3 },
        { name: "dream pop", count: 5 },
        { name: "obscure", count: 0.2 },
      ]),
    ).toEqual([
      { name: "Shoegaze", weight: 1 },
      { name: "dream pop", weight: 0.5 },
    ])
    expect(weightTags([])).toEqual([])
  })

  it("every weight is in (0, 1] and the strongest is 1", () =>
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ name: fc.string({ minLength: 1, maxLength: 8 }), count: fc.integer({ min: 1, max: 100 }) }),
        ),
        (raw) => {
          const tags = weightTags(raw)
          for (const tag of tags) expect(tag.weight > 0 && tag.weight <= 1).toBe(true)
          if (tags.length > 0) expect(tags[0]!.weight).toBe(1)
        },
      ),
    ))
})

describe("trackTagsOf: a track carries its album's tags merged with its artist's", () => {
  const rows = [
    { album_id: null, artist_id: "artist-1", tag: "Rock", weight: 0.5 },
    { album_id: null, artist_id: "artist-1", tag: "melancholic", weight: 0.3 },
    { album_id: "album-1", artist_id: null, tag: "rock", weight: 0.9 },
    { album_id: "album-1", artist_id: null, tag: "live", weight: 0.2 },
    { album_id: "album-2", artist_id: null, tag: "jazz", weight: 1 },
  ]
  it("merges the album's tags over the artist's, strongest weight per tag, strongest first", () => {
    const tagsOf = trackTagsOf(rows)
    expect(tagsOf("artist-1", "album-1")).toEqual([
      { name: "Rock", weight: 0.9 },
      { name: "melancholic", weight: 0.3 },
      { name: "live", weight: 0.2 },
    ])
    expect(tagsOf("artist-2", "album-2")).toEqual([{ name: "jazz", weight: 1 }])
    expect(tagsOf("artist-3", "album-3")).toEqual([])
  })
  it("answers one list per artist and album pair (shared by that pair's tracks)", () => {
    const tagsOf = trackTagsOf(rows)
    expect(tagsOf("artist-1", "album-1")).toBe(tagsOf("artist-1", "album-1"))
    expect(tagsOf("artist-1", "album-2")).not.toBe(tagsOf("artist-1", "album-1"))
  })
})

describe("mergeTags: several providers' tags as one list", () => {
  it("keeps the strongest weight per tag, case-insensitively, strongest first", () => {
    expect(
      mergeTags([
        [
          { name: "Rock", weight: 0.4 },
          { name: "melancholic", weight: 1 },
        ],
        [{ name: "rock", weight: 0.9 }],
      ]),
    ).toEqual([
      { name: "melancholic", weight: 1 },
      { name: "Rock", weight: 0.9 },
    ])
  })
})

describe("retryDecision: 503 or garbage is retried with backoff, then failed", () => {
  const policy = { baseMs: 100, maxMs: 1000, maxAttempts: 5 }
  it("doubles from the base, capped, and fails at the last attempt", () => {
    expect([1, 2, 3, 4].map((attempts) => retryDecision(attempts, policy))).toEqual([
      { _tag: "Retry", delayMs: 100 },
      { _tag: "Retry", delayMs: 200 },
      { _tag: "Retry", delayMs: 400 },
      { _tag: "Retry", delayMs: 800 },
    ])
    expect(retryDecision(5, policy)).toEqual({ _tag: "Fail" })
    expect(retryDecision(5, { ...policy, maxAttempts: 9 })).toEqual({ _tag: "Retry", delayMs: 1000 })
  })
})

describe("nextRequestSlot: the per-provider request throttle", () => {
  it("starts now when idle, else no sooner than the previous start plus the interval", () => {
    expect(nextRequestSlot(undefined, 1000, 5)).toBe(5)
    expect(nextRequestSlot(0, 1000, 300)).toBe(1000)
    expect(nextRequestSlot(0, 1000, 4000)).toBe(4000)
  })

  it("any run of requests is spaced at least the interval apart", () =>
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 2 }),
        fc.integer({ min: 1, max: 1000 }),
        (waits, interval) => {
          let now = 0
          let last: number | undefined
          const starts: Array<number> = []
          for (const wait of waits) {
            now += wait
            last = nextRequestSlot(last, interval, now)
            starts.push(last)
            now = Math.max(now, last)
          }
          for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(interval)
        },
      ),
    ))
})

describe("the manager's defaults (missing_defaults) and profile resolution", () => {
  it("names each missing default", () => {
    expect(missingManagerDefaults({ root_folder_path: " ", quality_profile_id: null, metadata_profile_id: 2 })).toEqual(
      ["root_folder_path", "quality_profile_id"],
    )
    expect(
      missingManagerDefaults({ root_folder_path: "/music", quality_profile_id: 1, metadata_profile_id: 2 }),
    ).toEqual([])
  })

  it("keeps a configured profile the manager still has, else takes its first", () => {
    expect(resolveProfileId(4, [1, 4])).toBe(4)
    expect(resolveProfileId(9, [2, 3])).toBe(2)
    expect(resolveProfileId(9, [])).toBeUndefined()
  })
})
