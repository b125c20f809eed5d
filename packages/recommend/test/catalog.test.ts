import { describe, expect, it } from "@effect/vitest"
import { buildCatalog } from "../src/index.js"
import { albumId, artistId, libraryTrack } from "./fixtures.js"

describe("catalog", () => {
  it("rule 8 cap: an album counts against its own album artist when given (a compilation's Various Artists)", () => {
    const variousArtists = artistId(99)
    const compilation = (n: number, artist: number) => ({
      ...libraryTrack(n, { artist, album: 7 }),
      album_artist_id: variousArtists,
    })
    const catalog = buildCatalog([
      compilation(1, 1),
      compilation(2, 2),
      compilation(3, 2),
      libraryTrack(4, { artist: 3 }),
    ])
    const compiled = catalog.albumIndex.get(albumId(7))!
    expect(catalog.artistIds[catalog.albumArtist[compiled]!]).toBe(variousArtists)
    // Every per-artist array covers the album-only artist too.
    expect(catalog.artistTracks).toHaveLength(catalog.artistIds.length)
    expect(catalog.artistVectors).toHaveLength(catalog.artistIds.length)
    expect(catalog.artistMbid).toHaveLength(catalog.artistIds.length)
    expect(catalog.artistTracks[catalog.artistIndex.get(variousArtists)!]).toHaveLength(0)
  })

  it("without an album artist, the artist with most tracks on the album stands in", () => {
    const catalog = buildCatalog([
      libraryTrack(1, { artist: 1, album: 5 }),
      libraryTrack(2, { artist: 2, album: 5 }),
      libraryTrack(3, { artist: 2, album: 5 }),
    ])
    expect(catalog.artistIds[catalog.albumArtist[catalog.albumIndex.get(albumId(5))!]!]).toBe(artistId(2))
  })
})
