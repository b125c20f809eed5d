import { HttpApiBuilder } from "@effect/platform"
import {
  AlbumDetail,
  AlbumPage,
  ARTIST_DETAIL_ALBUMS_MAX,
  ArtistDetail,
  CurrentSession,
  SearchResult,
  TonearmApi,
} from "@tonearm/core"
import { Effect, Layer } from "effect"
import { conditionalImage } from "../http/conditionalImage.js"
import { leanJson } from "../http/leanJson.js"
import { CoverService } from "./CoverService.js"
import { LibraryService } from "./LibraryService.js"
import { LyricsService } from "./LyricsService.js"
import { MissingTracksService } from "./MissingTracksService.js"
import { ScanService } from "./ScanService.js"

// The hot read routes answer through the lean encoder (same JSON as the contract's encoding, see leanJson.ts).
const albumPage = leanJson(AlbumPage)
const albumDetail = leanJson(AlbumDetail)
const artistDetail = leanJson(ArtistDetail)
const searchResult = leanJson(SearchResult)

export const LibraryHttpLive = HttpApiBuilder.group(TonearmApi, "library", (handlers) =>
  Effect.gen(function* () {
    const library = yield* LibraryService
    const lyrics = yield* LyricsService
    return handlers
      .handle("genres", () => library.genres)
      .handle("years", () => library.years)
      .handle("albums", ({ urlParams }) => Effect.map(library.albums(urlParams), albumPage.respond))
      .handle("shuffle", ({ urlParams }) =>
        Effect.flatMap(CurrentSession, (session) => library.shuffle(urlParams.limit, session.user.id)),
      )
      .handle("search", ({ urlParams }) =>
        Effect.map(library.search(urlParams.q, urlParams.limit), searchResult.respond),
      )
      .handle("album", ({ path }) => Effect.map(library.album(path.id), albumDetail.respond))
      .handle("artist", ({ path }) =>
        Effect.map(library.artist(path.id, ARTIST_DETAIL_ALBUMS_MAX), artistDetail.respond),
      )
      .handle("artists", ({ urlParams }) => library.artists(urlParams))
      .handle("lyrics", ({ path }) => lyrics.get(path.id))
  }),
)

/** Covers revalidate daily (spec). */
export const COVER_CACHE_CONTROL = "max-age=86400, must-revalidate"

export const CoversHttpLive = HttpApiBuilder.group(TonearmApi, "covers", (handlers) =>
  Effect.gen(function* () {
    const covers = yield* CoverService
    return handlers
      .handle("albumCover", ({ path, urlParams }) =>
        conditionalImage(COVER_CACHE_CONTROL, (ifNoneMatch) => covers.albumCover(path.id, urlParams.size, ifNoneMatch)),
      )
      .handle("artistImage", ({ path, urlParams }) =>
        conditionalImage(COVER_CACHE_CONTROL, (ifNoneMatch) =>
          covers.artistImage(path.id, urlParams.size, ifNoneMatch),
        ),
      )
  }),
)

export const ScanHttpLive = HttpApiBuilder.group(TonearmApi, "scan", (handlers) =>
  Effect.gen(function* () {
    const scans = yield* ScanService
    return handlers
      .handle("start", ({ payload }) => scans.start(payload.full ?? false))
      .handle("status", () => scans.status)
      .handle("errors", ({ urlParams }) => scans.errors(urlParams))
  }),
)

/** Missing tracks: the admin's list and purge (the service is this group's own). */
export const MissingTracksHttpLive = HttpApiBuilder.group(TonearmApi, "missingTracks", (handlers) =>
  Effect.gen(function* () {
    const missing = yield* MissingTracksService
    return handlers
      .handle("list", ({ urlParams }) => missing.list(urlParams))
      .handle("purge", ({ payload }) => missing.purge(payload))
  }),
).pipe(Layer.provide(MissingTracksService.Default))
