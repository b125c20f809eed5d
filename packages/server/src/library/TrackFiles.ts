import { promises as fs } from "node:fs"
import * as path from "node:path"
import type { AlbumId, ArtistId, TrackId } from "@tonearm/core"
import { Effect, Option } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { BrowseRepository } from "./BrowseRepository.js"
import { LibraryRoots } from "./LibraryRoots.js"

export interface LibraryFile {
  /** Absolute, real path, proven to lie inside the library root. */
  readonly absolutePath: string
  readonly sizeBytes: number
  readonly mtimeMs: number
}

/**
 * How long a real path is reused: a stream or cover request then makes two file-system calls fewer (the root's
 * and the file's), and a symlink re-pointed elsewhere is followed within a second.
 */
const REAL_PATH_REUSE_MS = 1_000
/** Real paths kept at most: a few thousand files requested within one second. */
const REAL_PATHS_KEPT = 4_096
const realPaths = new Map<string, { readonly path: string; readonly until: number }>()

/** A path's real path, looked up again once a second has passed. */
const reusedRealPath = async (of: string): Promise<string> => {
  const now = performance.now()
  const kept = realPaths.get(of)
  if (kept !== undefined && kept.until > now) return kept.path
  const real = await fs.realpath(of)
  realPaths.delete(of)
  // Insertion order: the first key is the oldest lookup.
  if (realPaths.size >= REAL_PATHS_KEPT) realPaths.delete(realPaths.keys().next().value as string)
  realPaths.set(of, { path: real, until: now + REAL_PATH_REUSE_MS })
  return real
}

/**
 * Resolves a library-relative path to a real file inside the library root. `..` segments and symlinks
 * that lead outside the root resolve to None: nothing outside the library is ever served.
 */
export const resolveInLibrary = (root: string, relative: string) =>
  Effect.promise(async (): Promise<Option.Option<LibraryFile>> => {
    try {
      const realRoot = await reusedRealPath(root)
      const candidate = path.resolve(realRoot, ...relative.split("/"))
      if (!candidate.startsWith(realRoot + path.sep)) return Option.none()
      const real = await reusedRealPath(candidate)
      if (!real.startsWith(realRoot + path.sep)) return Option.none()
      const stat = await fs.stat(real)
      if (!stat.isFile()) return Option.none()
      return Option.some({ absolutePath: real, sizeBytes: stat.size, mtimeMs: Math.floor(stat.mtimeMs) })
    } catch {
      return Option.none()
    }
  })

/** Where covers fetched from external providers are kept (their `cover_path` is relative to it). */
export const externalCoversDir = (dataDir: string) => path.join(dataDir, "covers", "external")

/** Where artist images fetched by enrichment are kept, one file per artist named by its id. */
export const externalArtistImagesDir = (dataDir: string) => path.join(dataDir, "covers", "artists")

/** The files behind tracks and album covers, for the stream, cast and cover routes. */
export class TrackFiles extends Effect.Service<TrackFiles>()("@tonearm/server/TrackFiles", {
  effect: Effect.gen(function* () {
    const browse = yield* BrowseRepository
    const roots = yield* LibraryRoots
    const { dataDir } = yield* TonearmConfig

    /** A stored path's file, inside its library's folder (`libraryPaths.ts`). */
    const inItsLibrary = (stored: string) =>
      Effect.flatMap(roots.locate(stored), ({ root, relative }) =>
        root === undefined ? Effect.succeed(Option.none<LibraryFile>()) : resolveInLibrary(root, relative),
      )

    /** A track's row, without touching its file (cast tokens). */
    const track = browse.trackFile

    /** A track's file, when both the row and a file inside the library exist. */
    const trackFile = (id: TrackId) =>
      Effect.gen(function* () {
        const row = yield* browse.trackFile(id)
        if (Option.isNone(row)) return Option.none()
        const file = yield* inItsLibrary(row.value.path)
        return Option.map(file, (found) => ({
          ...found,
          /** The stored path (`libraryPaths.ts`; its folder holds the sidecar files). */
          relativePath: row.value.path,
          fileFormat: row.value.file_format,
          title: row.value.title,
          bitrateKbps: row.value.bitrate_kbps,
        }))
      })

    /** An album's cover source and its file. */
    const coverFile = (id: AlbumId) =>
      Effect.gen(function* () {
        const row = yield* browse.albumCover(id)
        if (Option.isNone(row) || row.value.cover_art_source === null || row.value.cover_path === null)
          return Option.none()
        const source = row.value.cover_art_source
        // A local cover lies in the library; an external provider's was saved under the data directory.
        const local = source === "sidecar" || source === "embedded"
        const file = local
          ? yield* inItsLibrary(row.value.cover_path)
          : yield* resolveInLibrary(externalCoversDir(dataDir), row.value.cover_path)
        return Option.map(file, (found) => ({ ...found, source }))
      })

    /**
     * An artist's image: a local `artist.*` (source `sidecar`) lies in the library at its recorded path; a
     * provider's was saved by enrichment under the data directory, named by the artist id.
     */
    const artistImageFile = (id: ArtistId) =>
      Effect.gen(function* () {
        const row = yield* browse.artistArt(id)
        if (Option.isNone(row) || row.value.art_source === null) return Option.none()
        const source = row.value.art_source
        const local = source === "sidecar"
        if (local && row.value.art_path === null) return Option.none()
        const file = local
          ? yield* inItsLibrary(row.value.art_path!)
          : yield* resolveInLibrary(externalArtistImagesDir(dataDir), id)
        return Option.map(file, (found) => ({ ...found, source }))
      })

    return { track, trackFile, coverFile, artistImageFile, locate: roots.locate } as const
  }),
  dependencies: [BrowseRepository.Default, LibraryRoots.Default],
}) {}
