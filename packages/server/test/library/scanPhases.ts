import { Layer } from "effect"
import { ChangeLog } from "../../src/changes/index.js"
import { CATALOG_DEFAULTS } from "../../src/config/TonearmConfig.js"
import { CatalogRepository } from "../../src/library/CatalogRepository.js"
import type { RawTags } from "../../src/library/ParsePool.js"
import type { KnownIndex } from "../../src/library/scan/plan.js"
import type { ParsedFolder, ReadOutcome } from "../../src/library/scan/read.js"
import { scannedFile } from "../../src/library/scannedFile.js"
import type { SidecarStat } from "../../src/library/walk.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** What the write and tidy phases run on: the catalogue and change log over a fresh database. */
export const ScanPhasesLive = Layer.mergeAll(CatalogRepository.Default, ChangeLog.Default).pipe(
  Layer.provideMerge(TestDatabaseLive),
)

export const noIndex: KnownIndex = { tracks: new Map(), errors: new Map(), folders: new Map() }

export const tags = (overrides: Partial<RawTags> = {}): RawTags => ({
  container: "FLAC",
  codec: "FLAC",
  duration: 180,
  bitrate: 900_000,
  title: null,
  artist: null,
  artists: [],
  albumartist: null,
  album: null,
  track: null,
  disk: null,
  year: null,
  date: null,
  genre: [],
  compilation: false,
  trackMbid: null,
  albumMbid: null,
  artistMbid: null,
  albumArtistMbid: null,
  hasPicture: false,
  ...overrides,
})

export const scanned = (
  path: string,
  raw: Partial<RawTags>,
  file: { readonly sizeBytes?: number; readonly mtimeMs?: number } = {},
): ReadOutcome => {
  const folder = path.slice(0, path.lastIndexOf("/"))
  const found = { path, sizeBytes: file.sizeBytes ?? 1_000, mtimeMs: file.mtimeMs ?? 1 }
  return { _tag: "Scanned", file: scannedFile(found, folder, tags(raw), CATALOG_DEFAULTS) }
}

export const failed = (path: string, message = "not a recognisable audio file"): ReadOutcome => ({
  _tag: "Failed",
  folder: path.slice(0, path.lastIndexOf("/")),
  error: { path, sizeBytes: 10, mtimeMs: 1, message },
})

export const parsedFolder = (
  folder: string,
  outcomes: ReadonlyArray<ReadOutcome>,
  sidecar?: SidecarStat,
): ParsedFolder => ({ folder, sidecar, outcomes })
