import { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import type { CoListenRow, LibraryTrack } from "@tonearm/recommend"
import { Effect } from "effect"
import type { CatalogSource } from "../../src/recommendations/RecommendationEngine.js"

/** A library of `artists` artists, one track each, and listeners who each play `perListener` of them. */
export const world = (artists: number, listeners: number, perListener: number, version = "v1") => {
  const id = (kind: number, n: number) => `00000000-0000-4000-8${kind}00-${n.toString(16).padStart(12, "0")}`
  const tracks: ReadonlyArray<LibraryTrack> = Array.from({ length: artists }, (_, a) => ({
    id: TrackId.make(id(2, a)),
    artist_id: ArtistId.make(id(1, a)),
    album_id: AlbumId.make(id(3, a)),
    duration_ms: 200_000,
    genre: null,
    year: null,
    added_at_ms: 0,
  }))
  const rows: Array<CoListenRow> = []
  for (let u = 0; u < listeners; u++)
    for (let k = 0; k < perListener; k++)
      rows.push({ user_id: `u${u}`, artist_id: ArtistId.make(id(1, (u * 7 + k) % artists)), plays: 1 + k })
  const source: CatalogSource = { version, load: Effect.succeed(tracks) }
  return { tracks, rows, source, artist: (n: number) => ArtistId.make(id(1, n)) }
}
