import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { SHIPPED_TUNING } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { TuningService } from "../../src/recommendations/index.js"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

const DAY = 86_400_000

/** The listener's stored weight of an artist, as the last rebuild wrote it. */
const artistWeight = (who: SignedIn, artist: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ weight: number }>`SELECT weight FROM taste_profile_weights
                              WHERE user_id = ${who.user.id} AND dimension = 'artist' AND key = ${artist}`,
      (rows) => rows[0]?.weight ?? 0,
    ),
  )

const rebuild = (who: SignedIn) => who.client.systemPlaylists.refresh({ path: { kind: "for_you" } })

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("recommendation tuning reaches the rebuild", (it) => {
  it.effect("the next rebuild uses the new values: a shorter taste half-life decays old plays more", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const listener = yield* aUser("listener")
      const sql = yield* SqlClient.SqlClient
      const tracks = yield* sql<{ id: string; artist_id: string; album_id: string; duration_ms: number }>`
          SELECT id, artist_id, album_id, duration_ms FROM tracks ORDER BY path`
      const artist = tracks[0]!.artist_id
      const played = tracks.filter((track) => track.artist_id === artist)
      // Full listens of one artist, 60 days ago.
      const at = new Date(Date.now() - 60 * DAY)
      for (const track of played)
        yield* sql`
            INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
              duration_played_ms, track_duration_ms, skipped, completion, created_at)
            VALUES (${listener.user.id}, ${track.id}, ${track.artist_id}, ${track.album_id}, 'test', ${at}, ${at},
              ${track.duration_ms}, ${track.duration_ms}, false, 1, ${at})`

      yield* rebuild(listener)
      const shipped = yield* artistWeight(listener, artist)
      expect(shipped).toBeGreaterThan(0)

      yield* admin.client.tuning.patch({ payload: { scope: "taste", changes: { half_life_days: 5 } } })
      expect(
        (yield* Effect.orDie(Effect.flatMap(TuningService, (tuning) => tuning.current))).taste.half_life_days,
      ).toBe(5)
      yield* rebuild(listener)
      const tuned = yield* artistWeight(listener, artist)
      // 60 days: 2^(-60/45) ≈ 0.40 of a fresh listen at the shipped half-life, 2^(-12) at 5 days.
      expect(tuned).toBeLessThan(shipped / 100)

      yield* admin.client.tuning.reset({ payload: { scope: "taste" } })
      expect((yield* admin.client.tuning.get()).scopes.taste.current).toEqual(SHIPPED_TUNING.taste)
      yield* rebuild(listener)
      expect(yield* artistWeight(listener, artist)).toBeCloseTo(shipped, 3)
    }),
  )
})
