import { afterAll, expect, layer } from "@effect/vitest"
import { DateTime, Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { startFakeServer } from "../support/fakeServer.js"
import { fixtureLibrary } from "../support/library.js"
import { secondReplica, TestServerLive } from "../support/TestServer.js"
import {
  bodyOf,
  eventually,
  fakeLastfm,
  fakeListenBrainz,
  listenBrainzPlans,
  olderAccount,
  queueOf,
  scrobbleSettings,
  someTracks,
  tokenOf,
} from "./support.js"

const { root } = await fixtureLibrary()
const listenbrainz = await startFakeServer(fakeListenBrainz)
const lastfm = await startFakeServer(fakeLastfm)
afterAll(() => Promise.all([listenbrainz.stop(), lastfm.stop()]))

const urls = { listenbrainz: listenbrainz.url, lastfm: lastfm.url }

// The server under test only queues (no sender); replicas on the same database send, one after the other.
layer(
  Layer.mergeAll(AdminLive(), ScannedLive).pipe(
    Layer.provideMerge(TestServerLive({ libraryDir: root, ...scrobbleSettings(urls, { runSender: false }) })),
  ),
  { excludeTestServices: true, timeout: "180 seconds" },
)("scrobbling out: a durable queue", (it) => {
  it.effect("a restart keeps what is queued: the next sender delivers each play once", () =>
    Effect.gen(function* () {
      const alice = yield* aUser("restart")
      const token = "lb-restart-token-0123456789"
      yield* alice.client.scrobblers.update({ path: { provider: "listenbrainz" }, payload: { enabled: true, token } })
      // ListenBrainz is down while the first sender runs.
      listenBrainzPlans.set(
        token,
        Array.from({ length: 50 }, () => 503),
      )
      yield* olderAccount(alice.user.id)
      const tracks = yield* someTracks(3)
      const now = Date.now()
      for (const [index, track] of tracks.entries())
        yield* alice.client.plays.report({
          payload: {
            type: "play_offline",
            track_id: track.id,
            client_id: "phone",
            at: DateTime.unsafeMake(now - (3 - index) * 1000),
            duration_played_ms: 150_000,
          },
        })
      // A server that does not send leaves the queue alone.
      yield* Effect.sleep("300 millis")
      expect(listenbrainz.requests).toHaveLength(0)
      expect((yield* queueOf(alice.user.id)).map((row) => row.state)).toEqual(["pending", "pending", "pending"])

      // The first sender tries, fails, and stops (its scope closes) with everything still queued.
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* secondReplica({ libraryDir: root, ...scrobbleSettings(urls) })
          yield* eventually(
            Effect.sync(() => listenbrainz.requests.length >= 2),
            "failed attempts",
          )
        }),
      )
      const rows = yield* queueOf(alice.user.id)
      expect(rows.every((row) => row.state === "pending")).toBe(true)
      expect(rows.some((row) => row.attempts > 0)).toBe(true)
      const triedBeforeRestart = listenbrainz.requests.length
      yield* Effect.sleep("400 millis")
      expect(listenbrainz.requests.length).toBe(triedBeforeRestart)

      // ListenBrainz is back; a new sender picks the queue up where it was.
      listenBrainzPlans.set(token, [])
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* secondReplica({ libraryDir: root, ...scrobbleSettings(urls) })
          yield* eventually(
            Effect.map(queueOf(alice.user.id), (all) => all.every((row) => row.state === "sent")),
            "every listen sent",
          )
          yield* Effect.sleep("500 millis")
        }),
      )
      const delivered = listenbrainz.requests
        .slice(triedBeforeRestart)
        .filter((hit) => tokenOf(hit) === token)
        .map((hit) => (bodyOf(hit).payload as Array<{ listened_at: number }>)[0]!.listened_at)
      // Each play exactly once, each at its own start.
      expect([...delivered].sort()).toEqual(tracks.map((_, index) => Math.floor((now - (3 - index) * 1000) / 1000)))
    }),
  )
})
