import { SqlClient } from "@effect/sql"
import {
  clampLimit,
  MISSING_PAGE_DEFAULT,
  MISSING_PAGE_MAX,
  MissingTrack,
  MissingTrackPage,
  type MissingTracksQuery,
  type PurgeMissingRequest,
  PurgeMissingResult,
} from "@tonearm/core"
import { Effect } from "effect"
import { ChangeLog, changesOf } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { CatalogRepository } from "./CatalogRepository.js"
import { MissingTracksRepository } from "./MissingTracksRepository.js"
import { tidyCatalog } from "./scan/tidy.js"

/**
 * Tracks whose files vanished (missing, not deleted): an admin lists them and may purge them for good.
 * A scan that finds a file again restores its track by itself; purging is the only way a track row dies.
 */
export class MissingTracksService extends Effect.Service<MissingTracksService>()(
  "@tonearm/server/MissingTracksService",
  {
    effect: Effect.gen(function* () {
      const missing = yield* MissingTracksRepository
      const catalog = yield* CatalogRepository
      const changes = yield* ChangeLog
      const sql = yield* SqlClient.SqlClient

      const list = Effect.fn("MissingTracksService.list")(function* (query: MissingTracksQuery) {
        const offset = query.offset ?? 0
        const limit = clampLimit(query.limit, MISSING_PAGE_DEFAULT, MISSING_PAGE_MAX)
        const page = yield* missing.page(offset, limit)
        return new MissingTrackPage({
          items: page.items.map((row) => new MissingTrack(row)),
          total: page.total,
          offset,
          limit,
        })
      })

      /**
       * Deletes the given missing tracks (ids that are not missing are ignored), or all of them, then deletes
       * the albums and artists left with no tracks at all; every change is logged for sync, in one transaction.
       */
      const purge = Effect.fn("MissingTracksService.purge")(
        function* (request: PurgeMissingRequest) {
          const purged = yield* catalog.purgeMissing(request.track_ids)
          if (purged.length > 0) {
            const now = yield* currentDate
            yield* changes.record(changesOf("track", "delete", purged), now)
            yield* tidyCatalog(now).pipe(
              Effect.provideService(CatalogRepository, catalog),
              Effect.provideService(ChangeLog, changes),
            )
          }
          return new PurgeMissingResult({ purged: purged.length })
        },
        sql.withTransaction,
        orInternal("MissingTracksService.purge"),
      )

      return { list, purge } as const
    }),
    dependencies: [MissingTracksRepository.Default, CatalogRepository.Default, ChangeLog.Default],
  },
) {}
