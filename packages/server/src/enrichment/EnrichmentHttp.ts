import { HttpApiBuilder } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { LibraryService } from "../library/index.js"
import { EnrichmentService } from "./EnrichmentService.js"

export const TagSourcesHttpLive = HttpApiBuilder.group(TonearmApi, "tagSources", (handlers) =>
  Effect.gen(function* () {
    const enrichment = yield* EnrichmentService
    return handlers
      .handle("list", () => enrichment.list)
      .handle("research", () => enrichment.research)
      .handle("update", ({ path, payload }) => enrichment.update(path.id, payload))
      .handle("test", ({ path }) => enrichment.test(path.id))
  }),
)

export const CoverRefetchHttpLive = HttpApiBuilder.group(TonearmApi, "coverRefetch", (handlers) =>
  Effect.map(EnrichmentService, (enrichment) =>
    handlers.handle("refetchMissing", () => enrichment.refetchMissingCovers),
  ),
)

/** GET /api/admin/cover-sources: the library's coverage with the external providers' switches. */
export const CoverSourcesHttpLive = HttpApiBuilder.group(TonearmApi, "coverSources", (handlers) =>
  Effect.gen(function* () {
    const library = yield* LibraryService
    const enrichment = yield* EnrichmentService
    return handlers.handle("list", () => Effect.flatMap(enrichment.enabledIds, library.coverSources))
  }),
)
