import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import { Effect } from "effect"
import { generateSyntheticLibrary } from "../../fixtures/synthetic.js"

/** A synthetic library of `tracks` small tagged files (many artists, albums and genres), in a temporary folder. */
export const syntheticLibrary = async (tracks: number, seed = 11): Promise<string> => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-synthetic-"))
  await generateSyntheticLibrary({ out: root, tracks, seed })
  return root
}

export interface LibraryTrackRow {
  readonly id: TrackId
  readonly artist_id: ArtistId
  readonly album_id: AlbumId
  readonly duration_ms: number
  readonly genres: ReadonlyArray<string>
}

/** Every indexed track with its split genres, in a stable order. */
export const libraryTracks = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{
    id: string
    artist_id: string
    album_id: string
    duration_ms: number
    genres: Array<string> | null
  }>`
    SELECT t.id, t.artist_id, t.album_id, t.duration_ms, array_agg(g.genre ORDER BY g.genre) FILTER (WHERE g.genre IS NOT NULL) AS genres
    FROM tracks t LEFT JOIN track_genres g ON g.track_id = t.id
    GROUP BY t.id, t.artist_id, t.album_id, t.duration_ms, t.path ORDER BY t.path`
  return rows.map(
    (row): LibraryTrackRow => ({
      id: TrackId.make(row.id),
      artist_id: ArtistId.make(row.artist_id),
      album_id: AlbumId.make(row.album_id),
      duration_ms: row.duration_ms,
      genres: row.genres ?? [],
    }),
  )
})

/**
 * Arranges listening history straight in the database: `times` complete (or skipped) plays of each track,
 * `daysAgo` days back, a second apart. What a client reports is tested over HTTP elsewhere.
 */
export const arrangePlays = (
  user: string,
  tracks: ReadonlyArray<LibraryTrackRow>,
  options: {
    readonly times?: number
    readonly daysAgo?: number
    readonly skipped?: boolean
    readonly device?: string
  } = {},
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const times = options.times ?? 1
    const skipped = options.skipped ?? false
    return sql`
      INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
        duration_played_ms, track_duration_ms, skipped, completion, device_class, created_at)
      SELECT ${user}, t.id, t.artist_id, t.album_id, 'test',
             now() - make_interval(days => ${options.daysAgo ?? 1}) + make_interval(secs => t.n * ${times} + r),
             now() - make_interval(days => ${options.daysAgo ?? 1}) + make_interval(secs => t.n * ${times} + r) + interval '1 second',
             CASE WHEN ${skipped} THEN 0 ELSE t.duration_ms END, t.duration_ms, ${skipped},
             CASE WHEN ${skipped} THEN 0 ELSE 1 END, ${options.device ?? null}, now()
      FROM unnest(${tracks.map((t) => t.id)}::uuid[], ${tracks.map((t) => t.artist_id)}::uuid[],
                  ${tracks.map((t) => t.album_id)}::uuid[], ${tracks.map((t) => t.duration_ms)}::int[])
           WITH ORDINALITY AS t (id, artist_id, album_id, duration_ms, n),
           generate_series(1, ${times}) AS r`
  })
