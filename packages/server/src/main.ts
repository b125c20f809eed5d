import { createServer } from "node:http"
import { FetchHttpClient, HttpApiBuilder, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { TonearmApi } from "@tonearm/core"
import { Effect, Layer } from "effect"
import {
  AccountsService,
  AdminUsersHttpLive,
  AuthenticationMiddlewareLive,
  AuthHttpLive,
  Mailer,
  MeHttpLive,
  OidcService,
  PASSWORD_PAGE_ROUTES,
  PasswordPagesLive,
  RequestAuthenticator,
  SessionsService,
} from "./accounts/index.js"
import { CastRenderersHttpLive, CastRenderersService } from "./cast/index.js"
import { ChangeLog } from "./changes/index.js"
import { TonearmConfig } from "./config/TonearmConfig.js"
import { DatabaseLive } from "./db/Database.js"
import {
  AdminDiagnosticsHttpLive,
  AdminPlaybackErrorsHttpLive,
  DiagnosticsHttpLive,
  DiagnosticsRetentionLive,
  DiagnosticsService,
  PlaybackErrorsHttpLive,
  PlaybackErrorsService,
} from "./diagnostics/index.js"
import { ClientDistributionHttpLive, ClientDistributionService } from "./distribution/index.js"
import {
  CoverRefetchHttpLive,
  CoverSourcesHttpLive,
  EnrichmentService,
  ProviderHttp,
  TagSourcesHttpLive,
} from "./enrichment/index.js"
import { EventBus, EventsHttpLive } from "./events/index.js"
import {
  AdminImportsHttpLive,
  ImportRunnerLive,
  ImportService,
  ImportSourcePlugins,
  ImportsHttpLive,
  makeLastfmSource,
  makeNavidromeSource,
  PlaysExportHttpLive,
} from "./history/index.js"
import { HomeHttpLive, HomeService } from "./home/index.js"
import { accessLog } from "./http/accessLog.js"
import { makeErrorEnvelopeLive } from "./http/errorEnvelope.js"
import { IdleWriteTimeoutLive } from "./http/idleWrites.js"
import { JsonCachingLive } from "./http/jsonCaching.js"
import { makeRequestMetrics } from "./http/requestMetrics.js"
import { SecurityHeadersLive } from "./http/securityHeaders.js"
import { applyServerTimeouts } from "./http/serverTimeouts.js"
import { lazySwaggerLayer } from "./http/swagger.js"
import { WebAppLive } from "./http/webApp.js"
import { Leases } from "./leases/index.js"
import {
  AdminLibrariesHttpLive,
  BootScanLive,
  CatalogRules,
  CoverService,
  CoversHttpLive,
  LibrariesBootLive,
  LibrariesService,
  LibraryAccess,
  LibraryHttpLive,
  LibraryService,
  LibraryWatcherLive,
  LyricsService,
  MissingTracksHttpLive,
  ParsePool,
  ScanHttpLive,
  Scanner,
  ScanService,
  ScanSignals,
  TrackFiles,
  TrackRemoval,
} from "./library/index.js"
import {
  LikesHttpLive,
  LikesService,
  ListeningStatsService,
  PlaysHttpLive,
  PlaysService,
  RatingsService,
} from "./listening/index.js"
import { AcquisitionManager, ModerationHttpLive, QuarantineHttpLive, QuarantineService } from "./moderation/index.js"
import { PlaylistCover, PlaylistsHttpLive, PlaylistsService } from "./playlists/index.js"
import { PlayQueueHttpLive, PlayQueueService } from "./playqueue/index.js"
import {
  AccountLifecycleLive,
  DiscoverHttpLive,
  DiscoverService,
  EnginePlacement,
  LearnedSimilarityService,
  RadioHttpLive,
  RadioService,
  RebuildRunsService,
  RebuildScheduler,
  RebuildSchedulerLive,
  RebuildService,
  RebuildsHttpLive,
  RecommendationEngine,
  RecommendationEngineWorker,
  RecommendationsHttpLive,
  RecommendationsService,
  SimilarArtistsService,
  SuggestionSourcesLive,
  SystemPlaylistsHttpLive,
  SystemPlaylistsService,
  TrendsHttpLive,
  TrendsService,
  TuningHttpLive,
  TuningService,
} from "./recommendations/index.js"
import { AdminRequestsHttpLive, ManagerHttpLive, RequestsHttpLive, RequestsService } from "./requests/index.js"
import { ScrobblersHttpLive, ScrobblingService } from "./scrobbling/index.js"
import { TrustedProxies, TrustedProxiesHttpLive } from "./settings/index.js"
import { SmartPlaylistsHttpLive, SmartPlaylistsService } from "./smartPlaylists/index.js"
import {
  CastHttpLive,
  CastService,
  StreamAuthenticationLive,
  StreamingHttpLive,
  StreamSecretLive,
  StreamService,
} from "./streaming/index.js"
import {
  SUBSONIC_ROUTES,
  SubsonicCredentialsHttpLive,
  SubsonicCredentialsService,
  SubsonicHttpLive,
  SubsonicKeyLive,
  SubsonicService,
} from "./subsonic/index.js"
import { SyncHttpLive, SyncService } from "./sync/index.js"
import { METRICS_ROUTES, MetricsHttpLive } from "./system/MetricsHttp.js"
import { SystemHttpLive } from "./system/SystemHttp.js"

/** Services with no dependency on other domains' services. */
const FoundationServicesLive = Layer.mergeAll(
  AccountsService.Default,
  OidcService.Default,
  SessionsService.Default,
  TrustedProxies.Default,
  RequestAuthenticator.Default,
  LibraryService.Default,
  // The caller's library set: the instance every repository reads through, so a change of access is seen at once.
  LibraryAccess.Default,
  LyricsService.Default,
  CoverService.Default,
  ScanService.Default,
  Scanner.Default,
  // The same instance the scanner announces to (layers are shared by reference): enrichment listens.
  ScanSignals.Default,
  TrackFiles.Default,
  StreamService.Default,
  CastService.Default,
  EventBus.Default,
  ChangeLog.Default,
)

/** Quarantine: the filter every track surface above applies, and the admin's verdicts (library removal, manager). */
const ModerationServicesLive = QuarantineService.Default.pipe(
  Layer.provide(TrackRemoval.Default),
  Layer.provide(AcquisitionManager.Live),
)

/** Playback errors, device diagnostics and the installer: nothing else depends on them. */
const DiagnosticsServicesLive = Layer.mergeAll(
  PlaybackErrorsService.Default,
  DiagnosticsService.Default,
  ClientDistributionService.Default,
)

/** Listening data, built on the library, the change log and the event bus. */
const ListeningServicesLive = Layer.mergeAll(
  RatingsService.Default,
  PlaylistsService.Default,
  PlaylistCover.Default,
  SmartPlaylistsService.Default.pipe(Layer.provide(PlaylistsService.Default)),
).pipe(Layer.provideMerge(LikesService.Default))

/** Where the recommendation engine computes: its own processes, off the HTTP event loop (tests may place it here). */
const RecommendationEngineLive = Layer.unwrapEffect(
  Effect.map(EnginePlacement, (placement) =>
    placement === "in-process" ? RecommendationEngine.inProcess : RecommendationEngineWorker(),
  ),
)

/** The recommendation service, over listening data and the live tuning. */
const RecommendationServicesLive = Layer.mergeAll(
  RecommendationsService.Default,
  RebuildService.Default,
  TrendsService.Default,
  // The learned similarity's fits (nightly, after scans and imports), over the rebuild's catalog source.
  LearnedSimilarityService.Default.pipe(Layer.provide(RebuildService.Default)),
).pipe(Layer.provideMerge(Layer.mergeAll(TuningService.Default, RecommendationEngineLive)))

/** Discover, radio and similar artists, over the rebuild and the similar-artist sources. */
const DiscoverServicesLive = Layer.mergeAll(
  DiscoverService.Default,
  RadioService.Default,
  SimilarArtistsService.Default,
).pipe(Layer.provideMerge(SuggestionSourcesLive))

/** The Subsonic API over the same services as the JSON API (the discover layer is shared, not built twice). */
const SubsonicServicesLive = Layer.mergeAll(SubsonicService.Default, SubsonicCredentialsService.Default).pipe(
  Layer.provide(SubsonicKeyLive),
  Layer.provide(DiscoverServicesLive),
)

/**
 * The import sources beyond the uploaded files: the Last.fm pull (through the same provider throttle as enrichment:
 * `ProviderHttp.Default` is one shared layer), the admin's Navidrome database.
 */
const ImportSourcesLive = Layer.effect(ImportSourcePlugins, Effect.all([makeLastfmSource, makeNavidromeSource])).pipe(
  Layer.provide(ProviderHttp.Default),
)

/** Domain services over an already-built database and config; each layer builds on the ones below it. */
export const ServicesLive = Layer.mergeAll(
  // Network speakers: over stream tokens, the library and diagnostics.
  CastRenderersService.Default,
  SystemPlaylistsService.Default,
  HomeService.Default,
  SyncService.Default,
  RebuildScheduler.Default,
  RebuildRunsService.Default,
  DiscoverServicesLive,
  DiagnosticsServicesLive,
  SubsonicServicesLive,
  PlayQueueService.Default,
  ListeningStatsService.Default,
  // History imports and the export, over plays and the rebuild.
  ImportService.Default.pipe(Layer.provide(ImportSourcesLive)),
).pipe(
  Layer.provideMerge(RecommendationServicesLive),
  Layer.provideMerge(PlaysService.Default),
  // Scrobbling out: queued by the play path in its transactions, sent by a background sender per provider.
  Layer.provideMerge(ScrobblingService.Default),
  Layer.provideMerge(ListeningServicesLive),
  Layer.provideMerge(ModerationServicesLive),
  // Requests and the manager's reconciler; providers and enrichment runs (background drains), over the library.
  Layer.provideMerge(Layer.mergeAll(RequestsService.Default, EnrichmentService.Default)),
  // The libraries and who hears each (admin routes, the boot's reconciliation, Subsonic's music folders).
  Layer.provideMerge(LibrariesService.Default),
  // Registration and timezone changes (re)schedule the user's 03:00 rebuild through the accounts port.
  Layer.provideMerge(FoundationServicesLive.pipe(Layer.provide(AccountLifecycleLive))),
  Layer.provide(Mailer.layer),
  Layer.provide(FetchHttpClient.layer),
  Layer.provideMerge(ParsePool.layer()),
  Layer.provideMerge(CatalogRules.layer),
  Layer.provideMerge(StreamSecretLive),
  // Which replica runs each background duty (issue 30): one instance shared by every service that leases.
  Layer.provideMerge(Leases.Default),
)

/** Every JSON route of the contract, its middleware and the services behind them. */
export const ApiLive = HttpApiBuilder.api(TonearmApi).pipe(
  Layer.provide([
    SystemHttpLive,
    AuthHttpLive,
    MeHttpLive,
    AdminUsersHttpLive,
    TrustedProxiesHttpLive,
    LibraryHttpLive,
    CoversHttpLive,
    CoverSourcesHttpLive,
    ScanHttpLive,
    AdminLibrariesHttpLive,
    MissingTracksHttpLive,
    StreamingHttpLive,
    CastHttpLive,
    CastRenderersHttpLive,
    EventsHttpLive,
    PlaysHttpLive,
    ScrobblersHttpLive,
    LikesHttpLive,
    PlaylistsHttpLive,
    SmartPlaylistsHttpLive,
    PlayQueueHttpLive,
    SyncHttpLive,
    HomeHttpLive,
    RecommendationsHttpLive,
    SystemPlaylistsHttpLive,
    RebuildsHttpLive,
    DiscoverHttpLive,
    RadioHttpLive,
    TuningHttpLive,
    TrendsHttpLive,
    TagSourcesHttpLive,
    CoverRefetchHttpLive,
    RequestsHttpLive,
    AdminRequestsHttpLive,
    ManagerHttpLive,
    SubsonicCredentialsHttpLive,
    QuarantineHttpLive,
    ModerationHttpLive,
    PlaybackErrorsHttpLive,
    AdminPlaybackErrorsHttpLive,
    DiagnosticsHttpLive,
    AdminDiagnosticsHttpLive,
    ClientDistributionHttpLive,
    ImportsHttpLive,
    AdminImportsHttpLive,
    PlaysExportHttpLive,
  ]),
  Layer.provide([AuthenticationMiddlewareLive, StreamAuthenticationLive]),
  Layer.provideMerge(ServicesLive),
)

/** The contract plus what rides next to it: the error envelope, /openapi.json, /docs, the account pages, the web app. */
export const HttpAppLive = Layer.mergeAll(
  makeErrorEnvelopeLive([
    { method: "GET", path: "/openapi.json" },
    { method: "GET", path: "/docs" },
    ...PASSWORD_PAGE_ROUTES,
    ...SUBSONIC_ROUTES,
    ...METRICS_ROUTES,
  ]),
  HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" }),
  lazySwaggerLayer({ path: "/docs" }),
  PasswordPagesLive,
  SubsonicHttpLive,
  WebAppLive,
  // Prometheus `/metrics` (loopback or the metrics token).
  MetricsHttpLive,
  JsonCachingLive,
  SecurityHeadersLive,
  // A connection that takes no response bytes for TONEARM_IDLE_WRITE_TIMEOUT_MS is closed (its transcode freed).
  IdleWriteTimeoutLive,
  // Runs queued history imports (one at a time per process); resumes a handed-back or stale one.
  ImportRunnerLive,
  // The configured folders become libraries (the first adopts an index made before libraries existed).
  LibrariesBootLive,
).pipe(Layer.provideMerge(ApiLive))

/** Gives in-flight requests 10 s after shutdown starts, then closes what is still open (SSE, stalled clients). */
const GRACE_MS = 10_000

const NodeServerLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const config = yield* TonearmConfig
    const server = applyServerTimeouts(createServer())
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        server.closeIdleConnections()
        setTimeout(() => server.closeAllConnections(), GRACE_MS).unref()
      }),
    )
    return NodeHttpServer.layer(() => server, { port: config.port, host: config.host })
  }),
)

/** Every request counted per route template into `/metrics`: the contract's routes and those served beside it. */
export const requestMetrics = makeRequestMetrics([
  { method: "GET", path: "/openapi.json" },
  { method: "GET", path: "/docs" },
  ...PASSWORD_PAGE_ROUTES,
  ...SUBSONIC_ROUTES,
  ...METRICS_ROUTES,
  { method: "GET", path: "/*" },
])

/**
 * The whole server over a config layer: database (embedded or external), migrations, HTTP, the first scan,
 * the library watcher and periodic scan, the daily rebuild's scheduler.
 */
export const ServerLive = Layer.mergeAll(
  HttpApiBuilder.serve((app) => accessLog(requestMetrics(app))).pipe(
    HttpServer.withLogAddress,
    // No tracer exports spans: the per-request server span (a parsed URL, every header copied as an attribute)
    // was a fifth of a small request's CPU, all of it garbage.
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(NodeServerLive),
  ),
  BootScanLive,
  LibraryWatcherLive,
  RebuildSchedulerLive,
  DiagnosticsRetentionLive,
).pipe(
  // The app is built before the socket listens, so no early request meets a server without a handler.
  Layer.provide(HttpAppLive),
  Layer.provide(DatabaseLive),
)

/**
 * Spans (`Effect.fn`, `withSpan`) are off too: with no exporter configured each one was only allocation on every
 * request and job. A deployment that adds an OpenTelemetry exporter turns them back on with it.
 */
export const makeServerLive = <E, R>(config: Layer.Layer<TonearmConfig, E, R>) =>
  ServerLive.pipe(Layer.provide(config), Layer.provide(Layer.setTracerEnabled(false)))
