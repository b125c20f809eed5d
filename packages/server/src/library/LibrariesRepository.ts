import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** A library row, with how many present tracks it holds (migration 0024). */
export const LibraryRecord = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  path: Schema.NullOr(Schema.String),
  track_count: Schema.Int,
  scanned_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  removed_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
})
export type LibraryRecord = typeof LibraryRecord.Type

/** The libraries and who hears each: the only writer of `libraries` and `user_libraries`. */
export class LibrariesRepository extends Effect.Service<LibrariesRepository>()("@tonearm/server/LibrariesRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const decode = decodeRows(LibraryRecord)
    // Catalogue-wide (an admin's figure): every present track of each library.
    const columns = sql.literal(`l.id, l.name, l.path, l.scanned_at, l.removed_at,
        (SELECT count(*)::int FROM tracks t WHERE t.library_id = l.id) AS track_count`)

    /** Every library, removed ones included (the caller filters), by id. */
    const all = sql`SELECT ${columns} FROM libraries l ORDER BY l.id`.pipe(
      Effect.flatMap(decode),
      orInternal("LibrariesRepository.all"),
    )

    const byId = (id: number) =>
      sql`SELECT ${columns} FROM libraries l WHERE l.id = ${id}`.pipe(
        Effect.flatMap(decode),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        orInternal("LibrariesRepository.byId"),
      )

    const byPath = (path: string) =>
      sql`SELECT ${columns} FROM libraries l WHERE l.path = ${path}`.pipe(
        Effect.flatMap(decode),
        Effect.map((rows) => Option.fromNullable(rows[0])),
        orInternal("LibrariesRepository.byPath"),
      )

    /** The ids of the libraries present now (not removed). */
    const activeIds = sql<{ id: number }>`SELECT id FROM libraries WHERE removed_at IS NULL ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((row) => row.id)),
      orInternal("LibrariesRepository.activeIds"),
    )

    /** The library an index made before libraries existed: no path yet (migration 0024), adopted at first boot. */
    const adoptUnplaced = (path: string, name: string) =>
      sql<{ id: number }>`
          UPDATE libraries SET path = ${path}, name = ${name}
          WHERE id = (SELECT min(id) FROM libraries WHERE path IS NULL)
            AND NOT EXISTS (SELECT 1 FROM libraries WHERE path = ${path})
          RETURNING id`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.id)),
        orInternal("LibrariesRepository.adoptUnplaced"),
      )

    const insert = (name: string, path: string) =>
      sql<{ id: number }>`INSERT INTO libraries (name, path) VALUES (${name}, ${path}) RETURNING id`.pipe(
        Effect.map((rows) => rows[0]!.id),
        orInternal("LibrariesRepository.insert"),
      )

    /** A removed library comes back (the same id); answers when it had been removed. */
    const revive = (id: number, name: string) =>
      sql<{ removed_at: Date | null }>`
          UPDATE libraries l SET removed_at = NULL, name = ${name}
          FROM libraries before WHERE l.id = ${id} AND before.id = l.id
          RETURNING before.removed_at`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.removed_at)),
        orInternal("LibrariesRepository.revive"),
      )

    const rename = (id: number, name: string) =>
      sql<{
        id: number
      }>`UPDATE libraries SET name = ${name} WHERE id = ${id} AND removed_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("LibrariesRepository.rename"),
      )

    const markRemoved = (id: number, now: Date) =>
      sql<{ id: number }>`
          UPDATE libraries SET removed_at = ${now} WHERE id = ${id} AND removed_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("LibrariesRepository.markRemoved"),
      )

    /** A library's folder moved (the boot's reconciliation). */
    const move = (id: number, path: string) =>
      sql`UPDATE libraries SET path = ${path} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        orInternal("LibrariesRepository.move"),
      )

    const markScanned = (id: number, now: Date) =>
      sql`UPDATE libraries SET scanned_at = ${now} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        orInternal("LibrariesRepository.markScanned"),
      )

    /** The libraries a user was given (removed ones included: the caller intersects with the present ones). */
    const userLibraryIds = (userId: string) =>
      sql<{ library_id: number }>`
          SELECT library_id FROM user_libraries WHERE user_id = ${userId} ORDER BY library_id`.pipe(
        Effect.map((rows) => rows.map((row) => row.library_id)),
        orInternal("LibrariesRepository.userLibraryIds"),
      )

    /** Replaces a user's libraries. */
    const setUserLibraries = (userId: string, ids: ReadonlyArray<number>) =>
      Effect.gen(function* () {
        yield* sql`DELETE FROM user_libraries WHERE user_id = ${userId}`
        if (ids.length > 0) {
          yield* sql`
              INSERT INTO user_libraries (user_id, library_id)
              SELECT ${userId}, x FROM unnest(${[...ids]}::int[]) AS x ON CONFLICT DO NOTHING`
        }
      }).pipe(sql.withTransaction, orInternal("LibrariesRepository.setUserLibraries"))

    /** Whether a user is an admin; undefined when there is no such user. */
    const userIsAdmin = (userId: string) =>
      sql<{ is_admin: boolean }>`SELECT is_admin FROM users WHERE id = ${userId}`.pipe(
        Effect.map((rows) => rows[0]?.is_admin),
        orInternal("LibrariesRepository.userIsAdmin"),
      )

    const userExists = (userId: string) =>
      sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM users WHERE id = ${userId}) AS found`.pipe(
        Effect.map((rows) => rows[0]?.found === true),
        orInternal("LibrariesRepository.userExists"),
      )

    return {
      all,
      byId,
      byPath,
      activeIds,
      adoptUnplaced,
      insert,
      revive,
      rename,
      markRemoved,
      markScanned,
      move,
      userLibraryIds,
      setUserLibraries,
      userExists,
      userIsAdmin,
    } as const
  }),
}) {}
