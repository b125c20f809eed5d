import { Effect } from "effect"
import { CatalogRepository } from "../CatalogRepository.js"
import { PRIMARY_LIBRARY, walkInLibrary } from "../libraryPaths.js"
import { walkLibrary } from "../walk.js"
import type { KnownIndex } from "./plan.js"

/**
 * The folders on disk and what the index already holds, read at once: one waits on the disk, the other on
 * the database. `ignored` is what the walk skips (default: hidden metadata only). One library at a time: its
 * folder's paths come back in the index's stored form (`libraryPaths.ts`), beside that library's rows only.
 */
export const walk = (root: string, ignored?: (relative: string) => boolean, libraryId: number = PRIMARY_LIBRARY) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const [walked, tracks, errors, folders] = yield* Effect.all(
      [
        walkLibrary(root, ignored),
        catalog.knownTracks(libraryId),
        catalog.knownErrors(libraryId),
        catalog.knownFolders(libraryId),
      ],
      { concurrency: 4 },
    )
    const known: KnownIndex = { tracks, errors, folders }
    return { walked: walkInLibrary(walked, libraryId), known }
  }).pipe(Effect.withSpan("Scanner.walk"))
