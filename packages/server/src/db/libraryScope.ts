import type { SqlClient, Statement } from "@effect/sql"

/**
 * Which libraries a read may see (contract "Multiple libraries"): every one (`ids` undefined: admins, background
 * work, a listener who hears them all) or these. The access rule itself is written once, in SQL: the
 * `visible_tracks`, `visible_albums` and `visible_artists` functions of migration 0024.
 */
export interface LibraryScope {
  readonly ids: ReadonlyArray<number> | undefined
}

export const EVERY_LIBRARY: LibraryScope = { ids: undefined }

/** A scope's cache key: answers kept for one library set are never served to another. */
export const scopeKey = (scope: LibraryScope): string => (scope.ids === undefined ? "*" : scope.ids.join(","))

/** The scope narrowed to one library (the browse routes' `library_id`): none when the caller does not hear it. */
export const narrowScope = (scope: LibraryScope, libraryId: number | undefined): LibraryScope =>
  libraryId === undefined ? scope : { ids: scope.ids === undefined || scope.ids.includes(libraryId) ? [libraryId] : [] }

/** Whether a scope sees a row of this library. */
export const scopeSees = (scope: LibraryScope, libraryId: number): boolean =>
  scope.ids === undefined || scope.ids.includes(libraryId)

/** The catalogue as a scope sees it: what a repository reads instead of the `tracks`, `albums`, `artists` views. */
export interface Catalogue {
  readonly tracks: Statement.Fragment
  readonly albums: Statement.Fragment
  readonly artists: Statement.Fragment
  /** Whether this is every library (the derived indexes, kept for the whole catalogue, answer for it). */
  readonly whole: boolean
}

/**
 * The one way a repository reads the catalogue for a caller. Every library: the plain views, so the statement and
 * its plan are those of a single-library server; some libraries: the access functions, inlined by the planner.
 */
export const catalogueIn = (sql: SqlClient.SqlClient, scope: LibraryScope): Catalogue => {
  if (scope.ids === undefined) {
    return {
      tracks: sql.literal("tracks"),
      albums: sql.literal("albums"),
      artists: sql.literal("artists"),
      whole: true,
    }
  }
  const ids = [...scope.ids]
  return {
    tracks: sql`visible_tracks(${ids}::int[])`,
    albums: sql`visible_albums(${ids}::int[])`,
    artists: sql`visible_artists(${ids}::int[])`,
    whole: false,
  }
}
