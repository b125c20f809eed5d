// The whole library as the recommendation engine reads it, as `BrowseRepository.catalogText` loads it, and its
// decoding. Kept apart from the repository (no SQL here): the engine's process decodes the text, so the
// HTTP event loop passes a few strings along instead of decoding and cloning ~100k row objects (at 100k tracks
// that was ~430 MB allocated on the event loop per load, whose collections stalled the requests around it).
import { type EntityTagRow, trackTagsOf } from "@tonearm/core"
import type { LibraryTrack } from "@tonearm/recommend"
import { aggregateColumns, hasAggregateFields } from "../db/aggregateColumns.js"

/**
 * Every track in id order as one aggregate row, undecoded: ids and nullable texts as JSON arrays, numbers as
 * big-endian float8 bytes (NaN for a missing year). `tags` is the enriched tags as a JSON array of
 * `[album_id, artist_id, tag, weight]`, or undefined when none were loaded.
 */
export interface CatalogText {
  readonly tracks: number
  readonly ids: string
  readonly artist_ids: string
  readonly album_ids: string
  readonly album_artist_ids: string
  readonly genres: string
  readonly artist_mbids: string
  /** Per track, its other credited artists as `[[artist_id, role], …]`, or null when it has none. */
  readonly credits: string
  readonly duration_ms: Uint8Array
  readonly year: Uint8Array
  readonly added_at_ms: Uint8Array
  readonly tags?: string | undefined
}

/** The aggregate's field types (constant time: the repository checks this much, `decodeCatalogText` the rest). */
export const isCatalogText = (u: unknown): u is CatalogText =>
  hasAggregateFields(
    u,
    "tracks",
    ["ids", "artist_ids", "album_ids", "album_artist_ids", "genres", "artist_mbids", "credits"],
    ["duration_ms", "year", "added_at_ms"],
  ) &&
  (u.tags === undefined || typeof u.tags === "string")

const { invalid, floats, array, texts } = aggregateColumns("catalog", "tracks")

const tagRowsOf = (json: string): ReadonlyArray<EntityTagRow> =>
  array(json, undefined, "tags").map((row: unknown) => {
    if (!Array.isArray(row) || row.length !== 4) throw invalid("a tag row is not [album, artist, tag, weight]")
    const [album, artist, tag, weight] = row as [unknown, unknown, unknown, unknown]
    if (
      (album !== null && typeof album !== "string") ||
      (artist !== null && typeof artist !== "string") ||
      typeof tag !== "string" ||
      typeof weight !== "number"
    )
      throw invalid(`tag row ${JSON.stringify(row)}`)
    return { album_id: album, artist_id: artist, tag, weight }
  })

type Credits = NonNullable<LibraryTrack["credits"]>

const creditsOf = (value: unknown): Credits | undefined => {
  if (value === null) return undefined
  if (!Array.isArray(value)) throw invalid(`credits ${JSON.stringify(value)}`)
  return value.map((credit: unknown) => {
    if (
      !Array.isArray(credit) ||
      credit.length !== 2 ||
      typeof credit[0] !== "string" ||
      (credit[1] !== "main" && credit[1] !== "featured")
    )
      throw invalid(`credit ${JSON.stringify(credit)}`)
    return { artist_id: credit[0] as LibraryTrack["artist_id"], role: credit[1] }
  })
}

/** The engine's tracks of an aggregate, every value checked; throws on a malformed one (a defect: SQL makes them). */
export const decodeCatalogText = (text: CatalogText): ReadonlyArray<LibraryTrack> => {
  const n = text.tracks
  const ids = texts(text.ids, n, "ids", false) as ReadonlyArray<string>
  const artistIds = texts(text.artist_ids, n, "artist_ids", false) as ReadonlyArray<string>
  const albumIds = texts(text.album_ids, n, "album_ids", false) as ReadonlyArray<string>
  const albumArtistIds = texts(text.album_artist_ids, n, "album_artist_ids", false) as ReadonlyArray<string>
  const genres = texts(text.genres, n, "genres", true)
  const mbids = texts(text.artist_mbids, n, "artist_mbids", true)
  const credits = array(text.credits, n, "credits")
  const durations = floats(text.duration_ms, n, "duration_ms")
  const years = floats(text.year, n, "year")
  const added = floats(text.added_at_ms, n, "added_at_ms")
  const tagsOf = text.tags === undefined ? undefined : trackTagsOf(tagRowsOf(text.tags))
  const tracks: Array<LibraryTrack> = new Array(n)
  for (let i = 0; i < n; i++) {
    const year = years[i]!
    const track: LibraryTrack = {
      id: ids[i]! as LibraryTrack["id"],
      artist_id: artistIds[i]! as LibraryTrack["artist_id"],
      album_id: albumIds[i]! as LibraryTrack["album_id"],
      duration_ms: durations[i]!,
      genre: genres[i] ?? null,
      year: Number.isNaN(year) ? null : year,
      added_at_ms: added[i]!,
      artist_mbid: mbids[i] ?? null,
      album_artist_id: albumArtistIds[i]! as LibraryTrack["artist_id"],
    }
    const tags = tagsOf?.(track.artist_id, track.album_id)
    const others = creditsOf(credits[i])
    const credited = others === undefined ? track : { ...track, credits: others }
    tracks[i] = tags === undefined || tags.length === 0 ? credited : { ...credited, tags }
  }
  return tracks
}

/** The engine's tracks, whichever form they came in (rows built in memory, or the aggregate text). */
export const libraryTracksOf = (rows: ReadonlyArray<LibraryTrack> | CatalogText): ReadonlyArray<LibraryTrack> =>
  Array.isArray(rows) ? rows : decodeCatalogText(rows as CatalogText)
