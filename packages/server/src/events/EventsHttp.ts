import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { CurrentSession, SSE_CONNECTED, SSE_HEARTBEAT, sseFrame, TonearmApi } from "@tonearm/core"
import { Effect, Schedule, Stream } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { EventBus } from "./EventBus.js"

const encoder = new TextEncoder()

/** `: connected` at once, `: heartbeat` on a schedule, and the caller's events as they come. */
export const EventsHttpLive = HttpApiBuilder.group(TonearmApi, "events", (handlers) =>
  Effect.gen(function* () {
    const bus = yield* EventBus
    const { sseHeartbeatSeconds } = yield* TonearmConfig
    return handlers.handle("stream", () =>
      Effect.gen(function* () {
        const { user } = yield* CurrentSession
        const events = Stream.unwrapScoped(
          Effect.map(bus.subscribe(user.id), (queue) => Stream.fromQueue(queue).pipe(Stream.map(sseFrame))),
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
