import type { WalkResult } from "./walk.js"

/**
 * How the index writes a file's path when several libraries are scanned (issue 27). Paths stay unique across the
 * whole index (every `ON CONFLICT (path)`, the folder and scan-error tables, covers found by path keep working):
 *
 * - library 1 (the index made before libraries existed, or the first configured folder): relative to its folder,
 *   as always (`Artist/Album/01.flac`), so an existing index is not rewritten;
 * - any other library N: the same relative path under `/N` (`/2/Artist/Album/01.flac`, its root folder `/2`).
 *
 * A relative path never starts with `/`, so the two never meet. The library's folder is not in the path: a library
 * whose folder is given again elsewhere keeps its rows. The file on disk is `root of N` + the relative part.
 */
export const PRIMARY_LIBRARY = 1

/** The stored form of a path relative to library `libraryId`'s folder ("" is the folder itself). */
export const storedPathOf = (libraryId: number, relative: string): string =>
  libraryId === PRIMARY_LIBRARY ? relative : relative === "" ? `/${libraryId}` : `/${libraryId}/${relative}`

/** A stored path's library and its path relative to that library's folder. */
export const splitStoredPath = (stored: string): { readonly libraryId: number; readonly relative: string } => {
  if (!stored.startsWith("/")) return { libraryId: PRIMARY_LIBRARY, relative: stored }
  const slash = stored.indexOf("/", 1)
  const id = Number(slash === -1 ? stored.slice(1) : stored.slice(1, slash))
  return Number.isInteger(id) && id > 0
    ? { libraryId: id, relative: slash === -1 ? "" : stored.slice(slash + 1) }
    : { libraryId: PRIMARY_LIBRARY, relative: stored }
}

/** The library a stored path belongs to. */
export const libraryOfStoredPath = (stored: string): number => splitStoredPath(stored).libraryId

/** A walk of one library's folder, its paths in the stored form (library 1's are unchanged). */
export const walkInLibrary = (walked: WalkResult, libraryId: number): WalkResult => {
  if (libraryId === PRIMARY_LIBRARY) return walked
  const at = (relative: string) => storedPathOf(libraryId, relative)
  const stats = <A extends { readonly path: string }>(map: ReadonlyMap<string, A>) =>
    new Map([...map].map(([folder, stat]) => [at(folder), { ...stat, path: at(stat.path) }]))
  return {
    folders: new Map(
      [...walked.folders].map(([folder, found]) => [
        at(folder),
        { path: at(found.path), files: found.files.map((file) => ({ ...file, path: at(file.path) })) },
      ]),
    ),
    sidecars: stats(walked.sidecars),
    ...(walked.artistImages === undefined ? {} : { artistImages: stats(walked.artistImages) }),
    ...(walked.skipped === undefined ? {} : { skipped: walked.skipped }),
  }
}

/**
 * The SQL condition "this path column belongs to library N" (the scanner's reads of one library's folders and
 * errors). Library 1's paths are the relative ones.
 */
export const libraryPathPattern = (libraryId: number): { readonly primary: boolean; readonly prefix: string } => ({
  primary: libraryId === PRIMARY_LIBRARY,
  prefix: `/${libraryId}`,
})
