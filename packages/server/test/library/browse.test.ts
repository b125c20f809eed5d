import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { AlbumId, ARTIST_DETAIL_ALBUMS_MAX, ArtistId, searchKeyOf } from "@tonearm/core"
import { Effect, Layer, Random } from "effect"
import { LibraryService } from "../../src/library/index.js"
import { Admin, AdminLive, ScannedLive } from "../ownData.js"
import { expectedReleaseDate, fixtureLibrary } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const { root, manifest } = await fixtureLibrary()
const audio = manifest.files.filter((file) => file.kind === "audio")

/** The admin, signed up and the library scanned once while the file's layer builds (ownData). */
const arrange = Admin
const client = Effect.map(arrange, (admin) => admin.client)
const get = (path: string) =>
  Effect.flatMap(
    Effect.map(arrange, (admin) => admin.token),
    (token) => raw("GET", path, { token }),
  )
const albumNamed = (title: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ id: string }>`SELECT id FROM albums WHERE title = ${title}`, (rows) => AlbumId.make(rows[0]!.id)),
  )
const artistNamed = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ id: string }>`SELECT id FROM artists WHERE name = ${name}`, (rows) => ArtistId.make(rows[0]!.id)),
  )
const albumTitles = (items: ReadonlyArray<{ readonly title: string }>) => items.map((item) => item.title).sort()

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("library browsing", (it) => {
  it.effect("the genre index follows the genre rule: split on ; and , trimmed, no case folding, slash kept", () =>
    Effect.gen(function* () {
      yield* arrange
      const genres = yield* (yield* client).library.genres()
      const sorted = (rows: ReadonlyArray<{ genre: string; track_count: number }>) =>
        [...rows].map(({ genre, track_count }) => ({ genre, track_count })).sort((a, b) => (a.genre < b.genre ? -1 : 1))
      expect(sorted(genres)).toEqual(sorted(manifest.genres))
      const names = genres.map((row) => row.genre)
      expect(names).toEqual(expect.arrayContaining(["Rock", "rock", "Pop", "Rock/Pop", "Jazz", "Blues"]))
      expect(names).not.toContain(" Jazz ")
      expect(names).not.toContain("Rock;Pop")
    }),
  )

  it.effect("a track with Rock;Pop is reachable from both genres, and every indexed genre has a non-empty page", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      for (const { genre } of yield* api.library.genres()) {
        const page = yield* api.library.albums({ urlParams: { genre } })
        expect({ genre, empty: page.items.length === 0 }).toEqual({ genre, empty: false })
        expect(page.total).toBeGreaterThanOrEqual(page.items.length)
      }
      const rock = albumTitles((yield* api.library.albums({ urlParams: { genre: "Rock" } })).items)
      const pop = albumTitles((yield* api.library.albums({ urlParams: { genre: "Pop" } })).items)
      expect(rock).toContain("Northern Static")
      expect(pop).toContain("Northern Static")
      const lower = albumTitles((yield* api.library.albums({ urlParams: { genre: "rock" } })).items)
      expect(lower).toEqual(["夜の音"])
    }),
  )

  it.effect("a genre with a slash travels as an encoded query parameter", () =>
    Effect.gen(function* () {
      yield* arrange
      const response = yield* get("/api/library/albums?genre=Rock%2FPop")
      expect(response.status).toBe(200)
      expect((response.json as { items: Array<{ title: string }> }).items.map((item) => item.title)).toEqual([
        "Northern Static",
      ])
    }),
  )

  it.effect("the year index counts albums per year; undated albums have no bucket, not even year 0", () =>
    Effect.gen(function* () {
      yield* arrange
      const years = yield* (yield* client).library.years()
      expect(
        [...years].sort((a, b) => a.year - b.year).map(({ year, album_count }) => ({ year, album_count })),
      ).toEqual(manifest.years)
      expect(years.some((row) => row.year === 0)).toBe(false)
    }),
  )

  it.effect("genre with any year parameter is 400 conflicting_filters", () =>
    Effect.gen(function* () {
      yield* arrange
      for (const query of [
        "genre=Pop&year_from=2000",
        "genre=Pop&year_to=2000",
        "genre=Pop&year_from=1&year_to=3000",
      ]) {
        const response = yield* get(`/api/library/albums?${query}`)
        expect(response.status).toBe(400)
        expect(response.json).toMatchObject({ error: { code: "conflicting_filters" } })
      }
    }),
  )

  it.effect("year_from after year_to is 400 inverted_year_range, never swapped", () =>
    Effect.gen(function* () {
      yield* arrange
      const response = yield* get("/api/library/albums?year_from=2020&year_to=1990")
      expect(response.status).toBe(400)
      expect(response.json).toMatchObject({ error: { code: "inverted_year_range" } })
      const error = yield* (yield* client).library
        .albums({ urlParams: { year_from: 2020, year_to: 1990 } })
        .pipe(Effect.flip)
      expect(error._tag).toBe("InvertedYearRange")
    }),
  )

  it.effect("year ranges are inclusive with open edges, and undated albums match no range", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const titles = (urlParams: { year_from?: number; year_to?: number }) =>
        Effect.map(api.library.albums({ urlParams }), (page) => albumTitles(page.items))
      const dated = manifest.albums.filter((album) => album.year > 0)
      const inRange = (from: number, to: number) =>
        dated
          .filter((album) => album.year >= from && album.year <= to)
          .map((album) => album.title)
          .sort()
      expect(yield* titles({ year_from: 1998, year_to: 2004 })).toEqual(inRange(1998, 2004))
      expect(yield* titles({ year_from: 2015 })).toEqual(inRange(2015, 9999))
      expect(yield* titles({ year_to: 1998 })).toEqual(inRange(0, 1998))
      expect(yield* titles({ year_from: 0, year_to: 9999 })).not.toContain("Undated Sessions")
      expect(yield* titles({ year_to: 0 })).toEqual([])
      // Without a filter the undated album is listed like any other.
      expect(albumTitles((yield* api.library.albums({ urlParams: { limit: 500 } })).items)).toContain(
        "Undated Sessions",
      )
    }),
  )

  it.effect("albums page with offset, limit (default 50, clamped to 500), total and sort", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const all = yield* api.library.albums({ urlParams: {} })
      expect(all).toMatchObject({ offset: 0, limit: 50, total: manifest.albums.length })
      const byKey = (a: string, b: string) => (searchKeyOf(a) < searchKeyOf(b) ? -1 : 1)
      expect(all.items.map((item) => item.title)).toEqual(manifest.albums.map((album) => album.title).sort(byKey))
      const page = yield* api.library.albums({ urlParams: { offset: 2, limit: 3 } })
      expect(page.items.map((item) => item.id)).toEqual(all.items.slice(2, 5).map((item) => item.id))
      expect(page.total).toBe(manifest.albums.length)
      expect((yield* api.library.albums({ urlParams: { limit: 100_000 } })).limit).toBe(500)
      const byYear = yield* api.library.albums({ urlParams: { sort: "year" } })
      const years = byYear.items.map((item) => item.year)
      expect(years).toEqual([...years].sort((a, b) => a - b))
      const byAdded = yield* api.library.albums({ urlParams: { sort: "added" } })
      expect(byAdded.items).toHaveLength(manifest.albums.length)
      const byArtist = yield* api.library.albums({ urlParams: { sort: "artist" } })
      expect(byArtist.items[0]!.artist_name).toBe("Aurora Lines")
      expect((yield* get("/api/library/albums?sort=random")).status).toBe(400)
      expect((yield* get("/api/library/albums?limit=-1")).status).toBe(400)
      expect((yield* get("/api/library/albums?year_from=nineteen")).status).toBe(400)
    }),
  )

  it.effect("album references carry year (0 when undated), release_date, counts, cover and added_at", () =>
    Effect.gen(function* () {
      yield* arrange
      const { items } = yield* (yield* client).library.albums({ urlParams: { limit: 500 } })
      for (const expected of manifest.albums) {
        const album = items.find((item) => item.title === expected.title)!
        expect(album).toMatchObject({
          artist_name: expected.artist,
          year: expected.year,
          release_date: expectedReleaseDate(expected),
          track_count: expected.track_count,
        })
        const covered = expected.sidecar !== null || expected.embedded_cover
        expect(album.cover_url).toBe(covered ? `/api/albums/${album.id}/cover` : null)
      }
      const undated = items.find((item) => item.title === "Undated Sessions")!
      expect(undated).toMatchObject({ year: 0, release_date: null })
    }),
  )

  it.effect("album detail lists tracks in disc and track order with genre chips derived from its tracks", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const detail = yield* api.library.album({ path: { id: yield* albumNamed("Two Moons") } })
      expect(detail.tracks.map((track) => [track.disc_number, track.track_number, track.title])).toEqual([
        [1, 1, "First Light"],
        [1, 2, "Dust"],
        [2, 1, "Second Light"],
      ])
      expect(detail.genres).toEqual(["Electronic"])
      const cafe = yield* api.library.album({ path: { id: yield* albumNamed("Über Café") } })
      expect(cafe.genres).toEqual(["Blues", "Jazz", "Soul"])
      expect(cafe.tracks[0]!.genre).toBe(" Jazz , Blues ")
      const none = yield* api.library.album({ path: { id: yield* albumNamed("Undated Sessions") } })
      expect(none.genres).toEqual([])
      const missing = yield* api.library.album({ path: { id: AlbumId.make(crypto.randomUUID()) } }).pipe(Effect.flip)
      expect(missing._tag).toBe("NotFound")
    }),
  )

  it.effect("a failing genre lookup is logged and answered as [] while the detail still succeeds", () =>
    Effect.gen(function* () {
      yield* arrange
      const sql = yield* SqlClient.SqlClient
      const id = yield* albumNamed("Über Café")
      const artist = yield* artistNamed("Zoë Müller")
      // Album chips read the derived album_genres, artist chips track_genres: both lookups fail.
      yield* sql`ALTER TABLE track_genres RENAME TO track_genres_gone`
      yield* sql`ALTER TABLE album_genres RENAME TO album_genres_gone`
      const [album, artistDetail] = yield* Effect.all([get(`/api/albums/${id}`), get(`/api/artists/${artist}`)]).pipe(
        Effect.ensuring(sql`ALTER TABLE track_genres_gone RENAME TO track_genres`.pipe(Effect.orDie)),
        Effect.ensuring(sql`ALTER TABLE album_genres_gone RENAME TO album_genres`.pipe(Effect.orDie)),
      )
      expect(album.status).toBe(200)
      expect((album.json as { genres: unknown }).genres).toEqual([])
      expect(artistDetail.status).toBe(200)
      expect((artistDetail.json as { genres: unknown }).genres).toEqual([])
    }),
  )

  it.effect("artist detail: genres from their own tracks, albums with track_count, compilations under appears_on", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const zoe = yield* api.library.artist({ path: { id: yield* artistNamed("Zoë Müller") } })
      expect(zoe.albums.map((album) => [album.title, album.track_count])).toEqual([["Über Café", 3]])
      expect(zoe.appears_on.map((album) => album.title)).toEqual(["Summer Hits 2001"])
      expect(zoe.genres).toEqual(["Blues", "Jazz", "Pop", "Soul"])
      expect(zoe).toMatchObject({ name: "Zoë Müller", album_count: 1, track_count: 4 })
      const various = yield* api.library.artist({ path: { id: yield* artistNamed("Various Artists") } })
      expect(albumTitles(various.albums)).toEqual(["Late Night Radio", "Road Trip", "Summer Hits 2001"])
      const missing = yield* api.library.artist({ path: { id: ArtistId.make(crypto.randomUUID()) } }).pipe(Effect.flip)
      expect(missing._tag).toBe("NotFound")
    }),
  )

  it.effect("artist detail embeds at most ARTIST_DETAIL_ALBUMS_MAX albums of each list, with their totals", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const id = yield* artistNamed("Various Artists")
      const various = yield* api.library.artist({ path: { id } })
      expect(ARTIST_DETAIL_ALBUMS_MAX).toBe(100)
      expect(various.albums_total).toBe(3)
      expect(various.albums_total).toBe(various.album_count)
      expect(various.appears_on_total).toBe(various.appears_on.length)
      const zoe = yield* api.library.artist({ path: { id: yield* artistNamed("Zoë Müller") } })
      expect([zoe.albums_total, zoe.appears_on_total]).toEqual([1, 1])
      // The same rule with a smaller cap: the first albums in order, the total of all of them.
      const library = yield* LibraryService
      const capped = yield* library.artist(id, 2)
      expect(capped.albums.map((album) => album.id)).toEqual(various.albums.slice(0, 2).map((album) => album.id))
      expect(capped.albums_total).toBe(3)
      const all = yield* library.artist(id)
      expect(all.albums).toHaveLength(3)
    }),
  )

  it.effect("search is case- and accent-insensitive, matching word prefixes", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const cafe = yield* api.library.search({ urlParams: { q: "cafe" } })
      expect(albumTitles(cafe.albums)).toEqual(["Über Café"])
      // A track's album title is one of its fields (contract "Library model", Search): the title that starts with
      // the word first (all-prefix), then the album's tracks.
      const onCafe = audio.filter((file) => file.expect.album === "Über Café").map((file) => file.expect.title)
      expect(cafe.tracks[0]?.title).toBe("Café Olé")
      expect(new Set(cafe.tracks.map((track) => track.title))).toEqual(new Set(["Café Olé", ...onCafe]))
      const zoe = yield* api.library.search({ urlParams: { q: "ZOË" } })
      expect(zoe.artists.map((artist) => artist.name)).toEqual(["Zoë Müller"])
      const word = yield* api.library.search({ urlParams: { q: "bloom" } })
      expect(word.tracks.map((track) => track.title)).toEqual(["Static Bloom"])
      const jp = yield* api.library.search({ urlParams: { q: "東京" } })
      expect(jp.tracks.map((track) => track.title)).toEqual(["東京の雨"])
      const wildcard = yield* api.library.search({ urlParams: { q: "%" } })
      expect(wildcard).toEqual({ artists: [], albums: [], tracks: [] })
      expect(yield* api.library.search({ urlParams: { q: "   " } })).toEqual({ artists: [], albums: [], tracks: [] })
    }),
  )

  it.effect("shuffle answers random library tracks: limit default 50, clamped to 500, same seed same order", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const all = yield* api.library.shuffle({ urlParams: {} })
      expect(all.tracks).toHaveLength(audio.length)
      const three = yield* api.library.shuffle({ urlParams: { limit: 3 } })
      expect(new Set(three.tracks.map((track) => track.id)).size).toBe(3)
      expect((yield* api.library.shuffle({ urlParams: { limit: 100_000 } })).tracks).toHaveLength(audio.length)
      const library = yield* LibraryService
      const seeded = (seed: string) =>
        library.shuffle(10).pipe(
          Effect.withRandom(Random.make(seed)),
          Effect.map((result) => result.tracks.map((track) => track.id)),
        )
      expect(yield* seeded("a")).toEqual(yield* seeded("a"))
      expect(yield* seeded("a")).not.toEqual(yield* seeded("b"))
    }),
  )

  it.effect("home answers every section; recently added is filled, the listening sections are empty arrays", () =>
    Effect.gen(function* () {
      yield* arrange
      const api = yield* client
      const home = yield* api.home.sections()
      expect(home.recently_added.length).toBe(manifest.albums.length)
      expect(home).toMatchObject({
        rediscover_albums: [],
        rediscover_artists: [],
        most_played: [],
        last_played: [],
        you_might_like_albums: [],
        you_might_like_artists: [],
      })
      const index = yield* api.home.index()
      expect(index.recently_added).toEqual(home.recently_added.map((album) => album.id))
      expect(Object.keys(index).sort()).toEqual(Object.keys(home).sort())
    }),
  )
})
