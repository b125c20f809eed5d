export { CatalogRules } from "./CatalogRules.js"
export { CoverService } from "./CoverService.js"
export { byId, inOrder } from "./idOrder.js"
export { LibrariesBootLive, LibrariesService } from "./LibrariesService.js"
export { LibraryAccess } from "./LibraryAccess.js"
export { LibraryEnrichment } from "./LibraryEnrichment.js"
export {
  AdminLibrariesHttpLive,
  CoversHttpLive,
  LibraryHttpLive,
  MissingTracksHttpLive,
  ScanHttpLive,
} from "./LibraryHttp.js"
export { LibraryRoots } from "./LibraryRoots.js"
export { LibraryService } from "./LibraryService.js"
export { LibraryWatcherLive } from "./LibraryWatcher.js"
export { LyricsService } from "./LyricsService.js"
export { ParsePool } from "./ParsePool.js"
export { Scanner, type ScanProgress, type ScanSummary } from "./Scanner.js"
export { BootScanLive, ScanService } from "./ScanService.js"
export { ScanSignals } from "./ScanSignals.js"
export { externalArtistImagesDir, externalCoversDir, type LibraryFile, TrackFiles } from "./TrackFiles.js"
export { TrackRemoval } from "./TrackRemoval.js"
