import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../http/Authentication.js"

/** Every event kind the server publishes (spec "Events"; album/artist like kinds per contract). */
export const EventKind = Schema.Literal(
  "track.liked",
  "track.unliked",
  "album.liked",
  "album.unliked",
  "artist.liked",
  "artist.unliked",
  "request.status_changed",
  "quarantine.flagged",
  "quarantine.unflagged",
  "quarantine.resolved",
  "quarantine.file_deleted",
  "quarantine.deleted_via_manager",
  "playlist.created",
  "playlist.updated",
  "playlist.deleted",
  "playlist.tracks_changed",
  "playlist.system_rebuilt",
)
export type EventKind = typeof EventKind.Type

/** The event envelope: `user_id` is empty for a broadcast. */
export const EventEnvelope = Schema.Struct({
  kind: EventKind,
  user_id: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
})
export type EventEnvelope = typeof EventEnvelope.Type

/** A subscriber sees an event when it is theirs or a broadcast (spec "Events"). */
export const isDeliveredTo = (event: EventEnvelope, userId: string): boolean =>
  event.user_id === "" || event.user_id === userId

/** SSE framing (contract): `event: <kind>` then `data: <json envelope>`. */
export const sseFrame = (event: EventEnvelope): string => `event: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`
export const SSE_CONNECTED = ": connected\n\n"
export const SSE_HEARTBEAT = ": heartbeat\n\n"
export const SSE_HEARTBEAT_SECONDS = 15

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("stream", "/api/events/stream")
      .addSuccess(HttpApiSchema.Text({ contentType: "text/event-stream" }))
      .annotate(
        OpenApi.Description,
        "Server-sent events: `: connected` at once, `: heartbeat` every 15 s, then `event: <kind>` / `data: <envelope>` for the caller's own events and broadcasts. Nothing is persisted: after a reconnect, fetch again.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Events") {}
