import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { envelopeOf, InvalidTrackId, NotFound, ServiceUnavailable, Unauthenticated } from "../errors.js"
import { Authentication } from "../http/Authentication.js"
import { TrackId } from "../ids.js"
import { TranscodeParams } from "./transcode.js"

/**
 * The stream route's own guard (spec Authentication 3): a session cookie, a bearer token, or a signed
 * stream token (`?exp=&token=`) for this very track. It runs before the track is looked up, so a request
 * without a valid credential is 401 whether or not the track exists.
 */
export class StreamAuthentication extends HttpApiMiddleware.Tag<StreamAuthentication>()("StreamAuthentication", {
  failure: envelopeOf(Unauthenticated),
}) {}

const trackId = HttpApiSchema.param("id", TrackId)
const extension = HttpApiSchema.param("ext", Schema.String)

export const StreamTokenParams = Schema.Struct({
  exp: Schema.optional(Schema.String),
  token: Schema.optional(Schema.String),
})

/** A stream's query: the signed token, and the transcoding options (`format`, `maxBitRate`, `timeOffset`). */
export const StreamParams = Schema.Struct({ ...StreamTokenParams.fields, ...TranscodeParams.fields })

const audio = HttpApiSchema.Uint8Array({ contentType: "audio/*" })
const STREAM_DESCRIPTION =
  "Audio bytes with HEAD and single Range requests (206/416). Auth: session cookie, bearer token, or `exp`+`token` from POST /api/cast/stream-token. Cache-Control max-age=31536000, immutable. Transcoding (when ffmpeg is installed): `format=mp3|opus|raw`, `maxBitRate` kbit/s (0 = no limit; mp3 32-320, opus 16-256), `timeOffset` seconds; transcoded output is streamed as it is encoded (chunked, no Content-Length, no Range: Accept-Ranges none); 503 `service_unavailable` with Retry-After when every transcoder is busy."

export class StreamingApi extends HttpApiGroup.make("streaming")
  .add(
    HttpApiEndpoint.get("stream")`/api/tracks/${trackId}/stream`
      .setUrlParams(StreamParams)
      .addSuccess(audio)
      .addSuccess(audio, { status: 206 })
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(ServiceUnavailable))
      .annotate(OpenApi.Description, STREAM_DESCRIPTION),
  )
  .add(
    HttpApiEndpoint.get("streamWithExtension")`/api/tracks/${trackId}/stream.${extension}`
      .setUrlParams(StreamParams)
      .addSuccess(audio)
      .addSuccess(audio, { status: 206 })
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(ServiceUnavailable))
      .annotate(OpenApi.Description, `${STREAM_DESCRIPTION} The extension is only a hint for speakers.`),
  )
  .middleware(StreamAuthentication)
  .annotate(OpenApi.Title, "Streaming") {}

export const CastTokenRequest = Schema.Struct({
  /** A string here so a malformed id is the contract's 400 `invalid_track_id`, not a schema failure. */
  track_id: Schema.String,
  expSeconds: Schema.optional(Schema.Number),
})

export class CastToken extends Schema.Class<CastToken>("CastToken")({
  token: Schema.String,
  exp: Schema.Int,
  url: Schema.String,
  mime: Schema.String,
  title: Schema.String,
}) {}

/** Signed, time-limited stream URLs for network speakers (spec "Streaming to speakers"). */
export class CastApi extends HttpApiGroup.make("cast")
  .add(
    HttpApiEndpoint.post("streamToken", "/api/cast/stream-token")
      .setPayload(CastTokenRequest)
      .setUrlParams(Schema.Struct({ expSeconds: Schema.optional(Schema.NumberFromString) }))
      .addSuccess(CastToken)
      .addError(envelopeOf(InvalidTrackId))
      .addError(envelopeOf(NotFound)),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Casting") {}
