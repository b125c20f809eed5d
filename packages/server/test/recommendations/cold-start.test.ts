import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { STARTER_MIX_DESCRIPTION } from "../../src/recommendations/RebuildService.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("cold start (issue 28)", (it) => {
  it.effect(
    "before the cold-start gate For You and Daily Mix 1 have tracks and say they are starter mixes; the rows stay empty",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const newcomer = yield* aUser("newcomer")
        // Two first plays: far below the gate (20 distinct tracks, 5 artists).
        yield* sql`
          INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
            duration_played_ms, track_duration_ms, skipped, completion, created_at)
          SELECT ${newcomer.user.id}, id, artist_id, album_id, 'test', now() - interval '1 day',
                 now() - interval '1 day' + interval '1 second', duration_ms, duration_ms, false, 1, now()
          FROM tracks ORDER BY path LIMIT 2`
        yield* newcomer.client.systemPlaylists.build()
        const rows = yield* newcomer.client.playlists.list()
        for (const variant of ["for_you", "daily_mix:1"]) {
          const row = rows.find((r) => r.system_variant === variant)
          expect(row, variant).toBeDefined()
          const detail = yield* newcomer.client.playlists.get({ path: { id: row!.id } })
          expect(detail.locked).toBe(false)
          expect(detail.tracks.length).toBeGreaterThan(0)
          expect(detail.description).toBe(STARTER_MIX_DESCRIPTION)
        }
        const home = yield* newcomer.client.home.sections()
        expect(home.you_might_like_albums).toEqual([])
        expect(home.you_might_like_artists).toEqual([])
      }),
  )
})
