import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ConflictingFilters, envelopeOf, InvertedYearRange, NotFound } from "../errors.js"
import { AdminAuthentication, Authentication } from "../http/Authentication.js"
import { AlbumId, ArtistId, TrackId } from "../ids.js"
import {
  AlbumDetail,
  AlbumPage,
  AlbumQuery,
  ArtistDetail,
  ArtistPage,
  ArtistQuery,
  CoverQuery,
  CoverSources,
  GenreRow,
  LimitQuery,
  SearchQuery,
  SearchResult,
  ShuffleResult,
  YearRow,
} from "./Library.js"
import { LibraryList } from "./libraries.js"
import { Lyrics } from "./lyrics.js"
import { MissingTrackPage, MissingTracksQuery, PurgeMissingRequest, PurgeMissingResult } from "./missing.js"
import { ScanErrorPage, ScanErrorsQuery, ScanStarted, ScanStatus, StartScanRequest } from "./scan.js"

const albumId = HttpApiSchema.param("id", AlbumId)
const artistId = HttpApiSchema.param("id", ArtistId)
const trackId = HttpApiSchema.param("id", TrackId)

/** Browsing the indexed library. */
export class LibraryApi extends HttpApiGroup.make("library")
  .add(
    HttpApiEndpoint.get("genres", "/api/library/genres")
      .addSuccess(Schema.Array(GenreRow))
      .annotate(OpenApi.Description, "Every genre of the genre rule with its track count; unpaged."),
  )
  .add(
    HttpApiEndpoint.get("years", "/api/library/years")
      .addSuccess(Schema.Array(YearRow))
      .annotate(OpenApi.Description, "Release years with their album counts; undated albums have no bucket."),
  )
  .add(
    HttpApiEndpoint.get("albums", "/api/library/albums")
      .setUrlParams(AlbumQuery)
      .addSuccess(AlbumPage)
      .addError(envelopeOf(ConflictingFilters))
      .addError(envelopeOf(InvertedYearRange))
      .annotate(
        OpenApi.Description,
        "A page of albums, filtered by `genre` or by an inclusive `year_from`–`year_to` range (either edge may be open), never both. With `artist_id`, that artist's albums (`role=album_artist`, the default) or the other albums crediting them (`role=appears_on`), in year order; an unknown artist has an empty page.",
      ),
  )
  .add(
    HttpApiEndpoint.get("artists", "/api/library/artists")
      .setUrlParams(ArtistQuery)
      .addSuccess(ArtistPage)
      .annotate(OpenApi.Description, "A page of artists A–Z by sort name (every credited artist has a row)."),
  )
  .add(
    HttpApiEndpoint.get("libraries", "/api/library/libraries")
      .addSuccess(LibraryList)
      .annotate(OpenApi.Description, "The libraries the caller hears (an admin: every library)."),
  )
  .add(HttpApiEndpoint.get("shuffle", "/api/library/shuffle").setUrlParams(LimitQuery).addSuccess(ShuffleResult))
  .add(HttpApiEndpoint.get("search", "/api/search").setUrlParams(SearchQuery).addSuccess(SearchResult))
  .add(HttpApiEndpoint.get("album")`/api/albums/${albumId}`.addSuccess(AlbumDetail).addError(envelopeOf(NotFound)))
  .add(HttpApiEndpoint.get("artist")`/api/artists/${artistId}`.addSuccess(ArtistDetail).addError(envelopeOf(NotFound)))
  .add(
    HttpApiEndpoint.get("lyrics")`/api/tracks/${trackId}/lyrics`
      .addSuccess(Lyrics)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "The track's lyrics, read from its files: a sidecar `.lrc` with the audio file's base name, else the file's tags (synced ID3 SYLT or LRC-formatted text first, then USLT, Vorbis/FLAC `LYRICS`/`UNSYNCEDLYRICS`, MP4 `©lyr`), else a sidecar `.txt`. `start_ms` is null in unsynced lines; `lang` is null when unknown. 404 `not_found` for an unknown or missing track, or when it has no lyrics.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Library") {}

/** Album art: image bytes, resized on request, cached. */
export class CoversApi extends HttpApiGroup.make("covers")
  .add(
    HttpApiEndpoint.get("albumCover")`/api/albums/${albumId}/cover`
      .setUrlParams(CoverQuery)
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/*" }))
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "The album's cover (sidecar or embedded), optionally resized to `size` px. ETag/304; Cache-Control max-age=86400, must-revalidate.",
      ),
  )
  .add(
    HttpApiEndpoint.get("artistImage")`/api/artists/${artistId}/image`
      .setUrlParams(CoverQuery)
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/*" }))
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "The artist's image (from an enrichment provider; `art_source` names it), optionally resized to `size` px. 404 when the artist has none. ETag/304.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Covers") {}

/** Which providers cover which albums. */
export class CoverSourcesApi extends HttpApiGroup.make("coverSources")
  .add(HttpApiEndpoint.get("list", "/api/admin/cover-sources").addSuccess(CoverSources))
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: cover sources") {}

/** Tracks whose files vanished: kept (hidden) until a scan finds them again or an admin purges them. */
export class MissingTracksApi extends HttpApiGroup.make("missingTracks")
  .add(
    HttpApiEndpoint.get("list", "/api/admin/library/missing")
      .setUrlParams(MissingTracksQuery)
      .addSuccess(MissingTrackPage)
      .annotate(
        OpenApi.Description,
        "Tracks whose files vanished, the longest missing first, with `missing_since`; `limit` defaults to 50 and is clamped to 500.",
      ),
  )
  .add(
    HttpApiEndpoint.post("purge", "/api/admin/library/missing/purge")
      .setPayload(PurgeMissingRequest)
      .addSuccess(PurgeMissingResult)
      .annotate(
        OpenApi.Description,
        "Deletes missing tracks for good: `track_ids`, or every missing track when absent (ids of tracks that are not missing are ignored). Their likes, playlist entries and plays no longer show anywhere; albums and artists left with no tracks are deleted.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: missing tracks") {}

/** Library scans. */
export class ScanApi extends HttpApiGroup.make("scan")
  .add(
    HttpApiEndpoint.post("start", "/api/admin/scan")
      .setPayload(StartScanRequest)
      .addSuccess(ScanStarted, { status: 202 })
      .annotate(
        OpenApi.Description,
        "Starts an incremental scan (`full: true` re-reads every file; no body or `{}` is incremental). `started` is false when one is running.",
      ),
  )
  .add(HttpApiEndpoint.get("status", "/api/admin/scan").addSuccess(ScanStatus))
  .add(
    HttpApiEndpoint.get("errors", "/api/admin/scan/errors")
      .setUrlParams(ScanErrorsQuery)
      .addSuccess(ScanErrorPage)
      .annotate(
        OpenApi.Description,
        "The files scans could not index and why, by path; `limit` defaults to 50 and is clamped to 500.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: library scan") {}
