import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, envelopeOf, NotFound, PayloadTooLarge, UnknownKind } from "../errors.js"
import { AdminAuthentication, Authentication } from "../http/Authentication.js"
import {
  DiagnosticDevice,
  DiagnosticPage,
  DiagnosticsAccepted,
  DiagnosticsQuery,
  PlaybackError,
  PlaybackErrorId,
  PlaybackErrorPage,
  PlaybackErrorReport,
  PlaybackErrorReported,
  PlaybackErrorsQuery,
  ResolvePlaybackErrorRequest,
} from "./Diagnostics.js"

const playbackErrorId = HttpApiSchema.param("id", PlaybackErrorId)

/** A client reports a track that would not play. */
export class PlaybackErrorsApi extends HttpApiGroup.make("playbackErrors")
  .add(
    HttpApiEndpoint.post("report", "/api/playback-errors")
      .setPayload(PlaybackErrorReport)
      .addSuccess(PlaybackErrorReported, { status: 201 })
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(UnknownKind))
      .annotate(
        OpenApi.Description,
        "Any signed-in user. The track must exist (404); `kind` is one of load_failed, stalled, zero_duration (else 400 `unknown_kind`); `client_id` is required.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Playback errors") {}

/** The admin's triage of reported playback errors. */
export class AdminPlaybackErrorsApi extends HttpApiGroup.make("adminPlaybackErrors")
  .add(
    HttpApiEndpoint.get("list", "/api/admin/playback-errors")
      .setUrlParams(PlaybackErrorsQuery)
      .addSuccess(PlaybackErrorPage)
      .annotate(
        OpenApi.Description,
        "Newest first, joined with track, album and artist names; `resolved` filters; `limit` defaults to 50 and is clamped to 200.",
      ),
  )
  .add(
    HttpApiEndpoint.post("resolve")`/api/admin/playback-errors/${playbackErrorId}/resolve`
      .setPayload(ResolvePlaybackErrorRequest)
      .addSuccess(PlaybackError)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict))
      .annotate(
        OpenApi.Description,
        "Marks an unresolved error resolved with `resolution` (fixed, ignored, hidden, deleted, re_requested); already resolved: 409 `conflict`.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: playback errors") {}

/** Device diagnostics, stored only while the caller's debug mode is on. */
export class DiagnosticsApi extends HttpApiGroup.make("diagnostics")
  .add(
    HttpApiEndpoint.post("report", "/api/diagnostics")
      // Read as plain JSON: with debug mode off nothing is parsed beyond JSON (contract).
      .setPayload(Schema.Unknown.annotations({ identifier: "DiagnosticBatch", description: "{events: [...]}" }))
      .addSuccess(DiagnosticsAccepted, { status: 202 })
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(UnknownKind))
      .addError(envelopeOf(PayloadTooLarge))
      .annotate(
        OpenApi.Description,
        `Body {events: [{kind, device_id, occurred_at (RFC 3339 or epoch ms), data}]} (max 500). Debug mode off: 204 and nothing stored. On: any unknown kind rejects the whole batch (400 \`unknown_kind\`), else 202 {accepted}.`,
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Diagnostics") {}

/** The admin's diagnostics timeline and device overview. */
export class AdminDiagnosticsApi extends HttpApiGroup.make("adminDiagnostics")
  .add(
    HttpApiEndpoint.get("timeline", "/api/admin/diagnostics")
      .setUrlParams(DiagnosticsQuery)
      .addSuccess(DiagnosticPage)
      .addError(envelopeOf(UnknownKind))
      .annotate(
        OpenApi.Description,
        "Events oldest first, filtered by `user_id`, `device_id`, `kind` and the inclusive window `from`–`to` (RFC 3339 or epoch ms); `limit` defaults to 500 and is clamped to 5000; follow `cursor` until it is null.",
      ),
  )
  .add(
    HttpApiEndpoint.get("devices", "/api/admin/diagnostics/devices")
      .addSuccess(Schema.Array(DiagnosticDevice))
      .annotate(
        OpenApi.Description,
        "One row per account and device with stored events, the most recently heard first.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: diagnostics") {}
