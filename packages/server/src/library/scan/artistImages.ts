import { SqlClient } from "@effect/sql"
import { chooseArtistImages } from "@tonearm/core"
import { Effect } from "effect"
import { ChangeLog, changesOf } from "../../changes/index.js"
import { currentDate } from "../../clock.js"
import { orInternal } from "../../db/sqlErrors.js"
import { CatalogRepository } from "../CatalogRepository.js"
import { isDiscFolder } from "../catalogRows.js"
import { PRIMARY_LIBRARY } from "../libraryPaths.js"
import type { WalkResult } from "../walk.js"
import { folderOf } from "./plan.js"

/** A track folder's album folder: a disc folder (`CD1`) stands for its parent, as for album covers. */
export const albumFolderOf = (directory: string): string =>
  directory !== "" && isDiscFolder(directory) ? folderOf(directory) : directory

/**
 * After tidying: every album artist takes the `artist.*` image found in its artist folder (the parent of an album
 * folder) or in an album folder (core's `chooseArtistImages`), as source `sidecar`, over any provider's image;
 * an artist whose image file is gone loses it (a provider may fill it again). Runs on every scan, since an image
 * can come or go without any track changing; with no image on disk and none indexed it costs one statement.
 * Changed artists are logged as upserts in the same transaction.
 */
export const artistImages = (walked: WalkResult, libraryId: number = PRIMARY_LIBRARY) =>
  Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    const sql = yield* SqlClient.SqlClient
    const images = new Map([...(walked.artistImages ?? new Map())].map(([folder, image]) => [folder, image.path]))
    const now = yield* currentDate
    yield* Effect.gen(function* () {
      const folders = images.size === 0 ? [] : yield* catalog.albumArtistFolders
      const chosen = chooseArtistImages(
        folders.map((row) => ({
          artistId: row.artist_id,
          albumFolder: albumFolderOf(row.directory),
          tracks: row.tracks,
        })),
        images,
      )
      const changed = yield* catalog.setArtistSidecars(
        [...chosen].map(([artistId, path]) => ({ artistId, path })),
        now,
        libraryId,
      )
      yield* changes.record(changesOf("artist", "upsert", changed), now)
    }).pipe(sql.withTransaction, orInternal("Scanner.artistImages"))
  }).pipe(Effect.withSpan("Scanner.artistImages"))
