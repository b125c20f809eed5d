import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { discoverArtistCap, rebuildSystemSnapshots } from "../src/index.js"
import {
  artistSimilarity,
  groupShareCap,
  largestGroupShare,
  mixPlayOrder,
  mmrRerank,
  preferUnshown,
  repeatedLists,
  sameItems,
} from "../src/surfaces/diversity.js"
import { atTime, gridCatalog, play, surfaceInput } from "./fixtures.js"

/** Items as [artist, relevance]. */
type Item = readonly [artist: number, relevance: number]
const sameArtist = (a: Item, b: Item) => (a[0] === b[0] ? 1 : 0)

describe("diversity", () => {
  it("groupShareCap: 10% of a 100-track deck is 10 per artist, never below 1", () => {
    expect(groupShareCap(100, 0.1)).toBe(10)
    expect(groupShareCap(37, 0.1)).toBe(3)
    expect(groupShareCap(5, 0.1)).toBe(1)
  })

  it("mmrRerank with lambda 1 keeps the relevance order", () => {
    const items: Array<Item> = [
      [1, 0.9],
      [1, 0.8],
      [2, 0.7],
      [1, 0.6],
    ]
    expect(mmrRerank(items, { relevance: (i) => i[1], similarity: sameArtist, size: 4, lambda: 1 })).toEqual(items)
  })

  it("mmrRerank moves a second track of the same artist below a close other artist", () => {
    const items: Array<Item> = [
      [1, 1.0],
      [1, 0.95],
      [1, 0.9],
      [2, 0.8],
      [3, 0.7],
    ]
    const out = mmrRerank(items, { relevance: (i) => i[1], similarity: sameArtist, size: 5, lambda: 0.5 })
    expect(out.slice(0, 3).map((i) => i[0])).toEqual([1, 2, 3])
    expect(out).toHaveLength(5)
  })

  it("mmrRerank never exceeds the hard group cap, even when only capped groups remain", () => {
    const items: Array<Item> = Array.from({ length: 30 }, (_, k) => [k < 25 ? 1 : k, 1 - k / 100] as const)
    const out = mmrRerank(items, {
      relevance: (i) => i[1],
      similarity: sameArtist,
      size: 20,
      groupOf: (i) => i[0],
      groupCap: 2,
    })
    expect(out.filter((i) => i[0] === 1)).toHaveLength(2)
    expect(out).toHaveLength(7)
  })

  it("preferUnshown shows an already-shown item only when nothing else is eligible", () => {
    expect(preferUnshown(["a", "b", "c", "d"], new Set(["a", "b"]), 2)).toEqual(["c", "d"])
    expect(preferUnshown(["a", "b", "c", "d"], new Set(["a", "b"]), 3)).toEqual(["c", "d", "a"])
    expect(preferUnshown(["a", "b"], new Set(["a", "b"]), 10)).toEqual(["a", "b"])
  })

  it("two mixes of one user are never the same list: a later list with the same items is flagged", () => {
    expect(sameItems([1, 2], [2, 1])).toBe(true)
    expect(sameItems([1, 2], [1, 2, 3])).toBe(false)
    expect([...repeatedLists([[1, 2], [], [3], [2, 1], [], [3, 4]])]).toEqual([3])
  })

  it("largestGroupShare measures the biggest artist's share", () => {
    expect(largestGroupShare([1, 1, 2, 3], (x) => x)).toBe(0.5)
    expect(largestGroupShare([], (x) => x)).toBe(0)
  })

  it.effect("On repeat and Rediscover are never the same list: Rediscover is withheld when it would repeat it", () =>
    Effect.gen(function* () {
      const catalog = gridCatalog(10, 5)
      // Two tracks, four plays each in the last ten days: both On repeat and both Rediscover-eligible.
      const plays = [0, 1].flatMap((n) => [1, 3, 6, 9].map((days) => play(n, days)))
      const { surfaces } = yield* atTime(rebuildSystemSnapshots(surfaceInput(catalog, plays)))
      const onRepeat = surfaces.find((s) => s.variant === "on_repeat")!
      const rediscover = surfaces.find((s) => s.variant === "rediscover")!
      expect(onRepeat.picks).toHaveLength(2)
      expect(rediscover).toEqual({ variant: "rediscover", picks: [], withheld: true })
    }),
  )

  it.effect("Rediscover puts tracks already On repeat last when other tracks are eligible", () =>
    Effect.gen(function* () {
      const catalog = gridCatalog(10, 5)
      const plays = [
        ...[0, 1].flatMap((n) => [1, 3, 6, 9].map((days) => play(n, days))),
        ...[10, 11].flatMap((n) => [40, 50, 60].map((days) => play(n, days))),
      ]
      const { surfaces } = yield* atTime(rebuildSystemSnapshots(surfaceInput(catalog, plays)))
      const ids = (variant: string) => surfaces.find((s) => s.variant === variant)!.picks.map((p) => p.track_id)
      const onRepeat = new Set(ids("on_repeat"))
      const rediscover = ids("rediscover")
      expect(rediscover).toHaveLength(4)
      expect(rediscover.slice(0, 2).some((id) => onRepeat.has(id))).toBe(false)
      expect(rediscover.slice(2).every((id) => onRepeat.has(id))).toBe(true)
    }),
  )

  it("the Discover artist cap is 10 of 100, or an even share when fewer than ten artists have open tracks", () => {
    const artists = (n: number) => Int32Array.from({ length: 200 }, (_, t) => t % n)
    const open = new Uint8Array(200).fill(1)
    expect(discoverArtistCap(artists(40), open)).toBe(10)
    expect(discoverArtistCap(artists(10), open)).toBe(10)
    expect(discoverArtistCap(artists(3), open)).toBe(34)
    expect(discoverArtistCap(artists(1), open)).toBe(100)
  })

  it("a daily mix's play order (MMR over the last 4, then no artist back to back) keeps its tracks and parts alike artists", () => {
    // 8 artists, genres Rock, Jazz, Techno, Folk by artist (0 and 4 alike, 1 and 5 …); the tier interleave
    // gave the rock and jazz artists in runs.
    const catalog = gridCatalog(8, 4)
    const track = (artist: number, k: number) => ({ item: artist * 4 + k, kind: "tier1" as const })
    const mixed = [0, 4, 0, 4, 1, 5, 1, 5, 2, 6, 3, 7].map((artist, i) => track(artist, i % 4))
    const ordered = mixPlayOrder(catalog, mixed)
    expect([...ordered].sort((a, b) => a.item - b.item)).toEqual([...mixed].sort((a, b) => a.item - b.item))
    const similar = artistSimilarity(catalog)
    const alikeNeighbours = (list: ReadonlyArray<{ readonly item: number }>) =>
      list
        .slice(1)
        .filter((entry, i) => similar(catalog.trackArtist[entry.item]!, catalog.trackArtist[list[i]!.item]!) > 0.5)
        .length
    expect(alikeNeighbours(ordered)).toBeLessThan(alikeNeighbours(mixed))
    ordered.slice(1).forEach((entry, i) => {
      expect(catalog.trackArtist[entry.item]).not.toBe(catalog.trackArtist[ordered[i]!.item])
    })
  })

  it("mmrRerank with a window compares with the last picks only", () => {
    const items: ReadonlyArray<Item> = [
      [1, 10],
      [1, 9],
      [2, 8],
      [3, 7],
    ]
    // Window 1: after 1 and 2, artist 1 is no longer near, so its second item comes before artist 3's.
    expect(
      mmrRerank(items, { relevance: (i) => i[1], similarity: sameArtist, size: 4, window: 1, lambda: 0.5 }),
    ).toEqual([
      [1, 10],
      [2, 8],
      [1, 9],
      [3, 7],
    ])
  })
})
