import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Logger, LogLevel, Option } from "effect"
import {
  DEFAULT_MAX_BODY_BYTES,
  RADIO_DEFAULTS,
  TonearmConfig,
  type TonearmSettings,
} from "../../src/config/TonearmConfig.js"
import { HttpAppLive } from "../../src/main.js"
import { EnginePlacement } from "../../src/recommendations/index.js"
import { TestDatabaseLive } from "./TestDatabase.js"

/** Settings for a test server: a private temporary data directory, closed registration. */
export const testConfig = (overrides: Partial<TonearmSettings> = {}) =>
  Layer.scoped(
    TonearmConfig,
    Effect.acquireRelease(
      Effect.sync(() => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-test-data-"))
        return {
          port: 0,
          host: "127.0.0.1",
          dataDir,
          libraryDir: path.join(dataDir, "music"),
          databaseUrl: Option.none(),
          openRegistration: false,
          publicUrl: "http://tonearm.test",
          mailWebhookUrl: Option.none(),
          clientApkDir: path.join(dataDir, "client"),
          maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
          // The cheapest scrypt: tests sign in hundreds of times (production default 5, OWASP's minimum).
          passwordHashCost: 1,
          sseHeartbeatSeconds: 15,
          radio: RADIO_DEFAULTS,
          // Tests speak as the reverse proxy on loopback: their X-Forwarded-For is believed (a test of the
          // no-list rule overrides this with `trustedProxies: undefined`).
          trustedProxies: ["127.0.0.0/8", "::1"],
          ...overrides,
        } satisfies TonearmSettings
      }),
      (config) => Effect.sync(() => fs.rmSync(config.dataDir, { recursive: true, force: true })),
    ),
  )

export const QuietLogs = Logger.minimumLogLevel(LogLevel.Warning)

/** The recommendation engine on the test's own fiber: no process per test file, and TestClock reaches it. */
export const InProcessEngine = Layer.succeed(EnginePlacement, "in-process")

/**
 * The real server on a random loopback port, over a fresh database. Provides the HttpClient aimed at it
 * (for the SDK), the SqlClient (to arrange and inspect rows) and the config. The engine runs in process unless
 * `engine: "processes"` (for tests of the process boundary).
 */
export const TestServerLive = (
  overrides: Partial<TonearmSettings> = {},
  options: { readonly engine?: "processes" | "in-process" } = {},
) =>
  HttpApiBuilder.serve().pipe(
    Layer.provideMerge(HttpAppLive),
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(TestDatabaseLive),
    Layer.provideMerge(testConfig(overrides)),
    Layer.provide(QuietLogs),
    Layer.provide(Layer.succeed(EnginePlacement, options.engine ?? "in-process")),
  )

/** `http://127.0.0.1:<port>` of the server under test, for raw requests the SDK can't make. */
export const serverUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://unix"
})

/**
 * Another server process on the same database (a second replica), on its own random port; it lives as long
 * as the calling scope. Returns its base URL.
 */
export const secondReplica = (overrides: Partial<TonearmSettings> = {}) =>
  Effect.gen(function* () {
    const { PgClient } = yield* Effect.promise(() => import("@effect/sql-pg"))
    const { makeDatabaseLive, pgClientLayer } = yield* Effect.promise(() => import("../../src/db/Database.js"))
    const pg = yield* PgClient.PgClient
    const url = pg.config.url!
    const replica = HttpApiBuilder.serve().pipe(
      Layer.provide(HttpAppLive),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provide(makeDatabaseLive(pgClientLayer(url))),
      Layer.provide(testConfig(overrides)),
      Layer.provide(QuietLogs),
      Layer.provide(InProcessEngine),
    )
    const context = yield* Layer.build(replica)
    const server = Context.get(context, HttpServer.HttpServer)
    return server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : "http://unix"
  })
