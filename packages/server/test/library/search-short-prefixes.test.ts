import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import {
  SEARCH_CLOSEST_MIN_LETTERS,
  type SearchQueryText,
  searchMatches,
  searchQueryOf,
  searchTierOf,
} from "@tonearm/core"
import { Effect, Layer } from "effect"
import { LibraryService } from "../../src/library/LibraryService.js"
import {
  prefixEntriesOf,
  SHORT_PREFIX_KEEP,
  SHORT_PREFIX_LETTERS,
  ShortPrefixLimits,
  type ShortPrefixTable,
  shortPrefixIds,
  shortPrefixOf,
} from "../../src/library/shortPrefixes.js"
import { signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

const windows = (offset: number, limit: number) => ({
  artists: { offset, limit },
  albums: { offset, limit },
  tracks: { offset, limit },
})

describe("short prefixes answered ahead: which queries, which windows", () => {
  it("a short prefix is one word of at most two letters; it never falls back to the closest items", () => {
    expect(shortPrefixOf(searchQueryOf("Ne"), 2)).toBe("ne")
    expect(shortPrefixOf(searchQueryOf("é"), 2)).toBe("e")
    expect(shortPrefixOf(searchQueryOf("new"), 2)).toBeUndefined()
    expect(shortPrefixOf(searchQueryOf("a b"), 2)).toBeUndefined()
    expect(SHORT_PREFIX_LETTERS).toBeLessThan(SEARCH_CLOSEST_MIN_LETTERS)
  })

  it("answers from kept ids, an absent prefix with nothing, and leaves a rare prefix or a later page to the search", () => {
    const entries = prefixEntriesOf([
      { prefix: "ne", matches: 30, ids: Array.from({ length: SHORT_PREFIX_KEEP }, (_, i) => `n${i}`) },
      { prefix: "qu", matches: 3, ids: ["q0", "q1", "q2"] },
      { prefix: "zy", matches: 2, ids: null },
    ])
    const table: ShortPrefixTable = { version: "1", artists: entries, albums: new Map(), tracks: entries }
    expect(shortPrefixIds(table, "ne", windows(0, 3))?.tracks).toEqual(["n0", "n1", "n2"])
    expect(shortPrefixIds(table, "ne", windows(0, 3))?.albums).toEqual([])
    expect(shortPrefixIds(table, "ne", windows(15, 5))?.artists).toEqual(["n15", "n16", "n17", "n18", "n19"])
    // Past the kept ids of a prefix with more matches: only the search knows.
    expect(shortPrefixIds(table, "ne", windows(15, 10))).toBeUndefined()
    // Every match kept: any window is answered.
    expect(shortPrefixIds(table, "qu", windows(2, 50))?.tracks).toEqual(["q2"])
    expect(shortPrefixIds(table, "zy", windows(0, 20))).toBeUndefined()
    expect(shortPrefixIds(table, "xx", windows(0, 20))).toEqual({ artists: [], albums: [], tracks: [] })
    // A kind not asked for is not looked up.
    expect(
      shortPrefixIds(table, "zy", {
        ...windows(0, 20),
        artists: { offset: 0, limit: 0 },
        tracks: { offset: 0, limit: 0 },
      }),
    ).toEqual({ artists: [], albums: [], tracks: [] })
  })
})

const root = await syntheticLibrary(120, 5)

interface DocumentRow {
  readonly id: string
  readonly search_words: string
  readonly search_fields: string
}

/** The search rule written plainly on every stored document, in the tie order (as search-index.test.ts). */
const reference = (query: SearchQueryText, offset: number, limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ranked = (rows: ReadonlyArray<DocumentRow>) =>
      rows
        .filter((row) => searchMatches(query, row.search_words))
        .map((row) => ({ row, tier: searchTierOf(query, row.search_fields) }))
        .sort((a, b) => a.tier - b.tier)
        .slice(offset, offset + limit)
        .map(({ row }) => row.id)
    return {
      tracks: ranked(
        yield* sql<DocumentRow>`SELECT id, search_words, search_fields FROM tracks
          ORDER BY popularity DESC, search_key COLLATE "C", id`,
      ),
      albums: ranked(
        yield* sql<DocumentRow>`SELECT id, search_words, search_fields FROM albums
          ORDER BY popularity DESC, search_key COLLATE "C", id`,
      ),
      artists: ranked(
        yield* sql<DocumentRow>`SELECT id, search_words, search_fields FROM artists
          ORDER BY track_count DESC, sort_key COLLATE "C", id`,
      ),
    }
  })

// Ids kept for every prefix that matches at least 4 items (most of them here); the rarer ones are searched.
const limits = Layer.succeed(ShortPrefixLimits, {
  letters: SHORT_PREFIX_LETTERS,
  keep: SHORT_PREFIX_KEEP,
  minMatches: 4,
})

layer(TestServerLive({ libraryDir: root }).pipe(Layer.provide(limits)), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("short prefixes answered ahead", (it) => {
  it.effect(
    "search: every one- and two-letter prefix answers what the search rule answers, from the table made ahead",
    () =>
      Effect.gen(function* () {
        const admin = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        const sql = yield* SqlClient.SqlClient
        const library = yield* LibraryService
        yield* library.prepareShortPrefixes
        const present = yield* sql<{ prefix: string }>`
          SELECT DISTINCT left(w, n) AS prefix
          FROM (SELECT search_words FROM tracks UNION ALL SELECT search_words FROM albums
                UNION ALL SELECT search_words FROM artists) d,
               unnest(string_to_array(btrim(d.search_words), ' ')) w, generate_series(1, 2) n
          WHERE w <> ''`
        const prefixes = present.map((row) => row.prefix)
        expect(prefixes.length).toBeGreaterThan(50)
        const absent = ["qx", "zq", "xj"].filter((prefix) => !prefixes.includes(prefix))
        expect(absent.length).toBeGreaterThan(0)
        let nonEmpty = 0
        for (const q of [...prefixes, ...absent]) {
          for (const limit of [20, 3]) {
            const want = yield* reference(searchQueryOf(q), 0, limit)
            const found = yield* admin.client.library.search({ urlParams: { q, limit } })
            expect({ q, limit, tracks: found.tracks.map((track) => track.id as string) }).toEqual({
              q,
              limit,
              tracks: want.tracks,
            })
            expect({ q, limit, albums: found.albums.map((album) => album.id as string) }).toEqual({
              q,
              limit,
              albums: want.albums,
            })
            expect({ q, limit, artists: found.artists.map((artist) => artist.id as string) }).toEqual({
              q,
              limit,
              artists: want.artists,
            })
            if (want.tracks.length > 0) nonEmpty++
          }
        }
        expect(nonEmpty).toBeGreaterThan(50)
        // A later page than the table keeps (Subsonic's offsets) is searched and still right.
        const common = "t"
        const page = yield* library.searchWindows(common, windows(SHORT_PREFIX_KEEP - 2, 6))
        const want = yield* reference(searchQueryOf(common), SHORT_PREFIX_KEEP - 2, 6)
        expect(page.tracks.map((track) => track.id as string)).toEqual(want.tracks)
        expect(want.tracks.length).toBe(6)
      }),
  )
})
