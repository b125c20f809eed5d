import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import {
  CurrentSession,
  type EventEnvelope,
  type SessionUser,
  SSE_CONNECTED,
  SSE_HEARTBEAT,
  sseFrame,
  TonearmApi,
} from "@tonearm/core"
import { Effect, Schedule, Stream } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import type { LibraryScope } from "../db/libraryScope.js"
import { LibraryAccess, LibraryService } from "../library/index.js"
import { EventBus } from "./EventBus.js"

const encoder = new TextEncoder()

/** `: connected` at once, `: heartbeat` on a schedule, and the caller's events as they come. */
export const EventsHttpLive = HttpApiBuilder.group(TonearmApi, "events", (handlers) =>
  Effect.gen(function* () {
    const bus = yield* EventBus
    const access = yield* LibraryAccess
    const library = yield* LibraryService
    const { sseHeartbeatSeconds } = yield* TonearmConfig

    /**
     * Whether a listener may see an event (issue 27): one naming a track (a broadcast quarantine event) only when
     * the track is in one of their libraries, read through the same catalogue as every other read of theirs.
     */
    const visibleTo = (user: SessionUser, scope: LibraryScope) => (event: EventEnvelope) => {
      const trackId = (event.data as { readonly track_id?: unknown } | null)?.track_id
      if (scope.ids === undefined || typeof trackId !== "string") return Effect.succeed(true)
      return library.tracksByIds([trackId]).pipe(
        Effect.map((found) => found.length > 0),
        Effect.orElseSucceed(() => false),
        LibraryAccess.asCaller(user),
      )
    }

    return handlers.handle("stream", () =>
      Effect.gen(function* () {
        const { user } = yield* CurrentSession
        const scope = yield* access.forUser(user).pipe(Effect.orElseSucceed((): LibraryScope => ({ ids: [] })))
        const events = Stream.unwrapScoped(
          Effect.map(bus.subscribe(user.id), (queue) =>
            Stream.fromQueue(queue).pipe(Stream.filterEffect(visibleTo(user, scope)), Stream.map(sseFrame)),
          ),
        )
        const heartbeats = Stream.repeatEffectWithSchedule(
          Effect.succeed(SSE_HEARTBEAT),
          Schedule.spaced(`${sseHeartbeatSeconds} seconds`),
        ).pipe(Stream.drop(1))
        const body = Stream.concat(
          Stream.make(SSE_CONNECTED),
          Stream.merge(events, heartbeats, { haltStrategy: "either" }),
        )
        return HttpServerResponse.stream(
          Stream.map(body, (text) => encoder.encode(text)),
          {
            contentType: "text/event-stream",
            headers: { "cache-control": "no-store", "x-accel-buffering": "no", connection: "keep-alive" },
          },
        )
      }),
    )
  }),
)
