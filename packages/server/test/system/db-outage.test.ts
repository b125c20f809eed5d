import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { TrackId } from "@tonearm/core"
import { Effect, Layer, Redacted, Schedule } from "effect"
import { inject } from "vitest"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import { adminQuery } from "../support/adminDatabase.js"
import { fixtureLibrary } from "../support/library.js"
import { raw } from "../support/raw.js"
import { openSse } from "../support/sse.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 3: a database outage. While PostgreSQL refuses this database's connections (and has dropped every
 * one the server held, its LISTEN connection included), requests answer 503 `unavailable` with Retry-After at once;
 * once it is back, the event listener reconnects by itself, the open event streams are ended so clients resync,
 * and events flow again.
 */
const { root } = await fixtureLibrary()

/** A statement on the server's admin connection (the run's PostgreSQL, outside the server under test). */
const admin = (statement: string) => adminQuery(inject("adminDatabaseUrl"), statement).pipe(Effect.orDie)

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "120 seconds",
})("a database outage", (it) => {
  it.scoped("503 unavailable with Retry-After during it; afterwards the listener reconnects and events flow", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const pgClient = yield* PgClient.PgClient
      const database = pgClient.config.database ?? new URL(Redacted.value(pgClient.config.url!)).pathname.slice(1)
      const url = yield* serverUrl
      const gil = yield* aUser("gil")
      const [track] = yield* sql<{ id: string }>`SELECT id FROM tracks ORDER BY id LIMIT 1`
      const trackId = TrackId.make(track!.id)
      const before = yield* openSse(url, gil.token)
      yield* gil.client.likes.likeTrack({ path: { id: trackId } })
      yield* before.waitFor((frame) => frame.event === "track.liked")

      // The outage: no new connection to this database, every existing one dropped.
      yield* admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`)
      const during = yield* Effect.gen(function* () {
        yield* admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`)
        const started = performance.now()
        const response = yield* raw("GET", "/api/me", { token: gil.token })
        return { response, ms: performance.now() - started }
      }).pipe(Effect.ensuring(admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`)))
      expect(during.response.status, during.response.text).toBe(503)
      expect((during.response.json as { error: { code: string } }).error.code).toBe("unavailable")
      expect(during.response.headers.get("retry-after")).toBe("5")
      expect(during.ms).toBeLessThan(3_000)

      // Back: the stream opened before the outage is ended (its client resyncs) once the listener is back ...
      yield* Effect.sync(() => before.ended()).pipe(
        Effect.filterOrFail((ended) => ended),
        Effect.retry({ schedule: Schedule.spaced("200 millis"), times: 100 }),
      )
      // ... and a new stream hears new events.
      const after = yield* openSse(url, gil.token)
      yield* gil.client.likes.unlikeTrack({ path: { id: trackId } })
      yield* after.waitFor((frame) => frame.event === "track.unliked", 1, 10_000)
      expect((yield* raw("GET", "/api/me", { token: gil.token })).status).toBe(200)
    }),
  )
})
