import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { arrangePlays, libraryTracks, syntheticLibrary } from "../support/listening.js"
import { raw } from "../support/raw.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(360, 5)

const systemRows = (who: SignedIn) =>
  Effect.map(who.client.playlists.list(), (rows) => rows.filter((row) => row.system_variant !== null))

/** A fresh listener with two plays of each of the library's first 60 tracks. */
const aListener = Effect.gen(function* () {
  const alice = yield* aUser("alice")
  yield* arrangePlays(alice.user.id, (yield* libraryTracks).slice(0, 60), { times: 2, daysAgo: 2 })
  return alice
})

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("Make my mixes now (POST /api/me/mixes/build)", (it) => {
  it.effect("builds the caller's system playlists now, and only the caller's", () =>
    Effect.gen(function* () {
      const alice = yield* aListener
      const bob = yield* aUser("bob")
      expect(yield* systemRows(alice)).toEqual([])

      const built = yield* alice.client.systemPlaylists.build()
      const rows = yield* systemRows(alice)
      expect(built.playlists).toBe(rows.length)
      expect(built.withheld).toBe(rows.filter((row) => row.locked).length)
      const forYou = rows.find((row) => row.system_variant === "for_you")!
      expect(forYou.locked).toBe(false)
      expect(forYou.track_count).toBeGreaterThan(0)
      // Bob was not built: his mixes wait for his own button (or the 03:00 run).
      expect(yield* systemRows(bob)).toEqual([])
    }),
  )

  it.effect(
    "a user with no plays gets For You and Discover from the cold-start pool, each mix playable or locked with a reason",
    () =>
      Effect.gen(function* () {
        const bob = yield* aUser("bob")
        const built = yield* bob.client.systemPlaylists.build()
        const rows = yield* systemRows(bob)
        expect(built.playlists).toBe(rows.length)
        expect(rows.map((row) => row.system_variant)).toEqual(expect.arrayContaining(["for_you", "discover"]))
        for (const kind of ["for_you", "discover"])
          expect(rows.find((row) => row.system_variant === kind)!.track_count).toBeGreaterThan(0)
        for (const row of rows) if (row.locked) expect(row.locked_reason?.length ?? 0).toBeGreaterThan(0)
      }),
  )

  it.effect("single-flight per user: concurrent calls join one rebuild (one playlist.system_rebuilt)", () =>
    Effect.gen(function* () {
      const alice = yield* aListener
      const stream = yield* openSse(yield* serverUrl, alice.token)
      yield* stream.waitFor((frame) => frame.text === "connected")
      const results = yield* Effect.all(
        [
          alice.client.systemPlaylists.build(),
          alice.client.systemPlaylists.build(),
          alice.client.systemPlaylists.build(),
          alice.client.systemPlaylists.refresh({ path: { kind: "for_you" } }),
        ],
        { concurrency: "unbounded" },
      )
      expect(results[1]).toEqual(results[0])
      expect(results[2]).toEqual(results[0])
      // A later call rebuilds again; its event comes after any the concurrent ones published.
      yield* alice.client.systemPlaylists.build()
      const rebuilt = (frame: { readonly event?: string }) => frame.event === "playlist.system_rebuilt"
      yield* stream.waitFor(rebuilt, 2)
      expect(stream.frames.filter(rebuilt)).toHaveLength(2)
    }).pipe(Effect.scoped),
  )

  it.effect("without a session: 401", () =>
    Effect.gen(function* () {
      expect((yield* raw("POST", "/api/me/mixes/build")).status).toBe(401)
    }),
  )
})
