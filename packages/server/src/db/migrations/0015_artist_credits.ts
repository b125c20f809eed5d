import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The library as its tags say (issue 31): artist credits, true album artists, discs, editions, sort names and
 * ReplayGain.
 *
 * - `track_artists`: every artist credited on a track, with its role (main | featured) and tag position;
 *   `album_artists`: an album's album artists in order. `artist_id` on tracks and albums stays: the first main
 *   credit and the first album artist, which every existing join keeps reading.
 * - Tracks gain the artist text as tagged, the title's sort tag, the disc subtitle and ReplayGain; a track with
 *   no disc number is on disc 1. Albums gain the album-artist text, a sort key (ALBUMSORT, else the title less a
 *   leading article), the release comment and the edition label (`version`). Artists remember a tagged sort name.
 * - Upgrading keeps every id: existing rows get one credit each (what they had), and every track's mtime is
 *   cleared so the next scan re-reads each file and writes its real credits in place (same path, same id). An
 *   album whose key changes takes its id along (CatalogRepository.writeBatch re-keys it), so likes stay.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE indexed_artists ADD COLUMN sort_tagged boolean NOT NULL DEFAULT false`
  yield* sql`
    ALTER TABLE indexed_albums
      ADD COLUMN artist_display text,
      ADD COLUMN sort_key text,
      ADD COLUMN release_comment text,
      ADD COLUMN version text`
  yield* sql`
    UPDATE indexed_albums a SET artist_display = ar.name, sort_key = a.search_key
    FROM indexed_artists ar WHERE ar.id = a.artist_id`
  // Defaults only for rows written outside the scanner (tests arranging rows); the scan always writes both.
  yield* sql`
    ALTER TABLE indexed_albums
      ALTER COLUMN artist_display SET NOT NULL, ALTER COLUMN artist_display SET DEFAULT '',
      ALTER COLUMN sort_key SET NOT NULL, ALTER COLUMN sort_key SET DEFAULT ''`
  yield* sql`
    ALTER TABLE indexed_tracks
      ADD COLUMN artist_display text,
      ADD COLUMN sort_title text,
      ADD COLUMN disc_subtitle text,
      ADD COLUMN rg_track_gain double precision,
      ADD COLUMN rg_track_peak double precision,
      ADD COLUMN rg_album_gain double precision,
      ADD COLUMN rg_album_peak double precision`
  yield* sql`
    UPDATE indexed_tracks t SET artist_display = ar.name, disc_number = COALESCE(t.disc_number, 1), mtime_ms = -1
    FROM indexed_artists ar WHERE ar.id = t.artist_id`
  yield* sql`
    ALTER TABLE indexed_tracks
      ALTER COLUMN artist_display SET NOT NULL,
      ALTER COLUMN artist_display SET DEFAULT '',
      ALTER COLUMN disc_number SET DEFAULT 1`

  yield* sql`
    CREATE TABLE track_artists (
      track_id uuid NOT NULL REFERENCES indexed_tracks (id) ON DELETE CASCADE,
      position smallint NOT NULL,
      artist_id uuid NOT NULL REFERENCES indexed_artists (id),
      role text NOT NULL CHECK (role IN ('main', 'featured')),
      PRIMARY KEY (track_id, position)
    )`
  yield* sql`CREATE INDEX track_artists_artist_idx ON track_artists (artist_id, track_id)`
  yield* sql`
    CREATE TABLE album_artists (
      album_id uuid NOT NULL REFERENCES indexed_albums (id) ON DELETE CASCADE,
      position smallint NOT NULL,
      artist_id uuid NOT NULL REFERENCES indexed_artists (id),
      PRIMARY KEY (album_id, position)
    )`
  yield* sql`CREATE INDEX album_artists_artist_idx ON album_artists (artist_id, album_id)`
  yield* sql`INSERT INTO track_artists (track_id, position, artist_id, role) SELECT id, 0, artist_id, 'main' FROM indexed_tracks`
  yield* sql`INSERT INTO album_artists (album_id, position, artist_id) SELECT id, 0, artist_id FROM indexed_albums`

  // Album lists sort by the sort key now (ALBUMSORT, articles), and the title index follows.
  yield* sql`DROP INDEX IF EXISTS indexed_albums_title_order_idx`
  yield* sql`
    CREATE INDEX indexed_albums_title_order_idx ON indexed_albums (sort_key COLLATE "C", title COLLATE "C", id)
    WHERE missing_since IS NULL`

  // The views of present rows were expanded at creation (0006): re-create them to see the new columns.
  for (const table of ["tracks", "albums", "artists"] as const) {
    yield* sql.unsafe(`CREATE OR REPLACE VIEW ${table} AS SELECT * FROM indexed_${table} WHERE missing_since IS NULL`)
  }
})
