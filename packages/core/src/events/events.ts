import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ImportProgressData } from "../history/Imports.js"
import { Authentication } from "../http/Authentication.js"

const IdData = Schema.Struct({ id: Schema.String })
const TrackData = Schema.Struct({ track_id: Schema.String })
const PlaylistData = Schema.Struct({ playlist_id: Schema.String })

/**
 * Every event kind the server publishes and the `data` it carries (spec "Events"; contract "Events"):
 * the one list both the publisher's types and the wire's kind literal come from.
 */
export const EventPayloads = {
  "track.liked": IdData,
  "track.unliked": IdData,
  "album.liked": IdData,
  "album.unliked": IdData,
  "artist.liked": IdData,
  "artist.unliked": IdData,
  "request.status_changed": Schema.Struct({ request_id: Schema.String, status: Schema.String }),
  "quarantine.flagged": TrackData,
  "quarantine.unflagged": TrackData,
  "quarantine.resolved": TrackData,
  "quarantine.file_deleted": TrackData,
  "quarantine.deleted_via_manager": TrackData,
  "playlist.created": PlaylistData,
  "playlist.updated": PlaylistData,
  "playlist.deleted": PlaylistData,
  "playlist.tracks_changed": PlaylistData,
  "playlist.system_rebuilt": Schema.Struct({}),
  "import.progress": ImportProgressData,
} as const

export type EventKind = keyof typeof EventPayloads
export const EventKind = Schema.Literal(...(Object.keys(EventPayloads) as [EventKind, ...Array<EventKind>]))

/** What `data` holds for one kind. */
export type EventData<K extends EventKind> = (typeof EventPayloads)[K]["Type"]

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
