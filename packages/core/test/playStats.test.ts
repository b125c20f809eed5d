import { describe, expect, it } from "@effect/vitest"
import { type PlayStat, rankLastPlayed, rankMostPlayed } from "../src/listening/playStats.js"

const stat = (id: string, plays: number, lastPlayedMs: number, lastUnskippedMs: number | null): PlayStat => ({
  id,
  plays,
  lastPlayedMs,
  lastUnskippedMs,
})

describe("Home's listening sections: most played and last played", () => {
  const stats = [
    stat("c", 2, 500, 300),
    stat("a", 2, 400, 400),
    stat("b", 5, 100, 100),
    stat("skipped-only", 0, 900, null),
    stat("d", 2, 400, 400),
  ]

  it("most played: unskipped plays first, then the latest unskipped play, then id; skips alone do not count", () => {
    expect(rankMostPlayed(stats)).toEqual(["b", "a", "d", "c"])
  })

  it("last played: the latest play of any kind (a skip too) first, then id", () => {
    expect(rankLastPlayed(stats)).toEqual(["skipped-only", "c", "a", "d", "b"])
  })

  it("leaves the caller's stats as they were", () => {
    const before = stats.map((entry) => entry.id)
    rankMostPlayed(stats)
    rankLastPlayed(stats)
    expect(stats.map((entry) => entry.id)).toEqual(before)
  })
})
