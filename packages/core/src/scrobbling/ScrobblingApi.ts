import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, envelopeOf, InvalidToken, NotFound, ServiceUnavailable } from "../errors.js"
import { Authentication } from "../http/Authentication.js"
import { LastfmSessionRequest, ScrobblerSettings, ScrobblerUpdate } from "./Scrobbling.js"

// Any text, so an unknown provider is the contract's 404 not_found rather than a schema failure.
const provider = HttpApiSchema.param("provider", Schema.String)

/** The caller's scrobblers (contract "Listening history in and out": scrobbling out). */
export class ScrobblersApi extends HttpApiGroup.make("scrobblers")
  .add(
    HttpApiEndpoint.get("get")`/api/me/scrobblers/${provider}`
      .addSuccess(ScrobblerSettings)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "`listenbrainz` or `lastfm`: whether completed plays are sent there, whether a token (Last.fm: a session) is set (never the token itself: `token` is a masked hint), and how the queue stands. Another provider: 404.",
      ),
  )
  .add(
    HttpApiEndpoint.put("update")`/api/me/scrobblers/${provider}`
      .setPayload(ScrobblerUpdate)
      .addSuccess(ScrobblerSettings)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "`{enabled?, token?}`: switch sending on or off (off drops what is still queued for that provider) and set the secret (ListenBrainz user token; Last.fm session key), null or empty to remove it. Plays are queued only while enabled with a token.",
      ),
  )
  .add(
    HttpApiEndpoint.post("lastfmSession", "/api/me/scrobblers/lastfm/session")
      .setPayload(LastfmSessionRequest)
      .addSuccess(ScrobblerSettings)
      .addError(envelopeOf(InvalidToken))
      .addError(envelopeOf(Conflict))
      .addError(envelopeOf(ServiceUnavailable))
      .annotate(
        OpenApi.Description,
        "Exchanges the `token` Last.fm's web auth gave the callback for a session key (auth.getSession, signed), stores it and switches Last.fm scrobbling on. A token Last.fm refuses: 400 invalid_token; Last.fm not configured on this server: 409 conflict; Last.fm unreachable: 503.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Scrobbling") {}
