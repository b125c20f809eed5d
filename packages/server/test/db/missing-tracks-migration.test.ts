import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestDatabaseLive } from "../support/TestDatabase.js"

layer(TestDatabaseLive)("migration 0006: tracks, albums and artists are views of indexed_*", (it) => {
  it.effect(
    "foreign keys and indexes follow the renamed tables; the views are auto-updatable and filter missing rows",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const foreignKeys = yield* sql<{ from_table: string; to_table: string }>`
        SELECT conrelid::regclass::text AS from_table, confrelid::regclass::text AS to_table
        FROM pg_constraint WHERE contype = 'f' AND confrelid::regclass::text LIKE 'indexed_%'
          -- this migration's tables; later migrations add their own keys to indexed_* (checked in their tests)
          AND conrelid::regclass::text IN ('indexed_albums', 'indexed_tracks', 'track_genres')
        ORDER BY 1, 2`
        expect(foreignKeys).toEqual([
          { from_table: "indexed_albums", to_table: "indexed_artists" },
          { from_table: "indexed_tracks", to_table: "indexed_albums" },
          { from_table: "indexed_tracks", to_table: "indexed_artists" },
          { from_table: "track_genres", to_table: "indexed_tracks" },
        ])
        const indexes = yield* sql<{ indexname: string; tablename: string }>`
        SELECT indexname, tablename FROM pg_indexes
        WHERE indexname IN ('tracks_pkey', 'tracks_path_key', 'tracks_album_idx', 'tracks_artist_idx',
                            'albums_album_key_key', 'albums_artist_idx', 'artists_name_key_key')
        ORDER BY indexname`
        expect(indexes.map((row) => row.tablename)).toEqual([
          "indexed_albums",
          "indexed_albums",
          "indexed_artists",
          "indexed_tracks",
          "indexed_tracks",
          "indexed_tracks",
          "indexed_tracks",
        ])
        const views = yield* sql<{ table_name: string; is_updatable: string }>`
        SELECT table_name, is_updatable FROM information_schema.views
        WHERE table_name IN ('tracks', 'albums', 'artists') ORDER BY table_name`
        expect(views).toEqual([
          { table_name: "albums", is_updatable: "YES" },
          { table_name: "artists", is_updatable: "YES" },
          { table_name: "tracks", is_updatable: "YES" },
        ])
        const now = new Date()
        yield* sql`
        INSERT INTO indexed_artists (name, name_key, sort_name, sort_key, search_key, created_at, updated_at, missing_since)
        VALUES ('Gone', 'gone', 'Gone', 'gone', 'gone', ${now}, ${now}, ${now}), ('Here', 'here', 'Here', 'here', 'here', ${now}, ${now}, NULL)`
        expect((yield* sql<{ name: string }>`SELECT name FROM artists`).map((row) => row.name)).toEqual(["Here"])
      }),
  )
})
