import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Conflict, envelopeOf, InvalidRequest, NotFound } from "../errors.js"
import { Authentication } from "../http/Authentication.js"
import { PlaylistId } from "../ids.js"
import {
  AddTracks,
  NewPlaylist,
  PlaylistDetail,
  PlaylistPatch,
  PlaylistRow,
  RemoveEntries,
  ReorderEntries,
} from "./Playlists.js"

const playlistId = HttpApiSchema.param("id", PlaylistId)

/** User playlists, and the read side of system playlists (contract "Playlists"). */
export class PlaylistsApi extends HttpApiGroup.make("playlists")
  .add(HttpApiEndpoint.get("list", "/api/playlists").addSuccess(Schema.Array(PlaylistRow)))
  .add(
    HttpApiEndpoint.post("create", "/api/playlists")
      .setPayload(NewPlaylist)
      .addSuccess(PlaylistDetail, { status: 201 })
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.get("get")`/api/playlists/${playlistId}`.addSuccess(PlaylistDetail).addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.patch("update")`/api/playlists/${playlistId}`
      .setPayload(PlaylistPatch)
      .addSuccess(PlaylistDetail)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.del("delete")`/api/playlists/${playlistId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.post("addTracks")`/api/playlists/${playlistId}/tracks`
      .setPayload(AddTracks)
      .addSuccess(PlaylistDetail)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.del("removeEntries")`/api/playlists/${playlistId}/tracks`
      .setPayload(RemoveEntries)
      .addSuccess(PlaylistDetail)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict)),
  )
  .add(
    HttpApiEndpoint.put("reorder")`/api/playlists/${playlistId}/tracks/order`
      .setPayload(ReorderEntries)
      .addSuccess(PlaylistDetail)
      .addError(envelopeOf(NotFound))
      .addError(envelopeOf(Conflict))
      .addError(envelopeOf(InvalidRequest)),
  )
  .add(
    HttpApiEndpoint.get("cover")`/api/playlists/${playlistId}/cover`
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "image/jpeg" }))
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "A collage of the playlist's album covers: 2×2 of distinct albums, the first cover alone when fewer than four. Cache-Control max-age=300, must-revalidate.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Playlists") {}
