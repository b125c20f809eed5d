import { createServer } from "node:http"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import type { ImportStatus } from "@tonearm/core"
import { Context, Effect, Exit, Layer, Schedule, Scope } from "effect"
import { TonearmConfig } from "../../src/config/TonearmConfig.js"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { ImportTuning } from "../../src/history/index.js"
import { HttpAppLive } from "../../src/main.js"
import { AdminLive, aUser, ScannedLive } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { InProcessEngine, QuietLogs, TestServerLive } from "../support/TestServer.js"
import { finished, lbListen, libraryTracks, playsOf } from "./importSupport.js"

const { root } = await fixtureLibrary()

const DEFAULT_TUNING = ImportTuning.defaultValue()
/** This file's own server never picks a job up by itself: the replicas below run them. */
const IdleRunner = Layer.succeed(ImportTuning, { ...DEFAULT_TUNING, pollMs: 3_600_000 })
/** Small batches, so an import of a few thousand listens is stopped half-way. */
const SmallBatches = { ...DEFAULT_TUNING, batchSize: 40, progressMs: 0, pollMs: 200 }

/**
 * Another server process on the same database and data directory (a replica, or the same server restarted), in
 * its own scope: closing the scope stops it as a shutdown would. Answers its base URL.
 */
const startReplica = (scope: Scope.Scope) =>
  Effect.gen(function* () {
    const pg = yield* PgClient.PgClient
    const config = yield* TonearmConfig
    const replica = HttpApiBuilder.serve().pipe(
      Layer.provide(HttpAppLive),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provide(makeDatabaseLive(pgClientLayer(pg.config.url!))),
      Layer.provide(Layer.succeed(TonearmConfig, config)),
      Layer.provide(Layer.succeed(ImportTuning, SmallBatches)),
      Layer.provide(QuietLogs),
      Layer.provide(InProcessEngine),
    )
    const context = yield* Layer.buildWithScope(replica, scope)
    const address = Context.get(context, HttpServer.HttpServer).address
    return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://unix"
  })

const uploadTo = (base: string, who: SignedIn, file: string) =>
  Effect.promise(async () => {
    const form = new FormData()
    form.set("source", "listenbrainz_export")
    form.set("file", new Blob([file]), "listens.json")
    const response = await fetch(`${base}/api/me/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${who.token}` },
      body: form,
    })
    expect(response.status).toBe(202)
    return ((await response.json()) as { id: string }).id
  })

const statusOf = (who: SignedIn, id: string) => who.client.imports.get({ path: { id: id as ImportStatus["id"] } })

/** An export of `count` listens over the library's tracks, one a minute, every seventh one unknown. */
const bigExport = (tracks: ReadonlyArray<{ artist: string; title: string }>, count: number) =>
  JSON.stringify(
    Array.from({ length: count }, (_, i) => {
      const track = tracks[i % tracks.length]!
      return i % 7 === 6
        ? lbListen("Nobody Here", `Unknown ${i}`, 1_500_000_000 + i * 60)
        : lbListen(track.artist, track.title, 1_500_000_000 + i * 60)
    }),
  )

layer(
  Layer.mergeAll(AdminLive(), ScannedLive).pipe(
    Layer.provideMerge(TestServerLive({ libraryDir: root })),
    Layer.provide(IdleRunner),
  ),
  { excludeTestServices: true, timeout: "300 seconds" },
)("history imports across restarts", (it) => {
  it.effect("a restart in the middle of an import resumes it from its cursor: nothing doubles, nothing is lost", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const mia = yield* aUser("mia")
      const tracks = yield* libraryTracks
      const count = 2_100
      const file = bigExport(tracks, count)
      const unknown = Math.floor(count / 7)

      // First run: stopped (its scope closed, as a shutdown) once a few batches are in.
      const first = yield* Scope.make()
      const id = yield* uploadTo(yield* startReplica(first), mia, file)
      yield* statusOf(mia, id).pipe(
        Effect.filterOrFail((status) => status.total >= 400),
        Effect.retry(Schedule.spaced("50 millis")),
      )
      yield* Scope.close(first, Exit.void)
      const stopped = yield* statusOf(mia, id)
      expect(stopped.state).toBe("queued")
      expect(stopped.total).toBeGreaterThan(0)
      expect(stopped.total).toBeLessThan(count)
      // What the counters say is exactly what was written.
      expect(yield* playsOf(mia.user.id)).toHaveLength(stopped.matched - stopped.duplicates)
      const [kept] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM import_unmatched WHERE import_id = ${id}`
      expect(kept!.n).toBe(stopped.unmatched)

      // Second run: another server (a restart) takes the job and finishes it.
      const second = yield* Scope.make()
      yield* startReplica(second)
      const done = yield* finished(mia, id)
      yield* Scope.close(second, Exit.void)
      expect(done).toMatchObject({ state: "done", total: count, unmatched: unknown, matched: count - unknown })
      const plays = yield* playsOf(mia.user.id)
      // Listens a minute apart on a handful of tracks never share a second: every matched one is one play.
      expect(done.duplicates).toBe(0)
      expect(plays).toHaveLength(count - unknown)
      expect(new Set(plays.map((play) => `${play.track_id}@${play.started_at.getTime()}`)).size).toBe(plays.length)
      const [rows] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM import_unmatched WHERE import_id = ${id}`
      expect(rows!.n).toBe(unknown)
    }),
  )

  it.effect("a runner that died (no heartbeat) is taken over by another; two replicas never double an import", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const noa = yield* aUser("noa")
      const tracks = yield* libraryTracks
      const count = 1_400
      const file = bigExport(tracks, count)
      const unknown = Math.floor(count / 7)

      const first = yield* Scope.make()
      const id = yield* uploadTo(yield* startReplica(first), noa, file)
      yield* statusOf(noa, id).pipe(
        Effect.filterOrFail((status) => status.total >= 200),
        Effect.retry(Schedule.spaced("50 millis")),
      )
      yield* Scope.close(first, Exit.void)
      // As if that process had been killed: still `running`, its heartbeat long gone.
      yield* sql`UPDATE imports SET state = 'running', heartbeat_at = now() - interval '10 minutes' WHERE id = ${id}`

      // Two servers at once, plus the same file uploaded again while they run: each listen is one play.
      const a = yield* Scope.make()
      const b = yield* Scope.make()
      const urlA = yield* startReplica(a)
      yield* startReplica(b)
      const again = yield* uploadTo(urlA, noa, file)
      const [one, two] = yield* Effect.all([finished(noa, id), finished(noa, again)], { concurrency: 2 })
      yield* Scope.close(a, Exit.void)
      yield* Scope.close(b, Exit.void)
      expect(one).toMatchObject({ state: "done", total: count, matched: count - unknown })
      expect(two).toMatchObject({ state: "done", total: count, matched: count - unknown })
      expect(one.duplicates + two.duplicates).toBe(count - unknown)
      expect(yield* playsOf(noa.user.id)).toHaveLength(count - unknown)
    }),
  )
})
