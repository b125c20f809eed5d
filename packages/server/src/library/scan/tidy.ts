import { Effect } from "effect"
import { ChangeLog, changesOf } from "../../changes/index.js"
import { currentDate } from "../../clock.js"
import { CatalogRepository } from "../CatalogRepository.js"
import type { ScanPlan } from "./plan.js"

/**
 * After the writes: removes the tracks whose files are gone, forgets folders and errors no longer on disk,
 * and (when anything changed) drops what was left empty and refreshes the stored counts, logging each change.
 * Answers how many tracks were removed.
 */
export const tidy = (planned: ScanPlan) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    const removedIds = yield* catalog.removeTracks(planned.removedPaths)
    yield* changes.record(changesOf("track", "delete", removedIds), yield* currentDate)
    yield* catalog.forgetFolders(planned.foldersToForget)
    yield* catalog.forgetErrors(planned.errorsToForget)
    if (planned.dirty.length > 0 || removedIds.length > 0) {
      const tidied = yield* catalog.tidy
      yield* changes.record(
        [
          ...changesOf("album", "delete", tidied.deletedAlbums),
          ...changesOf("artist", "delete", tidied.deletedArtists),
          ...changesOf("album", "upsert", tidied.changedAlbums),
          ...changesOf("artist", "upsert", tidied.changedArtists),
        ],
        yield* currentDate,
      )
    }
    return { removed: removedIds.length }
  }).pipe(Effect.withSpan("Scanner.tidy"))
