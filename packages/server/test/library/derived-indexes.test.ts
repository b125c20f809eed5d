import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(80, 21)
const away = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-away-"))

/** What the derived indexes must say: aggregates of the present tracks, computed here per call. */
const expected = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const genres = yield* sql<{ genre: string; track_count: number }>`
    SELECT g.genre, count(*)::int AS track_count FROM track_genres g JOIN tracks t ON t.id = g.track_id
    GROUP BY g.genre ORDER BY lower(g.genre) COLLATE "C", g.genre COLLATE "C"`
  const years = yield* sql<{ year: number; album_count: number }>`
    SELECT year, count(*)::int AS album_count FROM albums WHERE year > 0 GROUP BY year ORDER BY year DESC`
  const albumsOf = yield* sql<{ genre: string; ids: Array<string> }>`
    SELECT g.genre, array_agg(DISTINCT t.album_id::text ORDER BY t.album_id::text) AS ids
    FROM track_genres g JOIN tracks t ON t.id = g.track_id GROUP BY g.genre`
  const [{ albums }] = (yield* sql<{ albums: number }>`SELECT count(*)::int AS albums FROM albums`) as [
    { albums: number },
  ]
  return { genres, years, albumsOf, albums }
})

/** The API's genre and year index, and each genre's albums, against the aggregates of the present tracks. */
const expectIndexesCurrent = (who: SignedIn) =>
  Effect.gen(function* () {
    const want = yield* expected
    const genres = yield* who.client.library.genres()
    expect(genres.map(({ genre, track_count }) => ({ genre, track_count }))).toEqual(want.genres)
    const years = yield* who.client.library.years()
    expect(years.map(({ year, album_count }) => ({ year, album_count }))).toEqual(want.years)
    for (const { genre, ids } of want.albumsOf) {
      const page = yield* who.client.library.albums({ urlParams: { genre, limit: 500 } })
      expect({ genre, ids: page.items.map((album) => album.id as string).sort() }).toEqual({ genre, ids })
      expect(page.total).toBe(ids.length)
    }
    // The album list's totals come from the same derived rows: every album (undated ones too), a year range's.
    expect((yield* who.client.library.albums({ urlParams: { limit: 1 } })).total).toBe(want.albums)
    // A page past the end has no rows but still its total.
    const past = yield* who.client.library.albums({ urlParams: { offset: want.albums + 5, limit: 5 } })
    expect({ items: past.items.length, total: past.total }).toEqual({ items: 0, total: want.albums })
    const [newest, oldest] = [want.years[0]!.year, want.years[want.years.length - 1]!.year]
    const middle = Math.floor((newest + oldest) / 2)
    const inRange = want.years.filter(({ year }) => year >= oldest && year <= middle)
    const ranged = yield* who.client.library.albums({ urlParams: { year_from: oldest, year_to: middle, limit: 500 } })
    expect(ranged.total).toBe(inRange.reduce((sum, { album_count }) => sum + album_count, 0))
    expect(ranged.total).toBe(ranged.items.length)
    return want
  })

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "derived genre and year indexes",
  (it) => {
    let admin: SignedIn

    it.effect("the genre and year indexes are current after a scan that adds tracks", () =>
      Effect.gen(function* () {
        admin = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        const want = yield* expectIndexesCurrent(admin)
        expect(want.genres.length).toBeGreaterThan(1)
        expect(want.years.length).toBeGreaterThan(1)
      }),
    )

    it.effect(
      "the genre and year indexes drop tracks a scan marked missing, and count them again when they return",
      () =>
        Effect.gen(function* () {
          const before = yield* expected
          const sql = yield* SqlClient.SqlClient
          const [{ album }] = (yield* sql<{ album: string }>`
          SELECT directory AS album FROM tracks GROUP BY directory ORDER BY directory LIMIT 1`) as [{ album: string }]
          fs.renameSync(path.join(root, album), path.join(away, "album"))
          yield* scanNow()
          const gone = yield* expectIndexesCurrent(admin)
          expect(gone.genres).not.toEqual(before.genres)
          fs.renameSync(path.join(away, "album"), path.join(root, album))
          yield* scanNow()
          expect((yield* expectIndexesCurrent(admin)).genres).toEqual(before.genres)
        }),
    )

    it.effect("a genre whose every track went missing leaves the genre index", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [rare] = yield* sql<{ genre: string; paths: Array<string> }>`
          SELECT g.genre, array_agg(t.path) AS paths FROM track_genres g JOIN tracks t ON t.id = g.track_id
          GROUP BY g.genre ORDER BY count(*), g.genre LIMIT 1`
        const moved = rare!.paths.map((file, i) => {
          const target = path.join(away, `rare-${i}${path.extname(file)}`)
          fs.renameSync(path.join(root, file), target)
          return () => fs.renameSync(target, path.join(root, file))
        })
        yield* scanNow()
        const genres = yield* admin.client.library.genres()
        expect(genres.map((row) => row.genre)).not.toContain(rare!.genre)
        yield* expectIndexesCurrent(admin)
        for (const back of moved) back()
        yield* scanNow()
        expect((yield* admin.client.library.genres()).map((row) => row.genre)).toContain(rare!.genre)
      }),
    )
  },
)
