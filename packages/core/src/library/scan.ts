import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"

export const ScanState = Schema.Literal("idle", "running", "failed")
export type ScanState = typeof ScanState.Type

/**
 * A scan's figures, the same in the whole status and in each library's. `removed`: tracks the scan marked missing
 * (their files vanished); they are kept, hidden, until they return or are purged.
 */
const scanFigures = {
  state: ScanState,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  finished_at: Schema.NullOr(Schema.DateTimeUtc),
  files_seen: Schema.Int,
  added: Schema.Int,
  updated: Schema.Int,
  removed: Schema.Int,
  errors: Schema.Int,
}

/** One library's current or last scan (issue 27): the same figures as the scan status, for that library. */
export class LibraryScanStatus extends Schema.Class<LibraryScanStatus>("LibraryScanStatus")({
  library_id: Schema.Int,
  name: Schema.String,
  ...scanFigures,
  message: Schema.NullOr(Schema.String),
  skipped: Schema.Int,
}) {}

/**
 * GET /api/admin/scan (contract): the current or last scan of any library, and (`libraries`) each present
 * library's own. While one library scans the top level reports that scan ("running").
 */
export class ScanStatus extends Schema.Class<ScanStatus>("ScanStatus")({
  ...scanFigures,
  /**
   * Why the last scan failed, in one line (e.g. a library folder that holds no audio files while the index
   * holds tracks: nothing was marked missing); null otherwise. Absent from older servers' answers.
   */
  message: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
  /**
   * Files and folders the scan skipped as hidden metadata (`.DS_Store`, `._*`, `@eaDir`, …) or by the
   * `TONEARM_SCAN_IGNORE` list; a skipped folder counts once, its contents are not looked at. 0 from older servers.
   */
  skipped: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  /** Each present library's scan, by library id (issue 27). Absent from older servers' answers. */
  libraries: Schema.optionalWith(Schema.Array(LibraryScanStatus), { default: () => [] }),
}) {}

export const StartScanRequest = Schema.Struct({ full: Schema.optional(Schema.Boolean) })

export class ScanStarted extends Schema.Class<ScanStarted>("ScanStarted")({ started: Schema.Boolean }) {}

/** Paging of GET /api/admin/scan/errors: limit defaults to 50 and is clamped to 500 (caps are clamps). */
export const SCAN_ERRORS_PAGE_DEFAULT = 50
export const SCAN_ERRORS_PAGE_MAX = 500

export const ScanErrorsQuery = Schema.Struct({
  offset: Schema.optional(IntFromQuery.pipe(Schema.nonNegative())),
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
})
export type ScanErrorsQuery = typeof ScanErrorsQuery.Type

/** A library file the last scans could not index, and why (its path is relative to its library's folder). */
export class ScanFileError extends Schema.Class<ScanFileError>("ScanFileError")({
  library_id: Schema.Int,
  path: Schema.String,
  message: Schema.String,
  size_bytes: Schema.NonNegativeInt,
  seen_at: Schema.DateTimeUtc,
}) {}

/** GET /api/admin/scan/errors: ordered by path. */
export class ScanErrorPage extends Schema.Class<ScanErrorPage>("ScanErrorPage")({
  items: Schema.Array(ScanFileError),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int,
}) {}

/** Indexed file extensions (spec "What the service does" 1), matched in any letter case. */
export const AUDIO_EXTENSIONS = [".mp3", ".m4a", ".flac", ".ogg", ".opus", ".aac", ".wav"] as const

export const isAudioPath = (path: string): boolean => {
  const lower = path.toLowerCase()
  return AUDIO_EXTENSIONS.some((extension) => lower.endsWith(extension))
}

/** Sidecar cover names, in order of preference (contract "Library"). */
const SIDECAR_BASENAMES = ["cover", "folder", "front"] as const
const SIDECAR_EXTENSIONS = [".jpg", ".jpeg", ".png", ".webp"] as const

/** The preferred sidecar image among a folder's file names, matched in any letter case. */
export const pickSidecarCover = (fileNames: ReadonlyArray<string>): string | undefined => {
  let best: { name: string; rank: number } | undefined
  for (const name of fileNames) {
    const lower = name.toLowerCase()
    const dot = lower.lastIndexOf(".")
    if (dot < 0) continue
    const base = SIDECAR_BASENAMES.indexOf(lower.slice(0, dot) as (typeof SIDECAR_BASENAMES)[number])
    const extension = SIDECAR_EXTENSIONS.indexOf(lower.slice(dot) as (typeof SIDECAR_EXTENSIONS)[number])
    if (base < 0 || extension < 0) continue
    const rank = base * SIDECAR_EXTENSIONS.length + extension
    if (best === undefined || rank < best.rank || (rank === best.rank && name < best.name)) best = { name, rank }
  }
  return best?.name
}
