import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Ref, Scope } from "effect"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { embeddedPostgres } from "../../src/db/EmbeddedPostgres.js"
import { HttpAppLive } from "../../src/main.js"
import { openSse } from "../support/sse.js"
import { InProcessEngine, QuietLogs, testConfig } from "../support/TestServer.js"

/**
 * Issue 29 item 3, with a real PostgreSQL going away: the test owns a private embedded cluster (never the machine's
 * shared one), runs a server on it with clients sending requests the whole time, stops the cluster (fast shutdown,
 * as `systemctl stop postgresql` or a crash-restart does), starts it again on the same port, and checks: during
 * the stop every answer is a quick 503 `unavailable` with Retry-After (never a 500, never a hang); after it, every
 * answer is right again and events flow on a new stream while the old one was ended for a resync.
 */

const json = async (url: string, method: string, route: string, token?: string, body?: unknown) => {
  const started = performance.now()
  const response = await fetch(`${url}${route}`, {
    method,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  })
  const text = await response.text()
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>),
    ms: performance.now() - started,
  }
}

it.scopedLive(
  "a real PostgreSQL stopped and restarted under load: 503 with Retry-After during, every answer right and events after",
  () =>
    Effect.gen(function* () {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-pg-restart-"))
      fs.chmodSync(dir, 0o755)
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      // The cluster lives in a scope of its own, so the test can stop it while the server runs.
      const first = yield* Scope.make()
      const cluster = yield* embeddedPostgres(dir, "tonearm").pipe(Scope.extend(first))
      const server = HttpApiBuilder.serve().pipe(
        Layer.provideMerge(HttpAppLive),
        Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
        Layer.provideMerge(makeDatabaseLive(pgClientLayer(cluster.url))),
        Layer.provideMerge(testConfig()),
        Layer.provide(QuietLogs),
        Layer.provide(InProcessEngine),
      )
      const context = yield* Layer.build(server)
      const address = Context.get(context, HttpServer.HttpServer).address
      const url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""

      const registered = yield* Effect.promise(() =>
        json(url, "POST", "/api/auth/register", undefined, { username: "admin", password: "restart pass 29" }),
      )
      const token = registered.body!.token as string
      const before = yield* openSse(url, token)
      yield* Effect.promise(() => json(url, "POST", "/api/playlists", token, { name: "before" }))
      yield* before.waitFor((frame) => frame.event === "playlist.created")

      // Load: four clients reading and writing back to back for the whole test.
      const phase = yield* Ref.make<"up" | "down" | "back">("up")
      const seen = yield* Ref.make<Array<{ phase: string; status: number; retryAfter: string | null; ms: number }>>([])
      let n = 0
      const client = Effect.gen(function* () {
        while (true) {
          const started = yield* Ref.get(phase)
          const answer = yield* Effect.promise(() =>
            (++n % 2 === 0
              ? json(url, "GET", "/api/me", token)
              : json(url, "PUT", "/api/me/profile", token, { display_name: `load ${n}` })
            ).catch(() => ({ status: 0, retryAfter: null, body: undefined, ms: 15_000 })),
          )
          // An answer belongs to a phase only when it started and ended in it; others straddle a change.
          const ended = yield* Ref.get(phase)
          const label = started === ended ? started : "straddling"
          yield* Ref.update(seen, (all) => [
            ...all,
            { phase: label, status: answer.status, retryAfter: answer.retryAfter, ms: answer.ms },
          ])
          yield* Effect.sleep("20 millis")
        }
      })
      const load = yield* Effect.fork(Effect.all([client, client, client, client], { concurrency: "unbounded" }))
      yield* Effect.sleep("1 second")

      // Stop: fast shutdown of the real cluster (every connection dropped, no new one accepted).
      yield* Ref.set(phase, "down")
      yield* Scope.close(first, Exit.void)
      yield* Effect.sleep("3 seconds")
      const during = yield* Effect.promise(() => json(url, "GET", "/api/me", token))
      expect(during.status).toBe(503)
      expect(during.body).toMatchObject({ error: { code: "unavailable" } })
      expect(during.retryAfter).toBe("5")

      // Start it again on the same port: the server reconnects by itself.
      const second = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(second, Exit.void))
      yield* embeddedPostgres(dir, "tonearm", cluster.port).pipe(Scope.extend(second))
      yield* Ref.set(phase, "back")
      // The stream opened before the outage is ended (its client resyncs) once the listener is back ...
      for (let i = 0; i < 150 && !before.ended(); i++) yield* Effect.sleep("200 millis")
      expect(before.ended()).toBe(true)
      // ... and a new stream hears new events.
      const after = yield* openSse(url, token)
      yield* Effect.promise(() => json(url, "POST", "/api/playlists", token, { name: "after" }))
      yield* after.waitFor((frame) => frame.event === "playlist.created", 1, 10_000)
      yield* Effect.sleep("1 second")
      yield* Fiber.interrupt(load)

      const answers = yield* Ref.get(seen)
      const byPhase = (name: string) => answers.filter((answer) => answer.phase === name)
      // Never a 500 or a dropped connection, never a hang; during the stop only 200 (in flight) or 503 + Retry-After.
      expect(
        answers.filter((answer) => answer.status === 0 || (answer.status >= 500 && answer.status !== 503)),
      ).toEqual([])
      expect(answers.filter((answer) => answer.ms > 12_000)).toEqual([])
      expect(byPhase("up").every((answer) => answer.status === 200)).toBe(true)
      const down = byPhase("down")
      expect(down.filter((answer) => answer.status === 503).length).toBeGreaterThan(0)
      expect(
        down.every((answer) => answer.status === 200 || (answer.status === 503 && answer.retryAfter === "5")),
      ).toBe(true)
      // After the restart: the last second of answers is all 200.
      const back = byPhase("back")
      expect(back.slice(-8).every((answer) => answer.status === 200)).toBe(true)
    }),
  { timeout: 180_000 },
)
