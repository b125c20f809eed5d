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
import { LibrariesService } from "./LibrariesService.js"
import { LibraryAccess } from "./LibraryAccess.js"
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
    const libraries = yield* LibrariesService
    return handlers
      .handle("genres", () => library.genres)
      .handle("years", () => library.years)
      .handle("libraries", () => Effect.flatMap(CurrentSession, (session) => libraries.listFor(session.user)))
      .handle("albums", ({ urlParams }) =>
        Effect.map(library.albums(urlParams), albumPage.respond).pipe(LibraryAccess.within(urlParams.library_id)),
      )
      .handle("shuffle", ({ urlParams }) =>
        Effect.flatMap(CurrentSession, (session) => library.shuffle(urlParams.limit, session.user.id)).pipe(
          LibraryAccess.within(urlParams.library_id),
        ),
      )
      .handle("search", ({ urlParams }) =>
        Effect.map(library.search(urlParams.q, urlParams.limit), searchResult.respond).pipe(
          LibraryAccess.within(urlParams.library_id),
        ),
      )
      .handle("album", ({ path }) => Effect.map(library.album(path.id), albumDetail.respond))
      .handle("artist", ({ path }) =>
        Effect.map(library.artist(path.id, ARTIST_DETAIL_ALBUMS_MAX), artistDetail.respond),
      )
      .handle("artists", ({ urlParams }) => library.artists(urlParams).pipe(LibraryAccess.within(urlParams.library_id)))
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

/** Admins: the libraries, their scans and who hears each (contract "Multiple libraries"). */
export const AdminLibrariesHttpLive = HttpApiBuilder.group(TonearmApi, "adminLibraries", (handlers) =>
  Effect.gen(function* () {
    const libraries = yield* LibrariesService
    return handlers
      .handle("list", () => libraries.list)
      .handle("add", ({ payload }) => libraries.add(payload))
      .handle("rename", ({ path, payload }) => libraries.rename(path.id, payload))
      .handle("remove", ({ path }) => libraries.remove(path.id))
      .handle("scan", ({ path }) => libraries.scan(path.id))
      .handle("userLibraries", ({ path }) => libraries.userLibraries(path.id))
      .handle("setUserLibraries", ({ path, payload }) => libraries.setUserLibraries(path.id, payload))
  }),
)
