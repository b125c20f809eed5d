import { expect, layer } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { STREAMS_PER_USER } from "../../src/events/EventBus.js"
import { EventBus } from "../../src/events/index.js"
import { createAndLogIn, signUpFirstAdmin } from "../support/accounts.js"
import { openSse, type SseConnection } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

layer(TestServerLive({ sseHeartbeatSeconds: 1 }), { excludeTestServices: true, timeout: "60 seconds" })(
  "event stream",
  (it) => {
    it.scoped("the stream opens with `: connected` at once and sends `: heartbeat` on schedule", () =>
      Effect.gen(function* () {
        const admin = yield* signUpFirstAdmin("admin")
        const started = performance.now()
        const sse = yield* openSse(yield* serverUrl, admin.token)
        expect(sse.status).toBe(200)
        expect(sse.headers.get("content-type")).toContain("text/event-stream")
        const [connected] = yield* sse.waitFor((frame) => frame.text === "connected")
        expect(connected!.receivedAt - started).toBeLessThan(1000)
        const beats = yield* sse.waitFor((frame) => frame.text === "heartbeat", 2, 5_000)
        expect(beats[1]!.receivedAt - beats[0]!.receivedAt).toBeGreaterThan(700)
      }),
    )

    it.scoped("events reach their own user only; broadcasts reach everyone", () =>
      Effect.gen(function* () {
        const bus = yield* EventBus
        const admin = yield* signUpFirstAdmin("x").pipe(Effect.orElse(() => Effect.void))
        expect(admin).toBeUndefined()
        const alice = yield* createAndLogIn(yield* adminClient, "alice")
        const bob = yield* createAndLogIn(yield* adminClient, "bob")
        const url = yield* serverUrl
        const aliceStream = yield* openSse(url, alice.token)
        const bobStream = yield* openSse(url, bob.token)
        yield* aliceStream.waitFor((frame) => frame.text === "connected")
        yield* bobStream.waitFor((frame) => frame.text === "connected")
        yield* bus.publish("track.liked", alice.user.id, { id: "t1" })
        yield* bus.publish("quarantine.flagged", null, { track_id: "t2" })
        const aliceEvents = yield* aliceStream.waitFor((frame) => frame.type === "event", 2)
        expect(aliceEvents.map((frame) => frame.event)).toEqual(["track.liked", "quarantine.flagged"])
        expect(aliceEvents[0]!.data).toEqual({ kind: "track.liked", user_id: alice.user.id, data: { id: "t1" } })
        expect(aliceEvents[0]!.text).toMatch(/^event: track\.liked\ndata: \{/)
        const bobEvents = yield* bobStream.waitFor((frame) => frame.type === "event", 1)
        yield* Effect.sleep("200 millis")
        expect(bobStream.frames.filter((frame) => frame.type === "event").map((frame) => frame.event)).toEqual([
          "quarantine.flagged",
        ])
        expect(bobEvents[0]!.data).toMatchObject({ user_id: "" })
      }),
    )

    it.scoped("a user's 17th stream closes their oldest (STREAMS_PER_USER); other users keep theirs", () =>
      Effect.gen(function* () {
        const bus = yield* EventBus
        const url = yield* serverUrl
        const carol = yield* createAndLogIn(yield* adminClient, "carol")
        const dave = yield* createAndLogIn(yield* adminClient, "dave")
        const daves = yield* openSse(url, dave.token)
        yield* daves.waitFor((frame) => frame.text === "connected")
        const streams: Array<SseConnection> = []
        for (let i = 0; i < STREAMS_PER_USER; i++) {
          const stream = yield* openSse(url, carol.token)
          yield* stream.waitFor((frame) => frame.text === "connected")
          streams.push(stream)
        }
        expect(streams.some((stream) => stream.ended())).toBe(false)
        const newest = yield* openSse(url, carol.token)
        yield* newest.waitFor((frame) => frame.text === "connected")
        yield* Effect.sync(() => streams[0]!.ended()).pipe(
          Effect.filterOrFail((ended) => ended),
          Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 100 }),
        )
        expect(streams.slice(1).some((stream) => stream.ended())).toBe(false)
        yield* bus.publish("track.liked", dave.user.id, { id: "t3" })
        yield* daves.waitFor((frame) => frame.event === "track.liked")
        yield* bus.publish("track.liked", carol.user.id, { id: "t4" })
        yield* newest.waitFor((frame) => frame.event === "track.liked")
      }),
    )
  },
)

const adminClient = Effect.gen(function* () {
  const { logIn } = yield* Effect.promise(() => import("../support/accounts.js"))
  return (yield* logIn("admin")).client
})
