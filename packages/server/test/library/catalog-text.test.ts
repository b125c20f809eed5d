import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EnrichmentService } from "../../src/enrichment/index.js"
import { type CatalogText, decodeCatalogText, libraryTracksOf } from "../../src/library/catalogColumns.js"
import { LibraryService } from "../../src/library/index.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(60, 23)

/** The catalog as the rebuild loads it: the tracks' aggregate and the enriched tags, undecoded. */
const loadCatalog = Effect.gen(function* () {
  const library = yield* LibraryService
  const enrichment = yield* EnrichmentService
  return { ...(yield* library.catalogText), tags: yield* enrichment.catalogTags }
})

const floats = (...values: ReadonlyArray<number>) => {
  const bytes = new Uint8Array(values.length * 8)
  const view = new DataView(bytes.buffer)
  for (const [i, value] of values.entries()) view.setFloat64(i * 8, value, false)
  return bytes
}

const oneTrack: CatalogText = {
  tracks: 1,
  ids: '["00000000-0000-4000-8000-000000000001"]',
  artist_ids: '["00000000-0000-4000-8000-000000000002"]',
  album_ids: '["00000000-0000-4000-8000-000000000003"]',
  album_artist_ids: '["00000000-0000-4000-8000-000000000002"]',
  genres: "[null]",
  artist_mbids: "[null]",
  credits: "[null]",
  duration_ms: floats(1000),
  year: floats(Number.NaN),
  added_at_ms: floats(5),
}

describe("the catalog aggregate's decoding (on the engine's thread)", () => {
  it("a missing year travels as NaN and decodes to null; no tags leaves the tracks untagged", () => {
    expect(decodeCatalogText(oneTrack)).toEqual([
      {
        id: "00000000-0000-4000-8000-000000000001",
        artist_id: "00000000-0000-4000-8000-000000000002",
        album_id: "00000000-0000-4000-8000-000000000003",
        album_artist_id: "00000000-0000-4000-8000-000000000002",
        duration_ms: 1000,
        genre: null,
        year: null,
        added_at_ms: 5,
        artist_mbid: null,
      },
    ])
  })

  it("a track's other credited artists decode with their roles (featured guests count in taste at a share)", () => {
    const guest = "00000000-0000-4000-8000-000000000009"
    const [track] = decodeCatalogText({ ...oneTrack, credits: `[[["${guest}", "featured"]]]` })
    expect(track?.credits).toEqual([{ artist_id: guest, role: "featured" }])
    expect(() => decodeCatalogText({ ...oneTrack, credits: `[[["${guest}", "guest"]]]` })).toThrow(/credit/)
  })

  it("a malformed aggregate throws (a defect) instead of answering wrong tracks", () => {
    expect(() => decodeCatalogText({ ...oneTrack, tracks: 2 })).toThrow(/does not hold 2 values/)
    expect(() => decodeCatalogText({ ...oneTrack, genres: "[1]" })).toThrow(/genres holds a non-text/)
    expect(() => decodeCatalogText({ ...oneTrack, ids: "[null]" })).toThrow(/ids holds a non-text/)
    expect(() => decodeCatalogText({ ...oneTrack, year: floats(1, 2) })).toThrow(/year holds 16 bytes/)
    expect(() => decodeCatalogText({ ...oneTrack, artist_mbids: "[" })).toThrow(/not JSON/)
    expect(() => decodeCatalogText({ ...oneTrack, tags: '[["a", null, "rock"]]' })).toThrow(/tag row/)
  })
})

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "120 seconds" })(
  "the catalog the recommendation engine loads",
  (it) => {
    it.effect("holds every track in id order with the same fields as its rows, and the enriched tags merged", () =>
      Effect.gen(function* () {
        yield* scanNow()
        const sql = yield* SqlClient.SqlClient
        // An undated album (year 0), an artist with a MusicBrainz id, and enriched tags on one artist and one album.
        const [first] = yield* sql<{ album_id: string; artist_id: string }>`
          SELECT album_id, artist_id FROM tracks ORDER BY id LIMIT 1`
        yield* sql`UPDATE indexed_albums SET year = 0 WHERE id = ${first!.album_id}`
        yield* sql`UPDATE indexed_artists SET mbid = '0b7b5a3c-1e1e-4a55-9f0c-3f5fd4b8e0a1' WHERE id = ${first!.artist_id}`
        yield* sql`
          INSERT INTO enriched_tags (provider, album_id, artist_id, tag, weight, fetched_at) VALUES
            ('lastfm', NULL, ${first!.artist_id}, 'Rock', 0.5, now()),
            ('musicbrainz', NULL, ${first!.artist_id}, 'rock', 0.7, now()),
            ('lastfm', ${first!.album_id}, NULL, 'melancholic', 0.9, now())`

        const tracks = libraryTracksOf(yield* loadCatalog)
        const rows = yield* sql<{
          id: string
          artist_id: string
          album_id: string
          album_artist_id: string
          duration_ms: number
          genre: string | null
          year: number | null
          added_at_ms: number
          artist_mbid: string | null
        }>`
          SELECT t.id, t.artist_id, t.album_id, al.artist_id AS album_artist_id, t.duration_ms, t.genre, al.year,
                 (extract(epoch FROM t.added_at) * 1000)::float8 AS added_at_ms, ar.mbid AS artist_mbid
          FROM tracks t JOIN albums al ON al.id = t.album_id JOIN artists ar ON ar.id = t.artist_id
          ORDER BY t.id`
        expect(rows.length).toBe(60)
        expect(tracks.map(({ tags: _, credits: __, ...track }) => track)).toEqual(rows)
        // Featured guests (and any other credit beyond the first main artist) travel with their roles.
        const others = yield* sql<{ track_id: string; artist_id: string; role: string }>`
          SELECT ta.track_id, ta.artist_id, ta.role FROM track_artists ta JOIN tracks t ON t.id = ta.track_id
          WHERE ta.artist_id <> t.artist_id ORDER BY ta.track_id, ta.position`
        expect(
          tracks.flatMap((track) =>
            (track.credits ?? []).map((credit) => ({
              track_id: track.id,
              artist_id: credit.artist_id,
              role: credit.role,
            })),
          ),
        ).toEqual(others)

        const tagged = tracks.filter((track) => track.tags !== undefined)
        expect(tagged.length).toBeGreaterThan(0)
        for (const track of tagged)
          expect(track.artist_id === first!.artist_id || track.album_id === first!.album_id).toBe(true)
        const onBoth = tracks.find(
          (track) => track.album_id === first!.album_id && track.artist_id === first!.artist_id,
        )
        expect(onBoth?.tags?.map((tag) => [tag.name, tag.weight])).toEqual([
          ["melancholic", expect.closeTo(0.9, 5)],
          ["Rock", expect.closeTo(0.7, 5)],
        ])
        expect(onBoth?.year).toBe(0)
        expect(onBoth?.artist_mbid).toBe("0b7b5a3c-1e1e-4a55-9f0c-3f5fd4b8e0a1")
      }),
    )
  },
)
