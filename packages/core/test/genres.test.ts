import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { hasGenre, splitGenres } from "../src/library/genres.js"

describe("genre rule", () => {
  it("1. splits on ; and , and trims each fragment", () => {
    expect(splitGenres("Rock;Pop")).toEqual(["Rock", "Pop"])
    expect(splitGenres(" Jazz ,  Soul ; Funk ")).toEqual(["Jazz", "Soul", "Funk"])
  })

  it("drops empty fragments and gives nothing for null or blank text", () => {
    expect(splitGenres(null)).toEqual([])
    expect(splitGenres("")).toEqual([])
    expect(splitGenres(" ;, ;")).toEqual([])
    expect(splitGenres("Rock;;Pop,")).toEqual(["Rock", "Pop"])
  })

  it("2. does no case folding: Rock and rock are separate genres", () => {
    expect(splitGenres("Rock; rock")).toEqual(["Rock", "rock"])
  })

  it("3. a slash is not a delimiter: Rock/Pop is one genre", () => {
    expect(splitGenres("Rock/Pop")).toEqual(["Rock/Pop"])
    expect(splitGenres("Rock/Pop; Rock")).toEqual(["Rock/Pop", "Rock"])
  })

  it("4. a track with Rock;Pop is reachable from both genres", () => {
    expect(hasGenre("Rock;Pop", "Rock")).toBe(true)
    expect(hasGenre("Rock;Pop", "Pop")).toBe(true)
    expect(hasGenre("Rock;Pop", "rock")).toBe(false)
    expect(hasGenre("Rock/Pop", "Rock")).toBe(false)
  })

  it("a genre repeated in one text counts once for that track", () => {
    expect(splitGenres("Rock; Rock ,Rock")).toEqual(["Rock"])
  })

  it("a multi-valued tag joined with '; ' splits back into its values (contract)", () => {
    expect(splitGenres(["Hip-Hop", "R&B"].join("; "))).toEqual(["Hip-Hop", "R&B"])
  })

  it.effect.prop("split genres are trimmed, non-empty, distinct and free of delimiters", [Schema.String], ([raw]) =>
    Effect.sync(() => {
      const genres = splitGenres(raw)
      for (const genre of genres) {
        expect(genre.length).toBeGreaterThan(0)
        expect(genre).toBe(genre.trim())
        expect(genre).not.toMatch(/[;,]/)
      }
      expect(new Set(genres).size).toBe(genres.length)
    }),
  )

  it.effect.prop("5. every split genre matches its own filter", [Schema.String], ([raw]) =>
    Effect.sync(() => {
      for (const genre of splitGenres(raw)) expect(hasGenre(raw, genre)).toBe(true)
    }),
  )
})
