import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"

import { envelopeOf, InvalidTimezone, NotFound } from "../errors.js"
import { Authentication } from "../http/Authentication.js"
import { AlbumId, ArtistId, TrackId } from "../ids.js"
import {
  LikedItems,
  PlayEventCreated,
  PlayEventRequest,
  PlayHistory,
  PlayHistoryQuery,
  TopTracks,
} from "./Listening.js"
import { ListeningStats, ListeningStatsQuery } from "./ListeningStats.js"

const trackId = HttpApiSchema.param("id", TrackId)
const albumId = HttpApiSchema.param("id", AlbumId)
const artistId = HttpApiSchema.param("id", ArtistId)

/** Play events (contract "Play events"). */
export class PlaysApi extends HttpApiGroup.make("plays")
  .add(
    HttpApiEndpoint.post("report", "/api/events")
      .setPayload(PlayEventRequest)
      .addSuccess(PlayEventCreated, { status: 201 })
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "`play_started` and `play_offline` answer 201 {play_event_id}; `play_ended` and `play_skipped` answer 204.",
      ),
  )
  .add(HttpApiEndpoint.get("history", "/api/me/plays").setUrlParams(PlayHistoryQuery).addSuccess(PlayHistory))
  .add(
    HttpApiEndpoint.get("stats", "/api/me/listening-stats")
      .setUrlParams(ListeningStatsQuery)
      .addSuccess(ListeningStats)
      .addError(envelopeOf(InvalidTimezone))
      .annotate(
        OpenApi.Description,
        "The caller's listening over `period` (`week` = last 7 days, `month` = 30, `year` = 365, `all`; default `week`): top artists, albums, tracks and genres by unskipped plays, time listened (skips included), the listening clock (unskipped plays per ISO weekday × hour in `tz`, default the account's zone; an unknown zone: 400 invalid_timezone) and discoveries (artists first played inside the period).",
      ),
  )
  .add(
    HttpApiEndpoint.get("topTracks")`/api/artists/${artistId}/top-tracks`
      .addSuccess(TopTracks)
      .addError(envelopeOf(NotFound)),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Listening") {}

/** Likes: idempotent PUT to like, DELETE to unlike (contract "Likes"). */
export class LikesApi extends HttpApiGroup.make("likes")
  .add(
    HttpApiEndpoint.put("likeTrack")`/api/likes/tracks/${trackId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.del("unlikeTrack")`/api/likes/tracks/${trackId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.put("likeAlbum")`/api/likes/albums/${albumId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.del("unlikeAlbum")`/api/likes/albums/${albumId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.put("likeArtist")`/api/likes/artists/${artistId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound)),
  )
  .add(
    HttpApiEndpoint.del("unlikeArtist")`/api/likes/artists/${artistId}`
      .addSuccess(HttpApiSchema.NoContent)
      .addError(envelopeOf(NotFound)),
  )
  .add(HttpApiEndpoint.get("list", "/api/likes").addSuccess(LikedItems))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Likes") {}
