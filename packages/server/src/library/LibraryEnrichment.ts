import { SqlClient } from "@effect/sql"
import type { Internal } from "@tonearm/core"
import { Effect } from "effect"
import { ChangeLog, changesOf } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { CatalogRepository } from "./CatalogRepository.js"

/**
 * What enrichment may change in the catalogue (the catalogue stays its tables' only writer): a MusicBrainz
 * id for an entity that had none, an external cover for an album that has no local one, an artist's image.
 * Each change is logged as the entity's upsert in the same transaction, like a scan's: sync clients fetch the
 * entity again, and the answers kept per library version (album pages, search) are recomputed.
 */
export class LibraryEnrichment extends Effect.Service<LibraryEnrichment>()("@tonearm/server/LibraryEnrichment", {
  effect: Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    const changes = yield* ChangeLog
    const sql = yield* SqlClient.SqlClient

    const logged = (kind: "album" | "artist", id: string, adopt: Effect.Effect<boolean, Internal>) =>
      adopt.pipe(
        Effect.tap((adopted) =>
          adopted
            ? Effect.flatMap(currentDate, (now) => changes.record(changesOf(kind, "upsert", [id]), now))
            : Effect.void,
        ),
        sql.withTransaction,
        orInternal(`LibraryEnrichment.${kind}`),
      )

    return {
      adoptMbid: (kind: "album" | "artist", id: string, mbid: string) =>
        logged(kind, id, catalog.adoptMbid(kind, id, mbid)),
      adoptExternalCover: (albumId: string, source: string, coverPath: string) =>
        logged("album", albumId, catalog.adoptExternalCover(albumId, source, coverPath)),
      adoptArtistArt: (artistId: string, source: string) =>
        logged("artist", artistId, catalog.adoptArtistArt(artistId, source)),
    } as const
  }),
  dependencies: [CatalogRepository.Default, ChangeLog.Default],
}) {}
