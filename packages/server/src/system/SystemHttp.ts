import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Health, TonearmApi } from "@tonearm/core"
import { Effect, Layer, Schema } from "effect"
import { SERVER_VERSION } from "../version.js"
import { HealthRepository } from "./HealthRepository.js"

export const SystemHttpLive = HttpApiBuilder.group(TonearmApi, "system", (handlers) =>
  Effect.gen(function* () {
    const health = yield* HealthRepository
    return handlers.handle("health", () =>
      Effect.gen(function* () {
        const database = yield* health.databaseAnswers
        const body = new Health({ status: database ? "ok" : "degraded", database, version: SERVER_VERSION })
        if (database) return body
        return yield* HttpServerResponse.json(Schema.encodeSync(Health)(body), { status: 503 }).pipe(Effect.orDie)
      }),
    )
  }),
).pipe(Layer.provide(HealthRepository.Default))
