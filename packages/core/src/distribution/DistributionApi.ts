import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { envelopeOf, NotFound, RateLimited } from "../errors.js"
import { Authentication } from "../http/Authentication.js"
import { APK_CONTENT_TYPE, ClientVersion } from "./Distribution.js"

const apk = HttpApiSchema.Uint8Array({ contentType: APK_CONTENT_TYPE })

/** The mobile client's installer and its version, for signed-in users. */
export class ClientDistributionApi extends HttpApiGroup.make("client")
  .add(
    HttpApiEndpoint.get("version", "/api/client/version")
      .addSuccess(ClientVersion)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "The installer's version from the build's sidecar, with its size and SHA-256; 404 unless both app.apk and version.json exist.",
      ),
  )
  .add(
    HttpApiEndpoint.get("apk", "/api/client/apk")
      .addSuccess(apk)
      .addSuccess(apk, { status: 206 })
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(RateLimited))
      .annotate(
        OpenApi.Description,
        "The installer (application/vnd.android.package-archive) with single Range requests. A download that starts at byte 0 may start once per 60 s per user (else 429 with Retry-After); resumes are never limited.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Client distribution") {}
