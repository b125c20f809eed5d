import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Option, type Redacted } from "effect"
import { TonearmConfig } from "../config/TonearmConfig.js"
import { embeddedPostgres } from "./EmbeddedPostgres.js"
import { MigrationsLive } from "./Migrations.js"

/** A pool on `url`: dates stay `Date`, counts come back as numbers via `::int` in SQL. */
export const pgClientLayer = (url: Redacted.Redacted) =>
  PgClient.layer({ url, maxConnections: 20, applicationName: "tonearm", idleTimeout: "60 seconds" })

/** `TONEARM_DATABASE_URL` when set, else the embedded cluster inside the data directory. */
export const PgLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const config = yield* TonearmConfig
    if (Option.isSome(config.databaseUrl)) return pgClientLayer(config.databaseUrl.value)
    const cluster = yield* embeddedPostgres(config.dataDir)
    return pgClientLayer(cluster.url)
  }),
)

/** The production database: connected, then migrated before anything else uses it. */
export const makeDatabaseLive = <E, R>(
  pg: Layer.Layer<PgClient.PgClient | import("@effect/sql").SqlClient.SqlClient, E, R>,
) => MigrationsLive.pipe(Layer.provideMerge(pg))

export const DatabaseLive = makeDatabaseLive(PgLive)
