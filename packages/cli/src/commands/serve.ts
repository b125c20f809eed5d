import { makeServerLive, PgLive, runMigrations, TonearmConfig } from "@tonearm/server"
import type { Command } from "commander"
import { Effect, Layer } from "effect"
import { configProviderFor, type ServerFlags } from "../config.js"
import { runCommand } from "../run.js"

/** The flags every command that reaches the database shares. */
export const withDatabaseFlags = (command: Command) =>
  command
    .option(
      "--data-dir <dir>",
      "data directory: embedded PostgreSQL, stream secret, caches (env TONEARM_DATA_DIR)",
      undefined,
    )
    .option("--database-url <url>", "use this PostgreSQL instead of the embedded one (env TONEARM_DATABASE_URL)")

export const registerServe = (program: Command) => {
  withDatabaseFlags(
    program
      .command("serve")
      .description("start the server (runs pending migrations first)")
      .option("-p, --port <port>", "port to listen on (env TONEARM_PORT, default 4533)")
      .option("-H, --host <host>", "address to bind (env TONEARM_HOST, default 0.0.0.0)")
      .option("-l, --library <dir>", "music folder to index (env TONEARM_LIBRARY, default <data-dir>/music)"),
  ).action((flags: ServerFlags) => {
    const program = Effect.gen(function* () {
      const config = yield* TonearmConfig
      yield* Effect.logInfo(`data directory ${config.dataDir}`)
      yield* Effect.logInfo(`library ${config.libraryDir}`)
      return yield* Layer.launch(makeServerLive(Layer.succeed(TonearmConfig, config)))
    }).pipe(Effect.provide(TonearmConfig.layer), Effect.withConfigProvider(configProviderFor(flags)))
    runCommand(program)
  })

  withDatabaseFlags(program.command("migrate").description("apply pending database migrations and exit")).action(
    (flags: ServerFlags) => {
      const program = Effect.gen(function* () {
        const applied = yield* runMigrations
        yield* Effect.logInfo(
          applied.length === 0 ? "database is up to date" : `applied ${applied.length} migration(s)`,
        )
      }).pipe(
        Effect.provide(PgLive),
        Effect.provide(TonearmConfig.layer),
        Effect.withConfigProvider(configProviderFor(flags)),
      )
      runCommand(program)
    },
  )
}
