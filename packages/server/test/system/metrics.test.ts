import { spawnSync } from "node:child_process"
import { randomUUID } from "node:crypto"
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { inject } from "vitest"
import { HttpAppLive, requestMetrics } from "../../src/main.js"
import { RebuildService } from "../../src/recommendations/index.js"
import { AdminLive, aUser } from "../ownData.js"
import { adminQuery } from "../support/adminDatabase.js"
import { raw } from "../support/raw.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { InProcessEngine, QuietLogs, testConfig } from "../support/TestServer.js"

/**
 * Issue 30 item 3: Prometheus `/metrics` (requests per route template, errors, the DB pool, scan progress,
 * rebuilds, queue depths, event streams), served to loopback or with the metrics token; `/readyz`.
 */
const TOKEN = "metrics-token-for-the-test"

/** The server as `tonearm serve` composes it (the request-metrics middleware included), with a metrics token. */
const MetricsServerLive = HttpApiBuilder.serve(requestMetrics).pipe(
  Layer.provideMerge(HttpAppLive),
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provideMerge(TestDatabaseLive),
  Layer.provideMerge(testConfig()),
  Layer.provide(QuietLogs),
  Layer.provide(InProcessEngine),
  Layer.provide(
    Layer.setConfigProvider(
      ConfigProvider.fromMap(new Map([["TONEARM_METRICS_TOKEN", TOKEN]])).pipe(
        ConfigProvider.orElse(() => ConfigProvider.fromEnv()),
      ),
    ),
  ),
)

const admin = (statement: string) => adminQuery(inject("adminDatabaseUrl"), statement).pipe(Effect.orDie)

/** `promtool check metrics` (Debian's `prometheus` package) over the scraped text: its exit code and complaints. */
const promtool = (text: string) => {
  const run = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" })
  if (run.error !== undefined) throw new Error(`promtool is not installed (apt-get install prometheus): ${run.error}`)
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

layer(AdminLive().pipe(Layer.provideMerge(MetricsServerLive)), { excludeTestServices: true, timeout: "60 seconds" })(
  "metrics and readiness",
  (it) => {
    describe("GET /metrics", () => {
      it.effect("parses with promtool check metrics and labels requests by route template", () =>
        Effect.gen(function* () {
          const ana = yield* aUser("ana")
          const missing = randomUUID()
          yield* raw("GET", `/api/albums/${missing}`, { token: ana.token })
          yield* raw("GET", `/api/albums/${randomUUID()}`, { token: ana.token })
          yield* raw("GET", "/healthz")
          yield* raw("GET", `/no/such/${missing}`, { headers: { accept: "application/json" } })
          yield* raw("POST", `/no/such/${missing}`, { body: "{}" })
          const response = yield* raw("GET", "/metrics")
          expect(response.status, response.text).toBe(200)
          expect(response.headers.get("content-type")).toContain("text/plain")
          const check = promtool(response.text)
          expect(check.output).toBe("")
          expect(check.status).toBe(0)

          const text = response.text
          // Per route template, never per raw path: two albums are one series, the unknown path a bounded label.
          expect(text).toMatch(/tonearm_http_requests_total\{method="GET",route="\/api\/albums\/:id",status="404"\} 2/)
          expect(text).toMatch(/tonearm_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/)
          expect(text).toMatch(/tonearm_http_requests_total\{method="GET",route="\/\*",status="404"\} 1/)
          expect(text).toMatch(/tonearm_http_requests_total\{method="POST",route="unmatched",status="404"\} 1/)
          expect(text).not.toContain(missing)
          expect(text).toMatch(
            /tonearm_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/healthz"\}/,
          )
          for (const series of [
            /tonearm_db_pool_connections\{state="idle"\} \d+/,
            /tonearm_db_pool_connections\{state="in_use"\} \d+/,
            /tonearm_db_pool_max_connections \d+/,
            /tonearm_db_pool_waiting_requests \d+/,
            /tonearm_database_up 1/,
            /tonearm_scan_running 0/,
            /tonearm_scan_files_seen \d+/,
            /tonearm_queue_depth\{queue="enrichment_pending"\} \d+/,
            /tonearm_queue_depth\{queue="scrobbles"\} 0/,
            /tonearm_queue_depth\{queue="imports"\} 0/,
            /tonearm_queue_depth\{queue="rebuilds_due"\} \d+/,
            /tonearm_event_stream_subscribers 0/,
            /tonearm_rebuild_duration_seconds_count \d+/,
            /tonearm_process_resident_memory_bytes \d+/,
          ])
            expect(text).toMatch(series)
        }),
      )

      it.effect("a rebuild is timed into tonearm_rebuild_duration_seconds", () =>
        Effect.gen(function* () {
          const count = (text: string) => Number(/tonearm_rebuild_duration_seconds_count (\d+)/.exec(text)?.[1])
          const before = count((yield* raw("GET", "/metrics")).text)
          const bo = yield* aUser("bo")
          yield* (yield* RebuildService).rebuild(bo.user.id)
          expect(count((yield* raw("GET", "/metrics")).text)).toBe(before + 1)
        }),
      )

      it.effect("a request relayed by a proxy needs the metrics token: none or a wrong one is 403", () =>
        Effect.gen(function* () {
          const relayed = { "x-forwarded-for": "203.0.113.9" }
          const without = yield* raw("GET", "/metrics", { headers: relayed })
          expect(without.status).toBe(403)
          expect(without.json).toMatchObject({ error: { code: "forbidden" } })
          const forwarded = yield* raw("GET", "/metrics", { headers: { forwarded: "for=203.0.113.9" } })
          expect(forwarded.status).toBe(403)
          const wrong = yield* raw("GET", "/metrics", { headers: { ...relayed, authorization: "Bearer nope" } })
          expect(wrong.status).toBe(403)
          expect(wrong.text).not.toContain(TOKEN)
          const right = yield* raw("GET", "/metrics", { headers: { ...relayed, authorization: `Bearer ${TOKEN}` } })
          expect(right.status).toBe(200)
          expect(promtool(right.text).status).toBe(0)
        }),
      )
    })

    describe("GET /readyz", () => {
      it.effect("ready (200) while the database answers and every migration is applied", () =>
        Effect.gen(function* () {
          const response = yield* raw("GET", "/readyz")
          expect(response.status).toBe(200)
          expect(response.json).toMatchObject({ status: "ready", database: true, migrations: true })
        }),
      )

      it.effect("not ready (503) when the newest migration is not applied, ready again once it is", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const [last] = yield* sql<{ migration_id: number; name: string }>`
          SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id DESC LIMIT 1`
          yield* sql`DELETE FROM effect_sql_migrations WHERE migration_id = ${last!.migration_id}`
          const behind = yield* raw("GET", "/readyz").pipe(
            Effect.ensuring(
              sql`INSERT INTO effect_sql_migrations (migration_id, name) VALUES (${last!.migration_id}, ${last!.name})`.pipe(
                Effect.orDie,
              ),
            ),
          )
          expect(behind.status).toBe(503)
          expect(behind.json).toMatchObject({ status: "not_ready", database: true, migrations: false })
          expect((yield* raw("GET", "/readyz")).status).toBe(200)
        }),
      )

      it.effect("not ready (503) while the database refuses connections; /healthz stays liveness", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const pgClient = yield* PgClient.PgClient
          const database = pgClient.config.database ?? new URL(Redacted.value(pgClient.config.url!)).pathname.slice(1)
          yield* sql`SELECT 1`
          yield* admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`)
          yield* admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`)
          const down = yield* raw("GET", "/readyz").pipe(
            Effect.ensuring(admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`)),
          )
          expect(down.status).toBe(503)
          expect(down.json).toMatchObject({ status: "not_ready", database: false, migrations: false })
          expect((yield* raw("GET", "/readyz")).status).toBe(200)
        }),
      )
    })
  },
)
