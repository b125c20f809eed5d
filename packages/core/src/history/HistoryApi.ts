import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { envelopeOf, NotFound, PayloadTooLarge } from "../errors.js"
import { AdminAuthentication, Authentication } from "../http/Authentication.js"
import {
  FileImportSource,
  ImportCreated,
  ImportId,
  ImportList,
  ImportStatus,
  ImportsPageQuery,
  ImportUploadQuery,
  LastfmImportRequest,
  UnmatchedPage,
} from "./Imports.js"

const importId = HttpApiSchema.param("id", ImportId)

/**
 * One route takes either a multipart upload (field `file` plus `source`, or `?source=`) or a JSON Last.fm pull.
 * The server reads the body itself (streamed to the data directory, never buffered); the schema here is what
 * the OpenAPI document and the typed client show (the client sends a `FormData` or the JSON object).
 */
export const ImportUpload = HttpApiSchema.Multipart(
  Schema.Struct({ file: Multipart.SingleFileSchema, source: Schema.optional(FileImportSource) }),
)
export const ImportRequest = Schema.Union(ImportUpload, LastfmImportRequest)

export const AdminImportUpload = HttpApiSchema.Multipart(
  Schema.Struct({ file: Multipart.SingleFileSchema, source: Schema.optional(Schema.Literal("navidrome_db")) }),
)

/** The caller's history imports (contract "Listening history in and out"). */
export class ImportsApi extends HttpApiGroup.make("imports")
  .add(
    HttpApiEndpoint.post("create", "/api/me/imports")
      .setPayload(ImportRequest)
      .setUrlParams(ImportUploadQuery)
      .addSuccess(ImportCreated, { status: 202 })
      .addError(envelopeOf(PayloadTooLarge))
      .annotate(
        OpenApi.Description,
        'Multipart `file` (a ListenBrainz export as JSON or JSONL, a Spotify `Streaming_History_Audio_*.json` or the zip of them) with `source` `listenbrainz_export` or `spotify_extended` (form field or `?source=`), up to TONEARM_MAX_IMPORT_BYTES; or JSON `{source: "lastfm_api", username}` to pull the account\'s scrobbles. Runs as a background job: 202 {id}.',
      ),
  )
  .add(HttpApiEndpoint.get("list", "/api/me/imports").setUrlParams(ImportsPageQuery).addSuccess(ImportList))
  .add(HttpApiEndpoint.get("get")`/api/me/imports/${importId}`.addSuccess(ImportStatus).addError(envelopeOf(NotFound)))
  .add(
    HttpApiEndpoint.get("unmatched")`/api/me/imports/${importId}/unmatched`
      .setUrlParams(ImportsPageQuery)
      .addSuccess(UnmatchedPage)
      .addError(envelopeOf(NotFound))
      .annotate(OpenApi.Description, "The entries that matched no library track, in file order, paged."),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "History imports") {}

/** The admin's Navidrome import (every user's stars, plays, ratings and playlists, matched by username). */
export class AdminImportsApi extends HttpApiGroup.make("adminImports")
  .add(
    HttpApiEndpoint.post("create", "/api/admin/imports")
      .setPayload(AdminImportUpload)
      .addSuccess(ImportCreated, { status: 202 })
      .addError(envelopeOf(PayloadTooLarge))
      .annotate(OpenApi.Description, "Multipart `file` = a Navidrome `navidrome.db` (source `navidrome_db`)."),
  )
  .add(
    HttpApiEndpoint.get("get")`/api/admin/imports/${importId}`.addSuccess(ImportStatus).addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.get("unmatched")`/api/admin/imports/${importId}/unmatched`
      .setUrlParams(ImportsPageQuery)
      .addSuccess(UnmatchedPage)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Any import's entries that matched no library track (stars, plays, playlist entries of a Navidrome import), paged.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "History imports (admin)") {}

/** The caller's whole listening history out, as ListenBrainz-compatible JSON lines. */
export class PlaysExportApi extends HttpApiGroup.make("playsExport")
  .add(
    HttpApiEndpoint.get("export", "/api/me/plays/export")
      .addSuccess(HttpApiSchema.Text({ contentType: "application/x-ndjson" }))
      .annotate(
        OpenApi.Description,
        "Streams every play, oldest first, one ListenBrainz listen per line: `listened_at`, `track_metadata` {artist_name, track_name, release_name, additional_info {recording_mbid, duration_ms, tonearm_track_id, …}}. `POST /api/me/imports` with `listenbrainz_export` reads it back (nothing doubles).",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Listening export") {}
