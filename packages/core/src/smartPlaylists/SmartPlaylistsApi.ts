import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, envelopeOf, NotFound } from "../errors.js"
import { Authentication } from "../http/Authentication.js"
import { PlaylistId } from "../ids.js"
import {
  NewSmartPlaylist,
  SmartPlaylist,
  SmartPlaylistPatch,
  SmartPlaylistSummary,
  SmartPreview,
  SmartPreviewRequest,
} from "./SmartPlaylists.js"

const playlistId = HttpApiSchema.param("id", PlaylistId)

/**
 * Smart playlists (issue 28 item 5; the contract is silent, see docs/spec/playlists.md): the rules of the caller's
 * own smart playlists. The playlist itself is an ordinary one of the caller's (listed, read, renamed and deleted
 * through the playlists routes, exposed to Subsonic apps); its entries are the server's (edits answer 409).
 */
export class SmartPlaylistsApi extends HttpApiGroup.make("smartPlaylists")
  .add(HttpApiEndpoint.get("list", "/api/smart-playlists").addSuccess(Schema.Array(SmartPlaylistSummary)))
  .add(
    HttpApiEndpoint.post("create", "/api/smart-playlists")
      .setPayload(NewSmartPlaylist)
      .addSuccess(SmartPlaylist, { status: 201 })
      .annotate(OpenApi.Description, "Saves the rules as a new playlist of the caller's and fills it now."),
  )
  .add(
    HttpApiEndpoint.post("preview", "/api/smart-playlists/preview")
      .setPayload(SmartPreviewRequest)
      .addSuccess(SmartPreview)
      .annotate(OpenApi.Description, "How many tracks the rules match now, and how many the playlist would hold."),
  )
  .add(
    HttpApiEndpoint.get("get")`/api/smart-playlists/${playlistId}`
      .addSuccess(SmartPlaylist)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.put("update")`/api/smart-playlists/${playlistId}`
      .setPayload(SmartPlaylistPatch)
      .addSuccess(SmartPlaylist)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict))
      .annotate(OpenApi.Description, "Replaces the rules (and the name when given) and fills the playlist again."),
  )
  .add(
    HttpApiEndpoint.post("refresh")`/api/smart-playlists/${playlistId}/refresh`
      .addSuccess(SmartPlaylist)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Evaluates the rules again now (the nightly run does it for every smart playlist).",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Smart playlists") {}
