import { randomUUID } from "node:crypto"
import { Migrator, SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { pgClientLayer } from "../../src/db/Database.js"
import { migrations } from "../../src/db/Migrations.js"
import { adminQuery, databaseUrl } from "../support/adminDatabase.js"

/** An empty database of its own, migrated by the test itself: up to 0023, then 0024 over the data it holds. */
const PreviousSchemaLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const adminUrl = inject("adminDatabaseUrl")
    const name = `tonearm_t_${randomUUID().replaceAll("-", "")}`
    yield* Effect.acquireRelease(adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE template1`), () =>
      adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.orDie),
    ).pipe(Effect.orDie)
    return pgClientLayer(Redacted.make(databaseUrl(adminUrl, name)))
  }),
)

const before = Object.fromEntries(Object.entries(migrations).filter(([key]) => key < "0024"))
const migrate = (record: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>) =>
  Migrator.make({})({ loader: Migrator.fromRecord(record) })

layer(PreviousSchemaLive)("migration 0024: libraries", (it) => {
  it.effect(
    "an index made before libraries becomes library 1, every user hears it, nothing lost; new users hear every library",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* migrate(before)
        const now = new Date()
        const [user] = yield* sql<{ id: string }>`
          INSERT INTO users (username, password_hash, created_at, updated_at)
          VALUES ('old', 'x', ${now}, ${now}) RETURNING id`
        const [artist] = yield* sql<{ id: string }>`
          INSERT INTO indexed_artists (name, name_key, sort_name, sort_key, search_key, created_at, updated_at)
          VALUES ('A', 'a', 'A', 'a', 'a', ${now}, ${now}) RETURNING id`
        const [album] = yield* sql<{ id: string }>`
          INSERT INTO indexed_albums (album_key, title, artist_id, search_key, added_at, updated_at)
          VALUES ('k', 'Album', ${artist!.id}, 'album', ${now}, ${now}) RETURNING id`
        const [track] = yield* sql<{ id: string }>`
          INSERT INTO indexed_tracks (path, directory, size_bytes, mtime_ms, title, search_key, album_id, artist_id,
                                      duration_ms, file_format, added_at, updated_at)
          VALUES ('A/01.flac', 'A', 1, 1, 'One', 'one', ${album!.id}, ${artist!.id}, 1000, 'flac', ${now}, ${now})
          RETURNING id`
        yield* sql`INSERT INTO track_artists (track_id, artist_id, role, position) VALUES (${track!.id}, ${artist!.id}, 'main', 0)`
        yield* sql`INSERT INTO likes (user_id, entity, entity_id, liked_at) VALUES (${user!.id}, 'track', ${track!.id}, ${now})`

        yield* migrate(migrations)

        expect(yield* sql`SELECT id, name, path FROM libraries`).toEqual([{ id: 1, name: "Music", path: null }])
        expect(yield* sql`SELECT id, library_id FROM tracks`).toEqual([{ id: track!.id, library_id: 1 }])
        expect(yield* sql`SELECT id, library_id FROM albums`).toEqual([{ id: album!.id, library_id: 1 }])
        expect(yield* sql`SELECT user_id, library_id FROM user_libraries`).toEqual([
          { user_id: user!.id, library_id: 1 },
        ])
        expect(yield* sql`SELECT entity_id FROM likes`).toEqual([{ entity_id: track!.id }])
        // The access functions: library 1 sees the rows, another set none.
        expect((yield* sql`SELECT id FROM visible_tracks(${[1]}::int[])`).length).toBe(1)
        expect((yield* sql`SELECT id FROM visible_albums(${[1]}::int[])`).length).toBe(1)
        expect((yield* sql`SELECT id FROM visible_artists(${[1]}::int[])`).length).toBe(1)
        expect((yield* sql`SELECT id FROM visible_tracks(${[2]}::int[])`).length).toBe(0)
        expect((yield* sql`SELECT id FROM visible_artists(${[2]}::int[])`).length).toBe(0)

        // A second library; a user created now hears both, the old user only what they had.
        yield* sql`INSERT INTO libraries (name, path) VALUES ('Audiobooks', '/srv/audiobooks')`
        const [fresh] = yield* sql<{ id: string }>`
          INSERT INTO users (username, password_hash, created_at, updated_at)
          VALUES ('new', 'x', ${now}, ${now}) RETURNING id`
        expect(
          yield* sql`SELECT library_id FROM user_libraries WHERE user_id = ${fresh!.id} ORDER BY library_id`,
        ).toEqual([{ library_id: 1 }, { library_id: 2 }])
        expect(yield* sql`SELECT library_id FROM user_libraries WHERE user_id = ${user!.id}`).toEqual([
          { library_id: 1 },
        ])
      }),
  )
})
