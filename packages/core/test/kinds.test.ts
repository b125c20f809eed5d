import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ArtistId } from "../src/ids.js"
import {
  dailyMixVariant,
  familyOfSource,
  isSingletonKind,
  isSystemVariant,
  PickKind,
  SystemVariant,
  songsLikeArtistVariant,
} from "../src/recommendations/kinds.js"

const artist = ArtistId.make("7d5a3c1e-0b8f-4b8e-9c1d-2f3a4b5c6d7e")

describe("pick kinds", () => {
  it("are the nine values of the pick-kind table", () => {
    for (const kind of [
      "taste",
      "fresh",
      "taste_unheard",
      "dormant",
      "cross_user",
      "random",
      "tier1",
      "tier2",
      "tier3",
    ])
      expect(Schema.is(PickKind)(kind)).toBe(true)
    expect(Schema.is(PickKind)("tier4")).toBe(false)
  })
})

describe("system kinds", () => {
  it("accepts every contract kind and nothing else", () => {
    for (const kind of ["for_you", "discover", "new_for_you", "first_listens", "rediscover", "on_repeat"])
      expect(isSystemVariant(kind)).toBe(true)
    expect(isSystemVariant(dailyMixVariant(1))).toBe(true)
    expect(isSystemVariant("daily_mix:6")).toBe(true)
    expect(isSystemVariant("daily_mix:7")).toBe(false)
    expect(isSystemVariant(songsLikeArtistVariant(artist))).toBe(true)
    expect(isSystemVariant("songs_like_artist:not-a-uuid")).toBe(false)
    expect(isSystemVariant("radio")).toBe(false)
    expect(Schema.decodeUnknownSync(SystemVariant)("daily_mix:3")).toBe("daily_mix:3")
  })

  it("only for_you and discover are singletons", () => {
    expect(isSingletonKind("for_you")).toBe(true)
    expect(isSingletonKind("discover")).toBe(true)
    expect(isSingletonKind("songs_like_artist")).toBe(false)
    expect(isSingletonKind("daily_mix:1")).toBe(false)
  })
})

describe("metrics families", () => {
  it("map sources as the contract lists them", () => {
    expect(familyOfSource(null)).toBe("baseline")
    for (const source of ["daily_mix:1", "daily_mix:6", "on_repeat", "rediscover"])
      expect(familyOfSource(source)).toBe("go_to")
    for (const source of ["for_you", "discover", "new_for_you", "first_listens", songsLikeArtistVariant(artist)])
      expect(familyOfSource(source)).toBe("discovery")
    for (const source of [`album:${artist}`, `artist:${artist}`, `playlist:${artist}`])
      expect(familyOfSource(source)).toBe("direct")
    expect(familyOfSource(`radio:${artist}`)).toBe("radio")
    expect(familyOfSource("somewhere")).toBeUndefined()
  })
})
