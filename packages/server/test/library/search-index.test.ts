import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import {
  type SearchQueryText,
  searchDocumentOf,
  searchMatches,
  searchQueryOf,
  searchTierOf,
  searchWordsOf,
} from "@tonearm/core"
import { Effect } from "effect"
import { type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(120, 5)

interface DocumentRow {
  readonly id: string
  readonly name: string
  readonly search_words: string
  readonly search_fields: string
}

/**
 * The search rule written plainly, on every stored document (core's `searchMatches` and `searchTierOf`): the rows
 * come in the tie order (popularity, then name, then id), and a stable sort by tier keeps it within each tier.
 */
const reference = (query: SearchQueryText, limit: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ranked = (rows: ReadonlyArray<DocumentRow>) =>
      rows
        .filter((row) => searchMatches(query, row.search_words))
        .map((row) => ({ row, tier: searchTierOf(query, row.search_fields) }))
        .sort((a, b) => a.tier - b.tier)
        .slice(0, limit)
        .map(({ row }) => row)
    const tracks = yield* sql<DocumentRow>`
      SELECT id, title AS name, search_words, search_fields FROM tracks
      ORDER BY popularity DESC, search_key COLLATE "C", id`
    const albums = yield* sql<DocumentRow>`
      SELECT id, title AS name, search_words, search_fields FROM albums
      ORDER BY popularity DESC, search_key COLLATE "C", id`
    const artists = yield* sql<DocumentRow>`
      SELECT id, name, search_words, search_fields FROM artists
      ORDER BY track_count DESC, sort_key COLLATE "C", id`
    return {
      tracks: ranked(tracks).map((row) => row.id),
      albums: ranked(albums).map((row) => row.id),
      artists: ranked(artists).map((row) => row.id),
    }
  })

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "search on indexes",
  (it) => {
    let admin: SignedIn

    it.effect(
      "search answers what the rule answers, in its order: prefixes of every word, and an artist's word with a title's",
      () =>
        Effect.gen(function* () {
          admin = yield* signUpFirstAdmin("admin")
          yield* scanNow()
          const sql = yield* SqlClient.SqlClient
          // Every stored document is the one core makes of its fields (a track's: credited artists, album, title).
          const stored = yield* sql<{
            search_words: string
            search_fields: string
            title: string
            album: string
            names: string
          }>`
            SELECT t.search_words, t.search_fields, t.title, al.title AS album,
                   (SELECT string_agg(x.name, '\u001f' ORDER BY ta.position) FROM track_artists ta
                    JOIN artists x ON x.id = ta.artist_id WHERE ta.track_id = t.id) AS names
            FROM tracks t JOIN albums al ON al.id = t.album_id`
          expect(stored.length).toBe(120)
          for (const row of stored) {
            const fields = [...row.names.split("\u001f"), row.album, row.title]
            expect(row.search_words).toBe(searchDocumentOf(fields).words)
            expect(row.search_fields).toBe(searchDocumentOf(fields).fields)
          }
          const names = yield* sql<{ name: string; kind: string }>`
            SELECT title AS name, 'title' AS kind FROM tracks UNION SELECT title, 'title' FROM albums
            UNION SELECT name, 'artist' FROM artists`
          const wordsOf = (kind: string) => [
            ...new Set(names.filter((row) => row.kind === kind).flatMap((row) => searchWordsOf(row.name))),
          ]
          const titleWords = wordsOf("title")
          const artistWords = wordsOf("artist")
          const prefixes = [...titleWords, ...artistWords].flatMap((word) => [word.slice(0, 1), word.slice(0, 2), word])
          // An artist's word with a word of one of their titles, either way round, the last one cut short.
          const credited = yield* sql<{ name: string; title: string }>`
            SELECT x.name, t.title FROM track_artists ta
            JOIN artists x ON x.id = ta.artist_id JOIN tracks t ON t.id = ta.track_id ORDER BY t.path LIMIT 40`
          const pairs = credited.flatMap((row, i) => {
            const ofName = searchWordsOf(row.name)
            const ofTitle = searchWordsOf(row.title)
            const artist = ofName[i % ofName.length]
            const title = ofTitle[i % ofTitle.length]
            return artist === undefined || title === undefined
              ? []
              : [`${artist} ${title}`, `${title} ${artist.slice(0, 3)}`]
          })
          const queries = [...new Set([...prefixes, ...pairs])]
          expect(queries.length).toBeGreaterThan(40)
          let compared = 0
          let comparedPairs = 0
          for (const [q, limit] of [...queries.map((q) => [q, 20] as const), ["t", 3] as const, ["e", 100] as const]) {
            const want = yield* reference(searchQueryOf(q), limit)
            // A query that matches nothing is answered with the closest items instead (search-rules.test.ts).
            if (want.tracks.length + want.albums.length + want.artists.length === 0) continue
            compared++
            if (pairs.includes(q)) comparedPairs++
            const found = yield* admin.client.library.search({ urlParams: { q, limit } })
            expect({ q, tracks: found.tracks.map((track) => track.id as string) }).toEqual({ q, tracks: want.tracks })
            expect({ q, albums: found.albums.map((album) => album.id as string) }).toEqual({ q, albums: want.albums })
            expect({ q, artists: found.artists.map((artist) => artist.id as string) }).toEqual({
              q,
              artists: want.artists,
            })
          }
          expect(compared).toBeGreaterThan(100)
          expect(comparedPairs).toBeGreaterThan(30)
        }),
    )

    it.effect("LIKE wildcards and characters that are no letter are word breaks, never patterns", () =>
      Effect.gen(function* () {
        for (const q of ["%", "_", "a%", "a_", "\\", "%a", "\u{10FFFF}"]) {
          const found = yield* admin.client.library.search({ urlParams: { q } })
          const query = searchQueryOf(q)
          const want = query.words.length === 0 ? { tracks: [] } : yield* reference(query, 20)
          expect({ q, tracks: found.tracks.map((track) => track.id as string) }).toEqual({ q, tracks: want.tracks })
        }
      }),
    )
  },
)
