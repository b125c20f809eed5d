export { AdminImportsHttpLive, ImportsHttpLive, PlaysExportHttpLive } from "./HistoryHttp.js"
export { ImportRunnerLive, ImportService } from "./ImportService.js"
export {
  type ImportCounters,
  ImportFailed,
  type ImportJob,
  type ImportProgress,
  type ImportSourcePlugin,
  ImportSourcePlugins,
  ImportTuning,
  type ListenPage,
  type MatchedEntry,
} from "./ImportSources.js"
export { LastfmPullTuning, makeLastfmSource } from "./lastfm/LastfmSource.js"
export { makeNavidromeSource } from "./navidrome/index.js"
