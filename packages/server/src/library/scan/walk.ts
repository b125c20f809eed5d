import { Effect } from "effect"
import { CatalogRepository } from "../CatalogRepository.js"
import { walkLibrary } from "../walk.js"
import type { KnownIndex } from "./plan.js"

/**
 * The folders on disk and what the index already holds, read at once: one waits on the disk, the other on
 * the database. `ignored` is what the walk skips (default: hidden metadata only).
 */
export const walk = (root: string, ignored?: (relative: string) => boolean) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const [walked, tracks, errors, folders] = yield* Effect.all(
      [walkLibrary(root, ignored), catalog.knownTracks, catalog.knownErrors, catalog.knownFolders],
      { concurrency: 4 },
    )
    const known: KnownIndex = { tracks, errors, folders }
    return { walked, known }
  }).pipe(Effect.withSpan("Scanner.walk"))
