import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { UserId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { SKIPPED_INACTIVE } from "../../src/recommendations/RebuildJobRepository.js"
import { RebuildScheduler } from "../../src/recommendations/RebuildScheduler.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { logIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { TestServerLive } from "../support/TestServer.js"

const { root } = await fixtureLibrary()

const jobOf = (user: UserId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{
        last_error: string | null
        runs: number
      }>`SELECT last_error, runs FROM rebuild_jobs WHERE user_id = ${user}`,
      (rows) => rows[0]!,
    ),
  )

const profiles = (user: UserId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*)::int AS n FROM taste_profiles WHERE user_id = ${user}`,
      (rows) => rows[0]!.n,
    ),
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("active user for the daily run (issue 28)", (it) => {
  it.effect(
    "the daily run skips a user with no play, sign-in, API call or registration in 30 days; their next visit rebuilds them",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const scheduler = yield* RebuildScheduler
        const idle = yield* aUser("idle")
        const recent = yield* aUser("recent")
        yield* sql`UPDATE users SET created_at = now() - interval '100 days' WHERE id IN (${idle.user.id}, ${recent.user.id})`
        yield* sql`UPDATE sessions SET last_seen_at = now() - interval '40 days', created_at = now() - interval '40 days'
                   WHERE user_id IN (${idle.user.id}, ${recent.user.id})`
        // `recent` only played, 29 days ago: a play alone keeps a user active.
        yield* sql`
          INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
            duration_played_ms, track_duration_ms, skipped, completion, created_at)
          SELECT ${recent.user.id}, id, artist_id, album_id, 'test', now() - interval '29 days',
                 now() - interval '29 days' + interval '1 second', duration_ms, duration_ms, false, 1, now()
          FROM tracks ORDER BY path LIMIT 1`
        yield* sql`UPDATE rebuild_jobs SET next_run_at = now() + interval '6 hours'`
        yield* sql`UPDATE rebuild_jobs SET next_run_at = now() - interval '1 hour', runs = 0, last_error = NULL
                   WHERE user_id IN (${idle.user.id}, ${recent.user.id})`
        const ran = yield* scheduler.runDue()
        expect([...ran].sort()).toEqual([idle.user.id, recent.user.id].sort())
        expect((yield* jobOf(idle.user.id)).last_error).toBe(SKIPPED_INACTIVE)
        expect(yield* profiles(idle.user.id)).toBe(0)
        expect((yield* jobOf(recent.user.id)).last_error).toBeNull()
        expect(yield* profiles(recent.user.id)).toBe(1)
        // The idle listener comes back (signs in, opens Home): Home answers at once and the rebuild follows in the background.
        const back = yield* logIn(idle.user.username)
        yield* back.client.home.sections()
        const deadline = Date.now() + 30_000
        while ((yield* profiles(idle.user.id)) === 0 && Date.now() < deadline) yield* Effect.sleep("100 millis")
        expect(yield* profiles(idle.user.id)).toBe(1)
        expect((yield* jobOf(idle.user.id)).last_error).toBeNull()
      }),
  )
})
