import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** The indexed library: artists, albums, tracks, the genre index, scan runs and scan errors. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE artists (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name text NOT NULL,
      name_key text NOT NULL UNIQUE,
      sort_name text NOT NULL,
      sort_key text NOT NULL,
      search_key text NOT NULL,
      mbid text,
      art_source text CHECK (art_source IS NULL OR art_source <> ''),
      album_count integer NOT NULL DEFAULT 0,
      track_count integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE albums (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      album_key text NOT NULL UNIQUE,
      title text NOT NULL,
      artist_id uuid NOT NULL REFERENCES artists (id),
      search_key text NOT NULL,
      release_date date,
      year integer NOT NULL DEFAULT 0,
      mbid text,
      compilation boolean NOT NULL DEFAULT false,
      cover_art_source text CHECK (cover_art_source IS NULL OR cover_art_source <> ''),
      cover_path text,
      track_count integer NOT NULL DEFAULT 0,
      duration_ms bigint NOT NULL DEFAULT 0,
      added_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX albums_artist_idx ON albums (artist_id)`
  yield* sql`CREATE INDEX albums_year_idx ON albums (year) WHERE year > 0`
  yield* sql`CREATE INDEX albums_added_idx ON albums (added_at DESC)`
  yield* sql`
    CREATE TABLE tracks (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      path text NOT NULL UNIQUE,
      directory text NOT NULL,
      size_bytes bigint NOT NULL,
      mtime_ms bigint NOT NULL,
      title text NOT NULL,
      search_key text NOT NULL,
      album_id uuid NOT NULL REFERENCES albums (id),
      artist_id uuid NOT NULL REFERENCES artists (id),
      track_number integer,
      disc_number integer,
      duration_ms integer NOT NULL,
      genre text,
      file_format text NOT NULL,
      bitrate_kbps integer,
      mbid text,
      has_embedded_cover boolean NOT NULL DEFAULT false,
      added_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX tracks_album_idx ON tracks (album_id, disc_number, track_number)`
  yield* sql`CREATE INDEX tracks_artist_idx ON tracks (artist_id)`
  yield* sql`
    CREATE TABLE track_genres (
      track_id uuid NOT NULL REFERENCES tracks (id) ON DELETE CASCADE,
      genre text NOT NULL,
      PRIMARY KEY (track_id, genre)
    )`
  yield* sql`CREATE INDEX track_genres_genre_idx ON track_genres (genre)`
  yield* sql`
    CREATE TABLE library_folders (
      path text PRIMARY KEY,
      sidecar text,
      sidecar_mtime_ms bigint,
      scanned_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE scan_errors (
      path text PRIMARY KEY,
      size_bytes bigint NOT NULL,
      mtime_ms bigint NOT NULL,
      message text NOT NULL,
      seen_at timestamptz NOT NULL
    )`
  yield* sql`
    CREATE TABLE scans (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      state text NOT NULL CHECK (state IN ('running', 'completed', 'failed')),
      full_scan boolean NOT NULL,
      started_at timestamptz NOT NULL,
      finished_at timestamptz,
      files_seen integer NOT NULL DEFAULT 0,
      added integer NOT NULL DEFAULT 0,
      updated integer NOT NULL DEFAULT 0,
      removed integer NOT NULL DEFAULT 0,
      errors integer NOT NULL DEFAULT 0,
      message text
    )`
})
