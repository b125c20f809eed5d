import * as path from "node:path"
import {
  DEFAULT_ARTIST_SEPARATORS,
  DEFAULT_PORT,
  DEFAULT_SORT_ARTICLES,
  parseProxyList,
  parseScanIgnore,
  RADIO_RECENTLY_PLAYED_HOURS_DEFAULT,
  RADIO_SIZE_DEFAULT,
  RADIO_SIZE_MAX,
  SSE_HEARTBEAT_SECONDS,
} from "@tonearm/core"
import { Config, ConfigError, Context, Effect, Either, Layer, Option, type Redacted } from "effect"

/** Navidrome's port: operators switching over keep their bookmarks and proxy rules. */
export { DEFAULT_PORT }
export const DEFAULT_HOST = "0.0.0.0"
export const DEFAULT_DATA_DIR = "data"
export const DEFAULT_CLIENT_APK_DIR = "/app/client/"
/**
 * The library folders of `TONEARM_LIBRARY`: split on the platform's path delimiter (`:`, `;` on Windows), each
 * made absolute, empty entries and repeats dropped, the first kept first (contract "Multiple libraries").
 */
export const libraryDirsFrom = (list: string): ReadonlyArray<string> => {
  const dirs = [
    ...new Set(
      list
        .split(path.delimiter)
        .filter((entry) => entry.trim() !== "")
        .map((entry) => path.resolve(entry)),
    ),
  ]
  return dirs.length > 0 ? dirs : [path.resolve(list)]
}

/** Every library folder of a config, the first library's first. */
export const libraryDirsOf = (settings: TonearmSettings): ReadonlyArray<string> =>
  settings.libraryDirs !== undefined && settings.libraryDirs.length > 0 ? settings.libraryDirs : [settings.libraryDir]

/** Largest request body accepted on JSON routes; anything bigger is 413 `payload_too_large`. */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024
/** Largest upload the history import routes accept (a Spotify zip, a navidrome.db): streamed to disk, never held. */
export const DEFAULT_MAX_IMPORT_BYTES = 512 * 1024 * 1024

/** Every operator setting, read once at startup from `TONEARM_*` (and the two `SERVICE_*` names the spec fixes). */
export interface TonearmSettings {
  readonly port: number
  readonly host: string
  /** Where the embedded database, the stream secret and caches live. Absolute. */
  readonly dataDir: string
  /** The music folder (the first library's). Absolute. */
  readonly libraryDir: string
  /**
   * Every configured library folder, `libraryDir` first (`TONEARM_LIBRARY`: a list separated by the platform's
   * path delimiter; `--library` given several times). Absolute. A test's config may leave it out: one library.
   */
  readonly libraryDirs?: ReadonlyArray<string> | undefined
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly openRegistration: boolean
  /** Base of links sent by mail (password reset); else derived from host and port. */
  readonly publicUrl: string
  /** When set, password-reset mail is POSTed there as JSON `{to, subject, text}`; else it is logged. */
  readonly mailWebhookUrl: Option.Option<string>
  readonly clientApkDir: string
  readonly maxBodyBytes: number
  /** `TONEARM_MAX_IMPORT_BYTES`: the import routes' own body limit (absent: 512 MiB). */
  readonly maxImportBytes?: number | undefined
  /**
   * `TONEARM_PASSWORD_HASH_COST`: scrypt's parallelisation `p` at N=2^14, r=8 (absent: 5, OWASP's minimum for scrypt;
   * each step is ~50 ms of one core per sign-in). Stored hashes below it are upgraded at the next sign-in.
   */
  readonly passwordHashCost?: number | undefined
  /**
   * `TONEARM_TRUSTED_PROXIES`: the reverse proxies' addresses or CIDR ranges (core `parseProxyList`). When given, an
   * X-Forwarded-For is believed only from a socket peer inside them. Absent: every peer's chain is read under the hop
   * setting, and the login throttle also counts the socket peer.
   */
  readonly trustedProxies?: ReadonlyArray<string> | undefined
  /**
   * `TONEARM_PROXY_AUTH_HEADER` (e.g. `Remote-User`): the header a listed proxy names the signed-in user in, for
   * `POST /api/auth/proxy-login`. Absent: off. Needs `TONEARM_TRUSTED_PROXIES`.
   */
  readonly proxyAuthHeader?: string | undefined
  /** OpenID Connect sign-in (`TONEARM_OIDC_*`); absent: off. */
  readonly oidc?: OidcSettings | undefined
  /** Seconds between SSE heartbeats (spec: 15). */
  readonly sseHeartbeatSeconds: number
  /** Radio (spec "Tuning": deployment config keys): recently-played hours, default size, size maximum. */
  readonly radio: RadioSettings
  /** Providers, enrichment runs, the manager's reconciler (absent: the defaults). */
  readonly enrichment?: EnrichmentSettings | undefined
  /** How tags become credits and sort names (absent: the defaults). */
  readonly catalog?: CatalogSettings | undefined
  /**
   * What scans skip besides hidden metadata (`TONEARM_SCAN_IGNORE`): names or `/` paths, `*` and `?` wildcards
   * (core's `scanIgnoreRule`). Absent: none.
   */
  readonly scanIgnore?: ReadonlyArray<string> | undefined
  /** Network speakers (UPnP/DLNA renderers): discovery and configured ones (absent: none, no SSDP). */
  readonly cast?: CastSettings | undefined
  /** Scrobbling out to ListenBrainz and Last.fm: the Last.fm secret, retries, the sender (absent: the defaults). */
  readonly scrobbling?: ScrobblingSettings | undefined
}

export interface ScrobblingSettings {
  /**
   * `TONEARM_LASTFM_SHARED_SECRET`: the shared secret of the Last.fm API account whose key is `TONEARM_LASTFM_API_KEY`;
   * Last.fm scrobbling needs both (the requests are signed). Never logged.
   */
  readonly lastfmSharedSecret: Redacted.Redacted<string> | null
  /** `TONEARM_LASTFM_AUTH_URL`: the Last.fm page where a listener allows Tonearm to scrobble. */
  readonly lastfmAuthUrl: string
  /** `TONEARM_SCROBBLE_RETRY_BASE_MS` (30 s): the first retry's delay after a failure, doubling up to the max. */
  readonly retryBaseMs: number
  /** `TONEARM_SCROBBLE_RETRY_MAX_MS` (1 h): the longest wait between two attempts of one submission. */
  readonly retryMaxMs: number
  /** `TONEARM_SCROBBLE_POLL_MS` (10 s): how often the sender looks for due rows when nothing woke it. */
  readonly pollMs: number
  /** `TONEARM_SCROBBLE_SENDER` (true): this replica sends queued submissions (false: it only queues them). */
  readonly runSender: boolean
}

export const SCROBBLING_DEFAULTS: ScrobblingSettings = {
  lastfmSharedSecret: null,
  lastfmAuthUrl: "https://www.last.fm/api/auth/",
  retryBaseMs: 30_000,
  retryMaxMs: 3_600_000,
  pollMs: 10_000,
  runSender: true,
}

/** The scrobbling settings of a config (a test's config may leave them out). */
export const scrobblingSettingsOf = (settings: TonearmSettings): ScrobblingSettings =>
  settings.scrobbling ?? SCROBBLING_DEFAULTS

export interface CastSettings {
  /** `TONEARM_UPNP_RENDERERS`: description URLs, comma-separated, for networks where multicast does not reach. */
  readonly rendererUrls: ReadonlyArray<string>
  /** `TONEARM_UPNP_DISCOVERY` (default true): SSDP M-SEARCH and NOTIFY on UDP 1900. */
  readonly discovery: boolean
  /** `TONEARM_UPNP_TIMEOUT_MS` (default 4000): the longest any renderer call may take. */
  readonly timeoutMs: number
}

/** A config without `cast` (a test's): no configured renderer and no SSDP socket. */
export const CAST_DEFAULTS: CastSettings = { rendererUrls: [], discovery: false, timeoutMs: 4_000 }

export const castConfig = Config.all({
  rendererUrls: Config.string("TONEARM_UPNP_RENDERERS").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      const urls = text
        .split(",")
        .map((url) => url.trim())
        .filter((url) => url !== "")
      const bad = urls.find((url) => !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      return bad === undefined
        ? Either.right(urls)
        : Either.left(ConfigError.InvalidData(["TONEARM_UPNP_RENDERERS"], `not an http(s) URL: ${bad}`))
    }),
  ),
  discovery: Config.boolean("TONEARM_UPNP_DISCOVERY").pipe(Config.withDefault(true)),
  timeoutMs: Config.integer("TONEARM_UPNP_TIMEOUT_MS").pipe(
    Config.validate({ message: "must be a positive number of milliseconds", validation: (ms) => ms >= 1 }),
    Config.withDefault(CAST_DEFAULTS.timeoutMs),
  ),
})

/** The import routes' body limit of a config (a test's config may leave it out). */
export const maxImportBytesOf = (settings: TonearmSettings): number =>
  settings.maxImportBytes ?? DEFAULT_MAX_IMPORT_BYTES

/** OWASP's scrypt minimum at N=2^14, r=8 (Password Storage Cheat Sheet: N=2^14, r=8, p=5). */
export const DEFAULT_PASSWORD_HASH_COST = 5
export const passwordHashCostOf = (settings: TonearmSettings): number =>
  settings.passwordHashCost ?? DEFAULT_PASSWORD_HASH_COST

/** `TONEARM_TRUSTED_PROXIES`: addresses or CIDR ranges separated by commas or spaces; a bad entry stops startup. */
export const trustedProxiesConfig = Config.string("TONEARM_TRUSTED_PROXIES").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) => {
    const parsed = parseProxyList(text)
    return "ranges" in parsed
      ? Either.right(parsed.ranges.map((range) => range.text))
      : Either.left(
          ConfigError.InvalidData(
            ["TONEARM_TRUSTED_PROXIES"],
            `not an address or CIDR range: ${parsed.invalid} (e.g. 10.0.0.0/8, ::1)`,
          ),
        )
  }),
)

export interface OidcSettings {
  /** `TONEARM_OIDC_ISSUER`: the provider's issuer URL (its discovery document is under it). */
  readonly issuer: string
  /** `TONEARM_OIDC_CLIENT_ID` and `TONEARM_OIDC_CLIENT_SECRET` (a public client when no secret). */
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string> | null
  /** `TONEARM_OIDC_REDIRECT_URL` (default `<public url>/api/auth/oidc/callback`), registered at the provider. */
  readonly redirectUrl: string
  /** `TONEARM_OIDC_NAME` (default `OpenID Connect`): the sign-in button says "Sign in with <name>". */
  readonly name: string
}

/** `TONEARM_OIDC_*`: on when an issuer is set (then a client id is required). */
export const oidcConfig = (publicUrl: string) =>
  Config.all({
    issuer: Config.string("TONEARM_OIDC_ISSUER").pipe(Config.withDefault("")),
    clientId: Config.string("TONEARM_OIDC_CLIENT_ID").pipe(Config.withDefault("")),
    clientSecret: Config.redacted("TONEARM_OIDC_CLIENT_SECRET").pipe(
      Config.option,
      Config.map((secret) => Option.getOrNull(secret)),
    ),
    redirectUrl: Config.string("TONEARM_OIDC_REDIRECT_URL").pipe(
      Config.withDefault(`${publicUrl.replace(/\/+$/, "")}/api/auth/oidc/callback`),
    ),
    name: Config.string("TONEARM_OIDC_NAME").pipe(Config.withDefault("OpenID Connect")),
  }).pipe(
    Config.mapOrFail((settings): Either.Either<OidcSettings | undefined, ConfigError.ConfigError> => {
      if (settings.issuer.trim() === "") return Either.right(undefined)
      if (!URL.canParse(settings.issuer)) {
        return Either.left(ConfigError.InvalidData(["TONEARM_OIDC_ISSUER"], `not a URL: ${settings.issuer}`))
      }
      if (settings.clientId.trim() === "") {
        return Either.left(ConfigError.InvalidData(["TONEARM_OIDC_CLIENT_ID"], "needed with TONEARM_OIDC_ISSUER"))
      }
      return Either.right({ ...settings, issuer: settings.issuer.trim(), clientId: settings.clientId.trim() })
    }),
  )

/** `TONEARM_PROXY_AUTH_HEADER`: a header name, lower-cased; refused without a trusted proxy list to honour it from. */
export const proxyAuthHeaderConfig = (trustedProxies: ReadonlyArray<string>) =>
  Config.string("TONEARM_PROXY_AUTH_HEADER").pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) => {
      const name = text.trim().toLowerCase()
      if (name === "") return Either.right(undefined)
      if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) {
        return Either.left(ConfigError.InvalidData(["TONEARM_PROXY_AUTH_HEADER"], `not a header name: ${text}`))
      }
      return trustedProxies.length > 0
        ? Either.right(name)
        : Either.left(
            ConfigError.InvalidData(
              ["TONEARM_PROXY_AUTH_HEADER"],
              "needs TONEARM_TRUSTED_PROXIES: the header is honoured only from a listed proxy",
            ),
          )
    }),
  )

/** The cast settings of a config (a test's config may leave them out). */
export const castSettingsOf = (settings: TonearmSettings): CastSettings => settings.cast ?? CAST_DEFAULTS

/** `TONEARM_SCAN_IGNORE`: names separated by commas, or a JSON array of strings. */
export const scanIgnoreConfig = Config.string("TONEARM_SCAN_IGNORE").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) =>
    Either.mapLeft(parseScanIgnore(text), (message) => ConfigError.InvalidData(["TONEARM_SCAN_IGNORE"], message)),
  ),
)

/** The operator's scan ignore list of a config (a test's config may leave it out). */
export const scanIgnoreOf = (settings: TonearmSettings): ReadonlyArray<string> => settings.scanIgnore ?? []

/** How the scanner reads artist credits and sort names (contract "Library model"). */
export interface CatalogSettings {
  /** Separators an artist tag is split on, spaces included; matched case-insensitively. */
  readonly artistSeparators: ReadonlyArray<string>
  /** Leading articles moved to the end of a sort name ("The Beatles" → "Beatles, The"). */
  readonly sortArticles: ReadonlyArray<string>
}

export const CATALOG_DEFAULTS: CatalogSettings = {
  artistSeparators: DEFAULT_ARTIST_SEPARATORS,
  sortArticles: DEFAULT_SORT_ARTICLES,
}

/** `TONEARM_ARTIST_SEPARATORS` is a JSON array of strings (separators carry spaces and semicolons). */
const separatorsConfig = Config.string("TONEARM_ARTIST_SEPARATORS").pipe(
  Config.mapOrFail((text) => {
    try {
      const parsed: unknown = JSON.parse(text)
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === "string" && item.trim() !== "")) {
        return Either.right(parsed as ReadonlyArray<string>)
      }
    } catch {}
    return Either.left(
      ConfigError.InvalidData([], 'must be a JSON array of non-blank strings, e.g. [" feat. ", " / "]'),
    )
  }),
  Config.withDefault(CATALOG_DEFAULTS.artistSeparators),
)

export const catalogConfig = Config.all({
  artistSeparators: separatorsConfig,
  /** `TONEARM_SORT_ARTICLES`: the articles separated by spaces (empty: none). */
  sortArticles: Config.string("TONEARM_SORT_ARTICLES").pipe(
    Config.map((text) => text.split(/\s+/).filter((word) => word !== "")),
    Config.withDefault(CATALOG_DEFAULTS.sortArticles),
  ),
})

/** The catalogue settings of a config (a test's config may leave them out). */
export const catalogSettingsOf = (settings: TonearmSettings): CatalogSettings => settings.catalog ?? CATALOG_DEFAULTS

export interface ProviderSettings {
  readonly baseUrl: string
  /** The key used until an admin sets one (PATCH /api/admin/tag-sources/{id}). */
  readonly apiKey: string | null
  /** Least time between two request starts to this provider, per replica. */
  readonly throttleMs: number
}

export interface EnrichmentSettings {
  readonly userAgent: string
  readonly musicbrainz: ProviderSettings
  readonly lastfm: ProviderSettings
  readonly listenbrainz: ProviderSettings
  /** ListenBrainz's similar-artist service (labs API); shares the listenbrainz throttle. */
  readonly listenbrainzLabsUrl: string
  readonly coverartarchive: ProviderSettings
  readonly requestTimeoutMs: number
  /** Retries of a failed provider request: doubling from base, capped, then the row is failed. */
  readonly retryBaseMs: number
  readonly retryMaxMs: number
  readonly maxAttempts: number
  /** How often the drain looks for new or changed albums and artists when nothing woke it. */
  readonly pollMs: number
  /** How long a provider's similar artists for one seed are kept. */
  readonly similarCacheHours: number
  /** How often unconfirmed manager adds are re-sent, and availability checked. */
  readonly reconcileMs: number
  readonly managerTimeoutMs: number
  /** Suggestion art lookups at once (spec "Limits": bounded concurrency). */
  readonly suggestionArtConcurrency: number
  /** This replica runs the enrichment drains (false: it only serves; another replica enriches). */
  readonly runDrains: boolean
}

export const ENRICHMENT_DEFAULTS: EnrichmentSettings = {
  userAgent: "Tonearm/1.0 ( https://github.com/tonearm-music/tonearm )",
  // MusicBrainz asks for at most one request per second and a meaningful User-Agent.
  musicbrainz: { baseUrl: "https://musicbrainz.org", apiKey: null, throttleMs: 1000 },
  lastfm: { baseUrl: "https://ws.audioscrobbler.com", apiKey: null, throttleMs: 250 },
  listenbrainz: { baseUrl: "https://api.listenbrainz.org", apiKey: null, throttleMs: 500 },
  listenbrainzLabsUrl: "https://labs.api.listenbrainz.org",
  coverartarchive: { baseUrl: "https://coverartarchive.org", apiKey: null, throttleMs: 250 },
  requestTimeoutMs: 10_000,
  retryBaseMs: 60_000,
  retryMaxMs: 6 * 3_600_000,
  maxAttempts: 5,
  pollMs: 15_000,
  similarCacheHours: 24 * 7,
  reconcileMs: 60_000,
  managerTimeoutMs: 5_000,
  suggestionArtConcurrency: 4,
  runDrains: true,
}

const providerConfig = (name: string, defaults: ProviderSettings) =>
  Config.all({
    baseUrl: Config.string(`TONEARM_${name}_URL`).pipe(Config.withDefault(defaults.baseUrl)),
    apiKey: Config.string(`TONEARM_${name}_API_KEY`).pipe(
      Config.option,
      Config.map((key) => Option.getOrNull(key)),
    ),
    throttleMs: Config.integer(`TONEARM_${name}_THROTTLE_MS`).pipe(
      Config.validate({ message: "must be zero or more milliseconds", validation: (ms) => ms >= 0 }),
      Config.withDefault(defaults.throttleMs),
    ),
  })

const positiveMs = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a positive number of milliseconds", validation: (ms) => ms >= 1 }),
    Config.withDefault(fallback),
  )

export const scrobblingConfig = Config.all({
  lastfmSharedSecret: Config.redacted("TONEARM_LASTFM_SHARED_SECRET").pipe(
    Config.option,
    Config.map((secret) => Option.getOrNull(secret)),
  ),
  lastfmAuthUrl: Config.string("TONEARM_LASTFM_AUTH_URL").pipe(Config.withDefault(SCROBBLING_DEFAULTS.lastfmAuthUrl)),
  retryBaseMs: positiveMs("TONEARM_SCROBBLE_RETRY_BASE_MS", SCROBBLING_DEFAULTS.retryBaseMs),
  retryMaxMs: positiveMs("TONEARM_SCROBBLE_RETRY_MAX_MS", SCROBBLING_DEFAULTS.retryMaxMs),
  pollMs: positiveMs("TONEARM_SCROBBLE_POLL_MS", SCROBBLING_DEFAULTS.pollMs),
  runSender: Config.boolean("TONEARM_SCROBBLE_SENDER").pipe(Config.withDefault(SCROBBLING_DEFAULTS.runSender)),
})

export const enrichmentConfig = Config.all({
  userAgent: Config.string("TONEARM_USER_AGENT").pipe(Config.withDefault(ENRICHMENT_DEFAULTS.userAgent)),
  musicbrainz: providerConfig("MUSICBRAINZ", ENRICHMENT_DEFAULTS.musicbrainz),
  lastfm: providerConfig("LASTFM", ENRICHMENT_DEFAULTS.lastfm),
  listenbrainz: providerConfig("LISTENBRAINZ", ENRICHMENT_DEFAULTS.listenbrainz),
  listenbrainzLabsUrl: Config.string("TONEARM_LISTENBRAINZ_LABS_URL").pipe(
    Config.withDefault(ENRICHMENT_DEFAULTS.listenbrainzLabsUrl),
  ),
  coverartarchive: providerConfig("COVERARTARCHIVE", ENRICHMENT_DEFAULTS.coverartarchive),
  requestTimeoutMs: positiveMs("TONEARM_PROVIDER_TIMEOUT_MS", ENRICHMENT_DEFAULTS.requestTimeoutMs),
  retryBaseMs: positiveMs("TONEARM_ENRICHMENT_RETRY_BASE_MS", ENRICHMENT_DEFAULTS.retryBaseMs),
  retryMaxMs: positiveMs("TONEARM_ENRICHMENT_RETRY_MAX_MS", ENRICHMENT_DEFAULTS.retryMaxMs),
  maxAttempts: Config.integer("TONEARM_ENRICHMENT_MAX_ATTEMPTS").pipe(
    Config.validate({ message: "must be a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(ENRICHMENT_DEFAULTS.maxAttempts),
  ),
  pollMs: positiveMs("TONEARM_ENRICHMENT_POLL_MS", ENRICHMENT_DEFAULTS.pollMs),
  similarCacheHours: Config.number("TONEARM_SIMILAR_CACHE_HOURS").pipe(
    Config.validate({ message: "must be zero or more hours", validation: (hours) => hours >= 0 }),
    Config.withDefault(ENRICHMENT_DEFAULTS.similarCacheHours),
  ),
  reconcileMs: positiveMs("TONEARM_MANAGER_RECONCILE_MS", ENRICHMENT_DEFAULTS.reconcileMs),
  managerTimeoutMs: positiveMs("TONEARM_MANAGER_TIMEOUT_MS", ENRICHMENT_DEFAULTS.managerTimeoutMs),
  suggestionArtConcurrency: Config.integer("TONEARM_SUGGESTION_ART_CONCURRENCY").pipe(
    Config.validate({ message: "must be a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(ENRICHMENT_DEFAULTS.suggestionArtConcurrency),
  ),
  runDrains: Config.boolean("TONEARM_ENRICHMENT_DRAINS").pipe(Config.withDefault(ENRICHMENT_DEFAULTS.runDrains)),
})

/** The enrichment settings of a config (a test's config may leave them out). */
export const enrichmentSettingsOf = (settings: TonearmSettings): EnrichmentSettings =>
  settings.enrichment ?? ENRICHMENT_DEFAULTS

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
      const libraryDirs = libraryDirsFrom(
        yield* Config.string("TONEARM_LIBRARY").pipe(Config.withDefault(path.join(dataDir, "music"))),
      )
      const libraryDir = libraryDirs[0]!
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
      const maxImportBytes = yield* Config.integer("TONEARM_MAX_IMPORT_BYTES").pipe(
        Config.validate({ message: "must be a positive number of bytes", validation: (bytes) => bytes >= 1 }),
        Config.withDefault(DEFAULT_MAX_IMPORT_BYTES),
      )
      const passwordHashCost = yield* Config.integer("TONEARM_PASSWORD_HASH_COST").pipe(
        Config.validate({ message: "must be from 1 to 32", validation: (cost) => cost >= 1 && cost <= 32 }),
        Config.withDefault(DEFAULT_PASSWORD_HASH_COST),
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
      const enrichment = yield* enrichmentConfig
      const catalog = yield* catalogConfig
      const scanIgnore = yield* scanIgnoreConfig
      const cast = yield* castConfig
      const scrobbling = yield* scrobblingConfig
      const trustedProxies = yield* trustedProxiesConfig
      const proxyAuthHeader = yield* proxyAuthHeaderConfig(trustedProxies)
      const oidc = yield* oidcConfig(publicUrl)
      return {
        oidc,
        trustedProxies,
        proxyAuthHeader,
        cast,
        scrobbling,
        scanIgnore,
        enrichment,
        catalog,
        sseHeartbeatSeconds,
        radio,
        port,
        host,
        dataDir,
        libraryDir,
        libraryDirs,
        databaseUrl: Option.map(databaseUrl, (url) => url),
        openRegistration,
        publicUrl: publicUrl.replace(/\/+$/, ""),
        mailWebhookUrl,
        clientApkDir,
        maxBodyBytes,
        maxImportBytes,
        passwordHashCost,
      }
    },
  )

  static readonly layer = Layer.effect(TonearmConfig, TonearmConfig.fromConfig)
}
