import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { envelopeOf, InvalidTrackId, NotFound, RendererError, RendererUnreachable } from "../errors.js"
import { Authentication } from "../http/Authentication.js"

const rendererId = HttpApiSchema.param("id", Schema.String)
const RENDERER_ERRORS =
  "502 `renderer_unreachable` when the speaker does not answer in time, 502 `renderer_error` on a SOAP fault; 404 for a renderer that was never found or configured."

/** A renderer action without a body, answering the renderer's status. */
const rendererAction = <const Name extends string>(name: Name, path: string, description: string) =>
  HttpApiEndpoint.post(name, `/api/cast/renderers/:id/${path}`)
    .setPath(Schema.Struct({ id: Schema.String }))
    .addSuccess(CastStatus)
    .addError(envelopeOf(NotFound))
    .addError(envelopeOf(RendererUnreachable))
    .addError(envelopeOf(RendererError))
    .annotate(OpenApi.Description, `${description} ${RENDERER_ERRORS}`)

/** A UPnP/DLNA MediaRenderer the server can drive: found by SSDP on the LAN, or configured by description URL. */
export class CastRenderer extends Schema.Class<CastRenderer>("CastRenderer")({
  /** The device uuid (its UDN without `uuid:`). */
  id: Schema.String,
  name: Schema.String,
  source: Schema.Literal("discovered", "configured"),
}) {}

export class CastRenderers extends Schema.Class<CastRenderers>("CastRenderers")({
  items: Schema.Array(CastRenderer),
}) {}

/** What a renderer is doing, as it says (GetTransportInfo, GetPositionInfo, GetVolume). */
export class CastStatus extends Schema.Class<CastStatus>("CastStatus")({
  renderer_id: Schema.String,
  /** UPnP TransportState: PLAYING, PAUSED_PLAYBACK, STOPPED, TRANSITIONING, NO_MEDIA_PRESENT, … */
  state: Schema.String,
  /** The Tonearm track it plays, when its URI is one of ours. */
  track_id: Schema.NullOr(Schema.String),
  position_ms: Schema.NullOr(Schema.Int),
  duration_ms: Schema.NullOr(Schema.Int),
  /** 0–100; null when the renderer has no RenderingControl or would not say. */
  volume: Schema.NullOr(Schema.Int),
  /** The track queued with SetNextAVTransportURI, until the renderer moves on to it. */
  next_track_id: Schema.NullOr(Schema.String),
}) {}

export const CastPlayRequest = Schema.Struct({
  /** Strings so a malformed id is 400 `invalid_track_id`, as for stream tokens. */
  track_id: Schema.String,
  position_ms: Schema.optional(Schema.NonNegativeInt),
  /** Sent with SetNextAVTransportURI where the renderer supports it (gapless on the speaker). */
  next_track_id: Schema.optional(Schema.String),
})
export const CastSeekRequest = Schema.Struct({ position_ms: Schema.NonNegativeInt })
export const CastVolumeRequest = Schema.Struct({ volume: Schema.Int.pipe(Schema.between(0, 100)) })

/** Driving the household's network speakers (issue 25 item 8); stream tokens stay in the "cast" group. */
export class CastRenderersApi extends HttpApiGroup.make("castRenderers")
  .add(
    HttpApiEndpoint.get("renderers", "/api/cast/renderers")
      .addSuccess(CastRenderers)
      .annotate(
        OpenApi.Description,
        "Speakers (UPnP/DLNA MediaRenderers) found by SSDP or configured in TONEARM_UPNP_RENDERERS. A speaker is shared by the household: any signed-in user may list and drive it.",
      ),
  )
  .add(
    HttpApiEndpoint.post("play")`/api/cast/renderers/${rendererId}/play`
      .setPayload(CastPlayRequest)
      .addSuccess(CastStatus)
      .addError(envelopeOf(InvalidTrackId))
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(RendererUnreachable))
      .addError(envelopeOf(RendererError))
      .annotate(
        OpenApi.Description,
        `Plays a track on the speaker from \`position_ms\`: SetAVTransportURI with a signed stream URL and DIDL-Lite metadata, then Play (and Seek). ${RENDERER_ERRORS}`,
      ),
  )
  .add(rendererAction("pause", "pause", "Pause."))
  .add(rendererAction("resume", "resume", "Play again where it paused."))
  .add(rendererAction("stop", "stop", "Stop, and forget the cast session."))
  .add(
    HttpApiEndpoint.post("seek")`/api/cast/renderers/${rendererId}/seek`
      .setPayload(CastSeekRequest)
      .addSuccess(CastStatus)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(RendererUnreachable))
      .addError(envelopeOf(RendererError))
      .annotate(OpenApi.Description, `Seek (REL_TIME). ${RENDERER_ERRORS}`),
  )
  .add(
    HttpApiEndpoint.post("volume")`/api/cast/renderers/${rendererId}/volume`
      .setPayload(CastVolumeRequest)
      .addSuccess(CastStatus)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(RendererUnreachable))
      .addError(envelopeOf(RendererError))
      .annotate(OpenApi.Description, `SetVolume 0–100 (RenderingControl, Master). ${RENDERER_ERRORS}`),
  )
  .add(
    HttpApiEndpoint.get("status")`/api/cast/renderers/${rendererId}/status`
      .addSuccess(CastStatus)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(RendererUnreachable))
      .addError(envelopeOf(RendererError))
      .annotate(
        OpenApi.Description,
        `Polls GetTransportInfo, GetPositionInfo and GetVolume. A drop (the speaker stopped on its own mid-track, or stopped answering) and a resync are recorded as \`upnp_sync\` diagnostics for a caller in debug mode. ${RENDERER_ERRORS}`,
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Casting to speakers") {}
