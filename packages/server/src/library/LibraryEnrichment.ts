import { Effect } from "effect"
import { CatalogRepository } from "./CatalogRepository.js"

/**
 * What enrichment may change in the catalogue (the catalogue stays its tables' only writer): a MusicBrainz
 * id for an entity that had none, an external cover for an album that has no local one, an artist's image.
 */
export class LibraryEnrichment extends Effect.Service<LibraryEnrichment>()("@tonearm/server/LibraryEnrichment", {
  effect: Effect.gen(function* () {
    const catalog = yield* CatalogRepository
    return {
      adoptMbid: catalog.adoptMbid,
      adoptExternalCover: catalog.adoptExternalCover,
      adoptArtistArt: catalog.adoptArtistArt,
    } as const
  }),
  dependencies: [CatalogRepository.Default],
}) {}
