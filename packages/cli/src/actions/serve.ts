import * as net from "node:net"
import * as path from "node:path"
import { makeServerLive, PgLive, runMigrations, TonearmConfig, type TonearmSettings } from "@tonearm/server"
import { Effect, Layer, Option } from "effect"
import { configProviderFor } from "../config.js"
import { CliError, portInUse } from "../errors.js"
import type { ServerFlags } from "../flags.js"
import { runCommand } from "../run.js"
import { readRunningRecord, readUserRecord, recordServer, running } from "../state.js"

/** Said before the database starts: a taken port fails in a second, not after the embedded PostgreSQL booted. */
const ensurePortFree = (host: string, port: number) =>
  Effect.async<void, CliError>((resume) => {
    const probe = net.createServer()
    probe.once("error", (error: NodeJS.ErrnoException) =>
      resume(
        error.code === "EADDRINUSE"
          ? Effect.fail(portInUse(host, port))
          : // Anything else (a host this machine does not have, say) is left for the real listen to report.
            Effect.void,
      ),
    )
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resume(Effect.void)))
  })

/** How a command on this machine reaches a server bound to `host`. */
const localUrlOf = (host: string, port: number) => {
  const reachable = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`
}

const refuseSecondServer = (config: TonearmSettings) =>
  Effect.flatMap(Effect.flatMap(readRunningRecord(config.dataDir), running), (other) =>
    Option.isSome(other)
      ? Effect.fail(
          new CliError({
            message: `a tonearm server already runs on ${config.dataDir} at ${other.value.url} (pid ${other.value.pid}); stop it first or choose another --data-dir`,
          }),
        )
      : Effect.void,
  )

export const serve = (flags: ServerFlags) =>
  runCommand(
    Effect.gen(function* () {
      const config = yield* TonearmConfig
      yield* ensurePortFree(config.host, config.port)
      yield* refuseSecondServer(config)
      yield* Effect.logInfo(`data directory ${config.dataDir}`)
      const libraries = config.libraryDirs ?? [config.libraryDir]
      for (const dir of libraries) yield* Effect.logInfo(`library ${dir}`)
      return yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Layer.build(makeServerLive(Layer.succeed(TonearmConfig, config)))
          // Listening now: later commands find this server (and its data directory and library) from here.
          yield* recordServer({
            url: config.publicUrl,
            local_url: localUrlOf(config.host, config.port),
            data_dir: config.dataDir,
            library: libraries.join(path.delimiter),
            pid: process.pid,
            started_at: new Date().toISOString(),
          })
          return yield* Effect.never
        }),
      )
    }).pipe(Effect.provide(TonearmConfig.layer), Effect.withConfigProvider(configProviderFor(flags))),
  )

/** Creates the database when there is none; without --data-dir, the one this user's last server used. */
export const migrate = (flags: ServerFlags) =>
  runCommand(
    Effect.gen(function* () {
      const last = yield* readUserRecord
      const recorded = Option.match(last, { onNone: () => ({}), onSome: (record) => ({ dataDir: record.data_dir }) })
      return yield* Effect.gen(function* () {
        const config = yield* TonearmConfig
        yield* Effect.logInfo(`data directory ${config.dataDir}`)
        const applied = yield* runMigrations
        yield* Effect.logInfo(
          applied.length === 0 ? "database is up to date" : `applied ${applied.length} migration(s)`,
        )
      }).pipe(
        Effect.provide(PgLive.pipe(Layer.provideMerge(TonearmConfig.layer))),
        Effect.withConfigProvider(configProviderFor(flags, recorded)),
      )
    }),
  )
