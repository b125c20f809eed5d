import { promises as fs } from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import type { AlbumId, TrackId } from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { decodeFirst } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export interface LibraryFile {
  /** Absolute, real path, proven to lie inside the library root. */
  readonly absolutePath: string
  readonly sizeBytes: number
  readonly mtimeMs: number
}

/**
 * Resolves a library-relative path to a real file inside the library root. `..` segments and symlinks
 * that lead outside the root resolve to None: nothing outside the library is ever served.
 */
export const resolveInLibrary = (root: string, relative: string) =>
  Effect.promise(async (): Promise<Option.Option<LibraryFile>> => {
    try {
      const realRoot = await fs.realpath(root)
      const candidate = path.resolve(realRoot, ...relative.split("/"))
      if (!candidate.startsWith(realRoot + path.sep)) return Option.none()
      const real = await fs.realpath(candidate)
      if (!real.startsWith(realRoot + path.sep)) return Option.none()
      const stat = await fs.stat(real)
      if (!stat.isFile()) return Option.none()
      return Option.some({ absolutePath: real, sizeBytes: stat.size, mtimeMs: Math.floor(stat.mtimeMs) })
    } catch {
      return Option.none()
    }
  })

const TrackFileRow = Schema.Struct({ path: Schema.String, file_format: Schema.String, title: Schema.String })
const CoverRow = Schema.Struct({
  cover_art_source: Schema.NullOr(Schema.String),
  cover_path: Schema.NullOr(Schema.String),
})

/** The files behind tracks and album covers, for the stream, cast and cover routes. */
export class TrackFiles extends Effect.Service<TrackFiles>()("@tonearm/server/TrackFiles", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { libraryDir } = yield* TonearmConfig

    const trackRow = (id: TrackId) =>
      sql`SELECT path, file_format, title FROM tracks WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeFirst(TrackFileRow)),
        orInternal("TrackFiles.track"),
      )

    /** A track's row, without touching its file (cast tokens). */
    const track = trackRow

    /** A track's file, when both the row and a file inside the library exist. */
    const trackFile = (id: TrackId) =>
      Effect.gen(function* () {
        const row = yield* trackRow(id)
        if (Option.isNone(row)) return Option.none()
        const file = yield* resolveInLibrary(libraryDir, row.value.path)
        return Option.map(file, (found) => ({ ...found, fileFormat: row.value.file_format, title: row.value.title }))
      })

    /** An album's cover source and its file. */
    const coverFile = (id: AlbumId) =>
      Effect.gen(function* () {
        const row = yield* sql`SELECT cover_art_source, cover_path FROM albums WHERE id = ${id}`.pipe(
          Effect.flatMap(decodeFirst(CoverRow)),
          orInternal("TrackFiles.cover"),
        )
        if (Option.isNone(row) || row.value.cover_art_source === null || row.value.cover_path === null)
          return Option.none()
        const source = row.value.cover_art_source
        const file = yield* resolveInLibrary(libraryDir, row.value.cover_path)
        return Option.map(file, (found) => ({ ...found, source }))
      })

    return { track, trackFile, coverFile } as const
  }),
}) {}
