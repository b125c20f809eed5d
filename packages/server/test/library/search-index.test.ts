import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { searchKeyOf } from "@tonearm/core"
import { Effect } from "effect"
import { type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(120, 5)

/** The search rule written plainly (every row read): word-prefix matches, names that start with the key first. */
const reference = (key: string, limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const prefix = `${key.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    const inner = `% ${prefix}`
    const tracks = yield* sql<{ id: string }>`
      SELECT id FROM tracks WHERE search_key LIKE ${prefix} OR search_key LIKE ${inner}
      ORDER BY (search_key LIKE ${prefix}) DESC, search_key COLLATE "C", id LIMIT ${limit}`
    const albums = yield* sql<{ title: string }>`
      SELECT title FROM albums WHERE search_key LIKE ${prefix} OR search_key LIKE ${inner}
      ORDER BY (search_key LIKE ${prefix}) DESC, search_key COLLATE "C", year LIMIT ${limit}`
    const artists = yield* sql<{ id: string }>`
      SELECT id FROM artists WHERE search_key LIKE ${prefix} OR search_key LIKE ${inner}
      ORDER BY (search_key LIKE ${prefix}) DESC, track_count DESC, sort_key COLLATE "C", id LIMIT ${limit}`
    return {
      tracks: tracks.map((row) => row.id),
      albums: albums.map((row) => row.title),
      artists: artists.map((row) => row.id),
    }
  })

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "search on indexes",
  (it) => {
    let admin: SignedIn

    it.effect("search answers what the word-prefix rule answers, in its order, for prefixes of every word", () =>
      Effect.gen(function* () {
        admin = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        const sql = yield* SqlClient.SqlClient
        const names = yield* sql<{ name: string }>`
          SELECT title AS name FROM tracks UNION SELECT title FROM albums UNION SELECT name FROM artists`
        const words = [...new Set(names.flatMap((row) => searchKeyOf(row.name).split(" ")))].filter((w) => w !== "")
        const queries = [...new Set(words.flatMap((word) => [word.slice(0, 1), word.slice(0, 2), word]))]
        expect(queries.length).toBeGreaterThan(20)
        for (const [q, limit] of [...queries.map((q) => [q, 20] as const), ["t", 3] as const, ["e", 100] as const]) {
          const want = yield* reference(q, limit)
          const found = yield* admin.client.library.search({ urlParams: { q, limit } })
          expect({ q, tracks: found.tracks.map((track) => track.id as string) }).toEqual({ q, tracks: want.tracks })
          expect({ q, albums: found.albums.map((album) => album.title) }).toEqual({ q, albums: want.albums })
          expect({ q, artists: found.artists.map((artist) => artist.id as string) }).toEqual({
            q,
            artists: want.artists,
          })
        }
      }),
    )

    it.effect("a key with LIKE wildcards or a character above every other still matches only itself", () =>
      Effect.gen(function* () {
        for (const q of ["%", "_", "a%", "\\", "\u{10FFFF}"]) {
          const found = yield* admin.client.library.search({ urlParams: { q } })
          const key = searchKeyOf(q)
          const want = key === "" ? { tracks: [] } : yield* reference(key, 20)
          expect({ q, tracks: found.tracks.map((track) => track.id as string) }).toEqual({ q, tracks: want.tracks })
        }
      }),
    )
  },
)
