export {
  AdminDiagnosticsHttpLive,
  AdminPlaybackErrorsHttpLive,
  DiagnosticsHttpLive,
  PlaybackErrorsHttpLive,
} from "./DiagnosticsHttp.js"
export { DiagnosticsRetentionLive, DiagnosticsService, diagnosticsSweepLoop } from "./DiagnosticsService.js"
export { PlaybackErrorsService } from "./PlaybackErrorsService.js"
