import * as path from "node:path"
import {
  DEFAULT_PORT,
  RADIO_RECENTLY_PLAYED_HOURS_DEFAULT,
  RADIO_SIZE_DEFAULT,
  RADIO_SIZE_MAX,
  SSE_HEARTBEAT_SECONDS,
} from "@tonearm/core"
import { Config, Context, Effect, Layer, Option, type Redacted } from "effect"

/** Navidrome's port: operators switching over keep their bookmarks and proxy rules. */
export { DEFAULT_PORT }
export const DEFAULT_HOST = "0.0.0.0"
export const DEFAULT_DATA_DIR = "data"
export const DEFAULT_CLIENT_APK_DIR = "/app/client/"
/** Largest request body accepted on JSON routes; anything bigger is 413 `payload_too_large`. */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024

/** Every operator setting, read once at startup from `TONEARM_*` (and the two `SERVICE_*` names the spec fixes). */
export interface TonearmSettings {
  readonly port: number
  readonly host: string
  /** Where the embedded database, the stream secret and caches live. Absolute. */
  readonly dataDir: string
  /** The music folder. Absolute. */
  readonly libraryDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly openRegistration: boolean
  /** Base of links sent by mail (password reset); else derived from host and port. */
  readonly publicUrl: string
  /** When set, password-reset mail is POSTed there as JSON `{to, subject, text}`; else it is logged. */
  readonly mailWebhookUrl: Option.Option<string>
  readonly clientApkDir: string
  readonly maxBodyBytes: number
  /** Seconds between SSE heartbeats (spec: 15). */
  readonly sseHeartbeatSeconds: number
  /** Radio (spec "Tuning": deployment config keys): recently-played hours, default size, size maximum. */
  readonly radio: RadioSettings
}

export interface RadioSettings {
  readonly recentlyPlayedHours: number
  readonly size: number
  readonly sizeMax: number
}

export const RADIO_DEFAULTS: RadioSettings = {
  recentlyPlayedHours: RADIO_RECENTLY_PLAYED_HOURS_DEFAULT,
  size: RADIO_SIZE_DEFAULT,
  sizeMax: RADIO_SIZE_MAX,
}

export class TonearmConfig extends Context.Tag("@tonearm/server/TonearmConfig")<TonearmConfig, TonearmSettings>() {
  static readonly fromConfig: Effect.Effect<TonearmSettings, import("effect/ConfigError").ConfigError> = Effect.gen(
    function* () {
      const port = yield* Config.port("TONEARM_PORT").pipe(Config.withDefault(DEFAULT_PORT))
      const host = yield* Config.string("TONEARM_HOST").pipe(Config.withDefault(DEFAULT_HOST))
      const dataDir = path.resolve(yield* Config.string("TONEARM_DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR)))
      const libraryDir = path.resolve(
        yield* Config.string("TONEARM_LIBRARY").pipe(Config.withDefault(path.join(dataDir, "music"))),
      )
      const databaseUrl = yield* Config.option(Config.redacted("TONEARM_DATABASE_URL"))
      const openRegistration = yield* Config.boolean("TONEARM_OPEN_REGISTRATION").pipe(Config.withDefault(false))
      const publicUrl = yield* Config.string("TONEARM_PUBLIC_URL").pipe(
        Config.withDefault(`http://${host === DEFAULT_HOST || host === "::" ? "localhost" : host}:${port}`),
      )
      const mailWebhookUrl = yield* Config.option(Config.string("TONEARM_MAIL_WEBHOOK_URL"))
      const clientApkDir = yield* Config.string("SERVICE_CLIENT_APK_DIR").pipe(
        Config.withDefault(DEFAULT_CLIENT_APK_DIR),
      )
      const maxBodyBytes = yield* Config.integer("TONEARM_MAX_BODY_BYTES").pipe(
        Config.withDefault(DEFAULT_MAX_BODY_BYTES),
      )
      const sseHeartbeatSeconds = yield* Config.number("TONEARM_SSE_HEARTBEAT_SECONDS").pipe(
        Config.withDefault(SSE_HEARTBEAT_SECONDS),
      )
      const radio = yield* Config.all({
        recentlyPlayedHours: Config.number("TONEARM_RADIO_RECENTLY_PLAYED_HOURS").pipe(
          Config.validate({ message: "must be zero or more hours", validation: (hours) => hours >= 0 }),
          Config.withDefault(RADIO_DEFAULTS.recentlyPlayedHours),
        ),
        size: Config.integer("TONEARM_RADIO_SIZE").pipe(
          Config.validate({ message: "must be a positive integer", validation: (size) => size >= 1 }),
          Config.withDefault(RADIO_DEFAULTS.size),
        ),
        sizeMax: Config.integer("TONEARM_RADIO_SIZE_MAX").pipe(
          Config.validate({ message: "must be a positive integer", validation: (size) => size >= 1 }),
          Config.withDefault(RADIO_DEFAULTS.sizeMax),
        ),
      })
      return {
        sseHeartbeatSeconds,
        radio,
        port,
        host,
        dataDir,
        libraryDir,
        databaseUrl: Option.map(databaseUrl, (url) => url),
        openRegistration,
        publicUrl: publicUrl.replace(/\/+$/, ""),
        mailWebhookUrl,
        clientApkDir,
        maxBodyBytes,
      }
    },
  )

  static readonly layer = Layer.effect(TonearmConfig, TonearmConfig.fromConfig)
}
