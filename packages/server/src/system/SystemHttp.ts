import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Health, Readiness, TonearmApi } from "@tonearm/core"
import { Effect, Layer, Schema } from "effect"
import { migrations } from "../db/Migrations.js"
import { SERVER_VERSION } from "../version.js"
import { HealthRepository } from "./HealthRepository.js"

/** The newest migration this version ships (`0023_smart_playlists` → 23). */
export const LATEST_MIGRATION = Math.max(...Object.keys(migrations).map((id) => Number.parseInt(id, 10)))

export const SystemHttpLive = HttpApiBuilder.group(TonearmApi, "system", (handlers) =>
  Effect.gen(function* () {
    const health = yield* HealthRepository
    return handlers
      .handle("health", () =>
        Effect.gen(function* () {
          const database = yield* health.databaseAnswers
          const body = new Health({ status: database ? "ok" : "degraded", database, version: SERVER_VERSION })
          if (database) return body
          return yield* HttpServerResponse.json(Schema.encodeSync(Health)(body), { status: 503 }).pipe(Effect.orDie)
        }),
      )
      .handle("ready", () =>
        Effect.gen(function* () {
          const latest = yield* health.latestMigration
          const database = latest !== undefined
          const applied = database && latest >= LATEST_MIGRATION
          const body = new Readiness({
            status: applied ? "ready" : "not_ready",
            database,
            migrations: applied,
            version: SERVER_VERSION,
          })
          if (applied) return body
          return yield* HttpServerResponse.json(Schema.encodeSync(Readiness)(body), { status: 503 }).pipe(Effect.orDie)
        }),
      )
  }),
).pipe(Layer.provide(HealthRepository.Default))
