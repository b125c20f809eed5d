import { expect, layer } from "@effect/vitest"
import { Chunk, Effect, Fiber, Logger, LogLevel, Queue } from "effect"
import { EventBus, SUBSCRIBER_BUFFER } from "../../src/events/index.js"
import { createAndLogIn, signUpFirstAdmin } from "../support/accounts.js"
import { openSse } from "../support/sse.js"
import { secondReplica, serverUrl, TestServerLive } from "../support/TestServer.js"

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

layer(TestServerLive(), { excludeTestServices: true, timeout: "120 seconds" })("event fan-out", (it) => {
  it.scoped("events published on one replica reach subscribers connected to another (LISTEN/NOTIFY)", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      const other = yield* secondReplica()
      const onOther = yield* openSse(other, admin.token)
      const onThis = yield* openSse(yield* serverUrl, admin.token)
      yield* onOther.waitFor((frame) => frame.text === "connected")
      yield* onThis.waitFor((frame) => frame.text === "connected")
      const bus = yield* EventBus // the first replica's bus
      yield* bus.publish("playlist.created", admin.user.id, { playlist_id: "p1" })
      const [received] = yield* onOther.waitFor((frame) => frame.event === "playlist.created")
      expect(received!.data).toEqual({ kind: "playlist.created", user_id: admin.user.id, data: { playlist_id: "p1" } })
      yield* onThis.waitFor((frame) => frame.event === "playlist.created")
    }),
  )

  it.scoped("a full subscriber buffer drops new events and the publisher never waits for it", () =>
    Effect.gen(function* () {
      const { logIn } = yield* Effect.promise(() => import("../support/accounts.js"))
      const admin = yield* logIn("admin")
      const bus = yield* EventBus
      const stalled = yield* bus.subscribe(admin.user.id)
      const active = yield* bus.subscribe(admin.user.id)
      const total = SUBSCRIBER_BUFFER + 100
      // The active subscriber keeps reading while the events arrive.
      const reading = yield* Effect.gen(function* () {
        const received: Array<string> = []
        while (received.length < total) {
          const event = yield* Queue.take(active)
          received.push(String((event.data as { id: string }).id))
        }
        return received
      }).pipe(Effect.fork)
      const started = performance.now()
      for (let i = 0; i < total; i++) yield* bus.publish("album.liked", admin.user.id, { id: String(i) })
      const publishMs = performance.now() - started
      expect(yield* Fiber.join(reading)).toEqual(Array.from({ length: total }, (_, i) => String(i)))
      // The stalled queue kept the first SUBSCRIBER_BUFFER events and dropped the rest.
      expect(yield* Queue.size(stalled)).toBe(SUBSCRIBER_BUFFER)
      const kept = yield* Queue.takeAll(stalled)
      expect(Chunk.toReadonlyArray(kept).map((event) => (event.data as { id: string }).id)).toEqual(
        Array.from({ length: SUBSCRIBER_BUFFER }, (_, i) => String(i)),
      )
      yield* Effect.logInfo(
        `bus: ${total} events published in ${publishMs.toFixed(0)} ms with a stalled subscriber holding a full buffer`,
      ).pipe(Logger.withMinimumLogLevel(LogLevel.Info)) // the measurement is the point: print it despite QuietLogs
    }),
  )

  it.scoped("stalled SSE readers do not hold up the others (measured)", () =>
    Effect.gen(function* () {
      const { logIn } = yield* Effect.promise(() => import("../support/accounts.js"))
      const admin = yield* logIn("admin")
      const bus = yield* EventBus
      const url = yield* serverUrl
      // Ten listeners with five streams each (a user may hold STREAMS_PER_USER), and one whose five stall.
      const listeners = yield* Effect.forEach(Array.from({ length: 11 }), (_, i) =>
        createAndLogIn(admin.client, `fan-${i}`),
      )
      const readers = yield* Effect.forEach(
        Array.from({ length: 50 }),
        (_, i) => openSse(url, listeners[i % 10]!.token),
        { concurrency: 10 },
      )
      const stalled = yield* Effect.forEach(Array.from({ length: 5 }), () =>
        openSse(url, listeners[10]!.token, { stall: true }),
      )
      expect(stalled.every((connection) => connection.status === 200)).toBe(true)
      yield* Effect.forEach(readers, (reader) => reader.waitFor((frame) => frame.text === "connected"), {
        discard: true,
      })
      const held = yield* bus.subscriberCount
      expect(held).toBeGreaterThanOrEqual(55)

      // Publish more than a subscriber's buffer with padding, so the stalled sockets fill up and drop.
      const events = 300
      const padding = "x".repeat(1000)
      const publishStarted = performance.now()
      for (let i = 0; i < events; i++) {
        // A broadcast reaches every listener; the send time rides in the track id, padded to fill buffers.
        yield* bus.publish("quarantine.flagged", null, { track_id: `${i}|${performance.now()}|${padding}` })
      }
      const publishMs = performance.now() - publishStarted
      const delivered = yield* Effect.forEach(readers, (reader) =>
        reader.waitFor((frame) => frame.event === "quarantine.flagged", events, 60_000),
      )
      const latencies = delivered.flatMap((frames) =>
        frames.map(
          (frame) =>
            frame.receivedAt - Number((frame.data as { data: { track_id: string } }).data.track_id.split("|")[1]),
        ),
      )
      const p50 = percentile(latencies, 50)
      const p99 = percentile(latencies, 99)
      yield* Effect.logInfo(
        `SSE fan-out: ${held} subscribers held (${readers.length} reading, ${stalled.length} stalled); ${events} events published in ${publishMs.toFixed(0)} ms (${(publishMs / events).toFixed(2)} ms each); publish-to-receive p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${latencies.length} deliveries`,
      ).pipe(Logger.withMinimumLogLevel(LogLevel.Info)) // the measurement is the point: print it despite QuietLogs
      // Every reading subscriber got every event, in order.
      for (const frames of delivered) {
        expect(
          frames.map((frame) => (frame.data as { data: { track_id: string } }).data.track_id.split("|")[0]),
        ).toEqual(Array.from({ length: events }, (_, i) => String(i)))
      }
      expect(p99).toBeLessThan(5_000)
    }),
  )
})
