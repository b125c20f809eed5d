import { HttpApi, OpenApi } from "@effect/platform"
import { AdminUsersApi, AuthApi, MeApi } from "./accounts/AccountsApi.js"
import { CastRenderersApi } from "./cast/CastRenderersApi.js"
import {
  AdminDiagnosticsApi,
  AdminPlaybackErrorsApi,
  DiagnosticsApi,
  PlaybackErrorsApi,
} from "./diagnostics/DiagnosticsApi.js"
import { ClientDistributionApi } from "./distribution/DistributionApi.js"
import { CoverRefetchApi, TagSourcesApi } from "./enrichment/EnrichmentApi.js"
import { envelopeOf, Internal, InvalidRequest, MethodNotAllowed, NotFound, PayloadTooLarge } from "./errors.js"
import { EventsApi } from "./events/events.js"
import { AdminImportsApi, ImportsApi, PlaysExportApi } from "./history/HistoryApi.js"
import { HomeApi } from "./home/HomeApi.js"
import { CoverSourcesApi, CoversApi, LibraryApi, MissingTracksApi, ScanApi } from "./library/LibraryApi.js"
import { AdminLibrariesApi } from "./library/libraries.js"
import { LikesApi, PlaysApi } from "./listening/ListeningApi.js"
import { ModerationApi, QuarantineApi } from "./moderation/ModerationApi.js"
import { PlaylistsApi } from "./playlists/PlaylistsApi.js"
import { PlayQueueApi } from "./playqueue/PlayQueueApi.js"
import { RebuildsApi } from "./recommendations/RebuildsApi.js"
import {
  DiscoverApi,
  RadioApi,
  RecommendationsApi,
  SystemPlaylistsApi,
  TrendsApi,
  TuningApi,
} from "./recommendations/RecommendationsApi.js"
import { AdminRequestsApi, ManagerApi, RequestsApi } from "./requests/RequestsApi.js"
import { ScrobblersApi } from "./scrobbling/ScrobblingApi.js"
import { TrustedProxiesApi } from "./settings/TrustedProxiesApi.js"
import { SmartPlaylistsApi } from "./smartPlaylists/SmartPlaylistsApi.js"
import { CastApi, StreamingApi } from "./streaming/StreamingApi.js"
import { SubsonicCredentialsApi } from "./subsonic/SubsonicApi.js"
import { SyncApi } from "./sync/SyncApi.js"
import { SystemApi } from "./system/SystemApi.js"

/**
 * The one description of every JSON route: the server implements it, the client SDK is derived from it
 * and /openapi.json is generated from it. Errors any route can answer are listed here once.
 */
export class TonearmApi extends HttpApi.make("tonearm")
  .add(SystemApi)
  .add(AuthApi)
  .add(MeApi)
  .add(AdminUsersApi)
  .add(TrustedProxiesApi)
  .add(LibraryApi)
  .add(SyncApi)
  .add(HomeApi)
  .add(CoversApi)
  .add(ScanApi)
  .add(AdminLibrariesApi)
  .add(MissingTracksApi)
  .add(CoverSourcesApi)
  .add(StreamingApi)
  .add(CastApi)
  .add(CastRenderersApi)
  .add(EventsApi)
  .add(PlaysApi)
  .add(LikesApi)
  .add(PlaylistsApi)
  .add(SmartPlaylistsApi)
  .add(PlayQueueApi)
  .add(RecommendationsApi)
  .add(SystemPlaylistsApi)
  .add(DiscoverApi)
  .add(RadioApi)
  .add(TuningApi)
  .add(TrendsApi)
  .add(RebuildsApi)
  .add(TagSourcesApi)
  .add(CoverRefetchApi)
  .add(RequestsApi)
  .add(AdminRequestsApi)
  .add(ManagerApi)
  .add(QuarantineApi)
  .add(ModerationApi)
  .add(PlaybackErrorsApi)
  .add(AdminPlaybackErrorsApi)
  .add(DiagnosticsApi)
  .add(AdminDiagnosticsApi)
  .add(ClientDistributionApi)
  .add(SubsonicCredentialsApi)
  .add(ImportsApi)
  .add(AdminImportsApi)
  .add(PlaysExportApi)
  .add(ScrobblersApi)
  .addError(envelopeOf(InvalidRequest))
  .addError(envelopeOf(NotFound))
  .addError(envelopeOf(MethodNotAllowed))
  .addError(envelopeOf(PayloadTooLarge))
  .addError(envelopeOf(Internal))
  .annotate(OpenApi.Title, "Tonearm")
  .annotate(
    OpenApi.Description,
    'Self-hosted music server. Every error answers {"error":{"code","message"}}; authenticated routes take the tonearm_session cookie or Authorization: Bearer <token>.',
  ) {}
