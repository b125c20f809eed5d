import { makeServerLive, PgLive, runMigrations, TonearmConfig } from "@tonearm/server"
import { Effect, Layer } from "effect"
import { configProviderFor } from "../config.js"
import type { ServerFlags } from "../flags.js"
import { runCommand } from "../run.js"

export const serve = (flags: ServerFlags) =>
  runCommand(
    Effect.gen(function* () {
      const config = yield* TonearmConfig
      yield* Effect.logInfo(`data directory ${config.dataDir}`)
      yield* Effect.logInfo(`library ${config.libraryDir}`)
      return yield* Layer.launch(makeServerLive(Layer.succeed(TonearmConfig, config)))
    }).pipe(Effect.provide(TonearmConfig.layer), Effect.withConfigProvider(configProviderFor(flags))),
  )

export const migrate = (flags: ServerFlags) =>
  runCommand(
    Effect.gen(function* () {
      const applied = yield* runMigrations
      yield* Effect.logInfo(applied.length === 0 ? "database is up to date" : `applied ${applied.length} migration(s)`)
    }).pipe(
      Effect.provide(PgLive),
      Effect.provide(TonearmConfig.layer),
      Effect.withConfigProvider(configProviderFor(flags)),
    ),
  )
