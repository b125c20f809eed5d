import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { EventBus } from "../../src/events/index.js"
import { createAndLogIn, signUpFirstAdmin } from "../support/accounts.js"
import { openSse } from "../support/sse.js"
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
  },
)

const adminClient = Effect.gen(function* () {
  const { logIn } = yield* Effect.promise(() => import("../support/accounts.js"))
  return (yield* logIn("admin")).client
})
