import * as path from "node:path"
import { ConfigProvider, Layer, Logger, LogLevel } from "effect"
import type { ServerFlags } from "./flags.js"

/** Where a relative path was meant from: pnpm runs root scripts in the repo root but keeps INIT_CWD. */
export const invocationDir = (): string => process.env.INIT_CWD ?? process.cwd()

export const resolvePath = (value: string): string => path.resolve(invocationDir(), value)

/** What the last server on a data directory recorded: used when neither a flag nor the environment says. */
export interface Recorded {
  readonly dataDir?: string
  readonly library?: string
  readonly publicUrl?: string
}

/**
 * Flags win over the environment, the environment over what the last server recorded; relative directories
 * are resolved from where the command was typed.
 */
export const configProviderFor = (flags: ServerFlags, recorded: Recorded = {}): ConfigProvider.ConfigProvider => {
  const map = new Map<string, string>()
  const env = process.env
  const given = (value: string | undefined) => (value === undefined || value === "" ? undefined : value)
  const setPath = (key: string, value: string | undefined) => {
    if (value !== undefined) map.set(key, resolvePath(value))
  }
  if (flags.port !== undefined) map.set("TONEARM_PORT", flags.port)
  if (flags.host !== undefined) map.set("TONEARM_HOST", flags.host)
  if (flags.databaseUrl !== undefined) map.set("TONEARM_DATABASE_URL", flags.databaseUrl)
  // Several libraries: one list in the platform's path delimiter, each folder resolved from where it was typed.
  const libraries = (typeof flags.library === "string" ? [flags.library] : (flags.library ?? [])).filter(
    (dir) => dir !== "",
  )
  const libraryList =
    libraries.length > 0 ? libraries : (given(env.TONEARM_LIBRARY) ?? recorded.library)?.split(path.delimiter)
  if (libraryList !== undefined) {
    const dirs = libraryList.filter((dir) => dir !== "").map(resolvePath)
    if (dirs.length > 0) map.set("TONEARM_LIBRARY", dirs.join(path.delimiter))
  }
  setPath("TONEARM_DATA_DIR", given(flags.dataDir) ?? given(env.TONEARM_DATA_DIR) ?? recorded.dataDir)
  const publicUrl = given(env.TONEARM_PUBLIC_URL) ?? recorded.publicUrl
  if (publicUrl !== undefined) map.set("TONEARM_PUBLIC_URL", publicUrl)
  return ConfigProvider.fromMap(map).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))
}

const LEVELS: Record<string, LogLevel.LogLevel> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
}

/**
 * Logs on stderr at TONEARM_LOG_LEVEL (default info): human-readable, or one JSON object a line with
 * `TONEARM_LOG_FORMAT=json` (`{message, logLevel, timestamp, cause, spans, annotations, fiberId}`) for a collector.
 */
export const LoggingLive = Layer.mergeAll(
  // stderr: a command's stdout carries only its result (a link, a table), so scripts can capture it.
  Logger.replace(
    Logger.defaultLogger,
    (process.env.TONEARM_LOG_FORMAT ?? "").toLowerCase() === "json"
      ? Logger.withConsoleError(Logger.jsonLogger)
      : Logger.prettyLogger({ stderr: true }),
  ),
  Logger.minimumLogLevel(LEVELS[(process.env.TONEARM_LOG_LEVEL ?? "info").toLowerCase()] ?? LogLevel.Info),
)
