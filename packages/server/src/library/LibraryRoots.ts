import * as path from "node:path"
import { Clock, Effect } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { LibrariesRepository } from "./LibrariesRepository.js"
import { PRIMARY_LIBRARY, splitStoredPath } from "./libraryPaths.js"

/** How long the libraries' folders are kept before they are read again (an admin may add or move one). */
const ROOTS_KEPT_MS = 2_000
/** A path of a library not among the kept folders reads them again, at most this often (removed libraries). */
const UNKNOWN_REREAD_MS = 100

/**
 * Where a stored path's file lies (`libraryPaths.ts`): its library's folder and the path relative to it. Library 1
 * without a folder yet is at the first configured folder. A path of a library with no folder has no root.
 */
export class LibraryRoots extends Effect.Service<LibraryRoots>()("@tonearm/server/LibraryRoots", {
  effect: Effect.gen(function* () {
    const libraries = yield* LibrariesRepository
    const { libraryDir } = yield* TonearmConfig
    let kept: { readonly roots: ReadonlyMap<number, string>; readonly at: number } | undefined

    const roots = (keptFor: number) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (kept !== undefined && now - kept.at < keptFor) return kept.roots
        const rows = yield* libraries.all.pipe(Effect.orElseSucceed(() => []))
        const found = new Map<number, string>()
        for (const row of rows) if (row.path !== null) found.set(row.id, row.path)
        if (!found.has(PRIMARY_LIBRARY)) found.set(PRIMARY_LIBRARY, libraryDir)
        kept = { roots: found, at: now }
        return found
      })

    /** A stored path's library folder and relative path; the root is undefined when the library has no folder. */
    const locate = (stored: string) =>
      Effect.gen(function* () {
        const { libraryId, relative } = splitStoredPath(stored)
        const known = yield* roots(ROOTS_KEPT_MS)
        // A library added within the reuse window (on this replica or another) is read at once.
        const root = known.get(libraryId) ?? (yield* roots(UNKNOWN_REREAD_MS)).get(libraryId)
        return { root, relative }
      })

    /**
     * Where a stored path's file lies on this machine: its library's folder joined with the relative part; the
     * relative part alone when the library has no folder (removed). What other programs are told (the manager).
     */
    const location = (stored: string) =>
      Effect.map(locate(stored), ({ root, relative }) =>
        root === undefined ? relative : path.join(root, ...relative.split("/")),
      )

    /** Every library's folder by id (library 1's is the first configured folder until it has its own). */
    const folders = roots(ROOTS_KEPT_MS)

    return { locate, location, folders } as const
  }),
  dependencies: [LibrariesRepository.Default],
}) {}
