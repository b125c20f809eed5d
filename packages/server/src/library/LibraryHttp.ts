import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { CoverService } from "./CoverService.js"
import { LibraryService } from "./LibraryService.js"
import { ScanService } from "./ScanService.js"

export const LibraryHttpLive = HttpApiBuilder.group(TonearmApi, "library", (handlers) =>
  Effect.gen(function* () {
    const library = yield* LibraryService
    return handlers
      .handle("genres", () => library.genres)
      .handle("years", () => library.years)
      .handle("albums", ({ urlParams }) => library.albums(urlParams))
      .handle("shuffle", ({ urlParams }) => library.shuffle(urlParams.limit))
      .handle("search", ({ urlParams }) => library.search(urlParams.q, urlParams.limit))
      .handle("album", ({ path }) => library.album(path.id))
      .handle("artist", ({ path }) => library.artist(path.id))
  }),
)

/** Covers revalidate daily (spec). */
export const COVER_CACHE_CONTROL = "max-age=86400, must-revalidate"

export const CoversHttpLive = HttpApiBuilder.group(TonearmApi, "covers", (handlers) =>
  Effect.gen(function* () {
    const covers = yield* CoverService
    return handlers.handle("albumCover", ({ path, urlParams }) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const cover = yield* covers.albumCover(path.id, urlParams.size, request.headers["if-none-match"])
        const headers = { etag: cover.etag, "cache-control": COVER_CACHE_CONTROL }
        return cover._tag === "NotModified"
          ? HttpServerResponse.empty({ status: 304, headers })
          : HttpServerResponse.uint8Array(cover.bytes, { contentType: cover.contentType, headers })
      }),
    )
  }),
)

export const CoverSourcesHttpLive = HttpApiBuilder.group(TonearmApi, "coverSources", (handlers) =>
  Effect.map(LibraryService, (library) => handlers.handle("list", () => library.coverSources)),
)

export const ScanHttpLive = HttpApiBuilder.group(TonearmApi, "scan", (handlers) =>
  Effect.gen(function* () {
    const scans = yield* ScanService
    return handlers
      .handle("start", ({ payload }) => scans.start(payload.full ?? false))
      .handle("status", () => scans.status)
  }),
)
