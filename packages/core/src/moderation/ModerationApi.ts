import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Conflict, envelopeOf, NotFound, ServiceUnavailable } from "../errors.js"
import { AdminAuthentication, Authentication } from "../http/Authentication.js"
import { TrackId } from "../ids.js"
import {
  FlagRequest,
  QuarantineEntry,
  QuarantineId,
  QuarantinePage,
  QuarantineQuery,
  QuarantineResolved,
  ResolveQuarantineRequest,
} from "./Quarantine.js"

const trackId = HttpApiSchema.param("id", TrackId)
const quarantineId = HttpApiSchema.param("id", QuarantineId)

/** A listener flags a track (it leaves their shuffle, radio, top tracks and system playlists) or unflags it. */
export class QuarantineApi extends HttpApiGroup.make("quarantine")
  .add(
    HttpApiEndpoint.post("flag")`/api/tracks/${trackId}/quarantine`
      .setPayload(FlagRequest)
      .addSuccess(QuarantineEntry, { status: 201 })
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Flags a track for admin review; it disappears for the caller from shuffle, top tracks, radio and every system playlist until unflagged or resolved `keep`. Flagging again answers the open flag. Broadcasts `quarantine.flagged`.",
      ),
  )
  .add(
    HttpApiEndpoint.del("unflag")`/api/tracks/${trackId}/quarantine`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Withdraws the caller's open flag (idempotent); `quarantine.unflagged` to the caller.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Quarantine") {}

/** The admin's review of flagged tracks. */
export class ModerationApi extends HttpApiGroup.make("moderation")
  .add(
    HttpApiEndpoint.get("list", "/api/admin/quarantine")
      .setUrlParams(QuarantineQuery)
      .addSuccess(QuarantinePage)
      .annotate(
        OpenApi.Description,
        "Flags, newest first; `resolved` filters open (false) or resolved (true) ones; `limit` defaults to 50 and is clamped to 200.",
      ),
  )
  .add(
    HttpApiEndpoint.post("resolve")`/api/admin/quarantine/${quarantineId}/resolve`
      .setPayload(ResolveQuarantineRequest)
      .addSuccess(QuarantineResolved)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict))
      .addError(envelopeOf(ServiceUnavailable))
      .annotate(
        OpenApi.Description,
        "Resolves every open flag on the entry's track: `keep` (the track returns), `delete_file` (the file is removed from disk, never outside the library root, and the track from the library), or `delete_via_manager` (the acquisition manager deletes it; 409 `conflict` when no manager is configured, 503 `service_unavailable` when it fails). Already resolved: 409 `conflict`.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: quarantine") {}
