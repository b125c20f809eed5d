import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { startFakeServer } from "../support/fakeServer.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { secondReplica, TestServerLive } from "../support/TestServer.js"
import { drained, eventually, fakeMusicBrainz, fastEnrichment, stateCounts } from "./support.js"

const root = await syntheticLibrary(400, 7)
const musicbrainz = await startFakeServer(fakeMusicBrainz)
afterAll(() => musicbrainz.stop())

const settings = {
  ...fastEnrichment({
    musicbrainz: musicbrainz.url,
    lastfm: "http://127.0.0.1:9",
    listenbrainz: "http://127.0.0.1:9",
    coverartarchive: "http://127.0.0.1:9",
  }),
  musicbrainz: { baseUrl: musicbrainz.url, apiKey: null, throttleMs: 60 },
}

let admin: SignedIn

// The server under test only serves (runDrains false); replicas on the same database do the enriching.
layer(TestServerLive({ libraryDir: root, enrichment: { ...settings, runDrains: false } }), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("enrichment: durable runs", (it) => {
  it.effect(
    "a restart resumes the run where it stopped, and a settled row is never fetched again",
    () =>
      Effect.gen(function* () {
        admin = yield* signUpFirstAdmin("admin")
        yield* scanNow()
        const sql = yield* SqlClient.SqlClient
        const [entities] = yield* sql<{ n: number }>`
        SELECT (SELECT count(*) FROM albums) + (SELECT count(*) FROM artists) AS n`
        const total = Number(entities!.n)
        yield* admin.client.tagSources.update({ path: { id: "musicbrainz" }, payload: { enabled: true } })
        // A replica that does not run drains asks nothing.
        yield* Effect.sleep("300 millis")
        expect(musicbrainz.requests).toHaveLength(0)

        // The first enriching replica stops (its scope closes) with about a third settled.
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* secondReplica({ libraryDir: root, enrichment: settings })
            yield* eventually(
              Effect.map(stateCounts("musicbrainz"), (counts) => (counts.settled ?? 0) >= total / 3),
              "a third of the run",
            )
          }),
        )
        const settledAtStop = (yield* stateCounts("musicbrainz")).settled ?? 0
        expect(settledAtStop).toBeLessThan(total)
        const askedAtStop = musicbrainz.requests.length
        yield* Effect.sleep("300 millis")
        expect(musicbrainz.requests.length).toBe(askedAtStop)

        // After the restart the run continues from the rows; nothing settled is asked again.
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* secondReplica({ libraryDir: root, enrichment: settings })
            expect(yield* drained("musicbrainz")).toEqual({ settled: total })
          }),
        )
        // Every entity once; at most the one request in flight at the stop is sent again.
        expect(musicbrainz.requests.length).toBeGreaterThanOrEqual(total)
        expect(musicbrainz.requests.length).toBeLessThanOrEqual(total + 1)
      }),
    // Two replicas' drains one after the other: 39 s on a quiet machine, over a minute under load.
    120_000,
  )

  it.effect(
    "claims of a replica that died are handed back when the next one takes the lease, not after five minutes",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* admin.client.tagSources.research()
        // What a replica killed mid-batch leaves: rows claimed under its generation of the lease, due in five minutes.
        const orphaned = yield* sql<{ id: string }>`
        UPDATE enrichment_state SET due_at = now() + interval '5 minutes',
               claim_generation = (SELECT generation FROM leases WHERE name = 'enrichment')
        WHERE id IN (SELECT id FROM enrichment_state WHERE provider = 'musicbrainz' ORDER BY id LIMIT 20)
        RETURNING id::text AS id`
        expect(orphaned).toHaveLength(20)
        const total = (yield* stateCounts("musicbrainz")).pending ?? 0
        const asked = musicbrainz.requests.length
        const started = Date.now()
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* secondReplica({ libraryDir: root, enrichment: settings })
            // Well inside the claims' five minutes: the new holder made them due at once.
            expect(yield* drained("musicbrainz", 60_000)).toEqual({ settled: total })
          }),
        )
        console.log(`[measure] ${total} rows, 20 orphaned claims among them, all settled in ${Date.now() - started} ms`)
        const [left] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM enrichment_state WHERE claim_generation IS NOT NULL`
        expect(left!.n).toBe(0)
        expect(musicbrainz.requests.length - asked).toBeGreaterThanOrEqual(total)
      }),
  )
})
