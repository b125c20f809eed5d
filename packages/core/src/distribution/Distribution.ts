import { Schema } from "effect"
import { parseRange } from "../streaming/range.js"

/** File names in the installer directory (contract "Client distribution"). */
export const CLIENT_APK_FILE = "app.apk"
export const CLIENT_VERSION_FILE = "version.json"
export const APK_CONTENT_TYPE = "application/vnd.android.package-archive"
/** One download start per user per 60 seconds (spec "Limits"). */
export const INSTALLER_INTERVAL_SECONDS = 60

/** The sidecar the build writes next to the installer. */
export const ClientVersionSidecar = Schema.Struct({
  version: Schema.String.pipe(Schema.minLength(1)),
  version_code: Schema.Int.pipe(Schema.nonNegative()),
  notes: Schema.optional(Schema.NullOr(Schema.String)),
})
export type ClientVersionSidecar = typeof ClientVersionSidecar.Type

/** GET /api/client/version. */
export class ClientVersion extends Schema.Class<ClientVersion>("ClientVersion")({
  version: Schema.String,
  version_code: Schema.Int,
  size_bytes: Schema.Int,
  sha256: Schema.String,
  notes: Schema.NullOr(Schema.String),
}) {}

/**
 * Whether a download counts toward the 60 s limit (contract): it starts at byte 0 (no Range, a Range from
 * 0, or a suffix covering the whole file). A resume from a later byte never counts; an unsatisfiable
 * range is answered 416 and does not count either.
 */
export const startsAtByteZero = (rangeHeader: string | undefined, size: number): boolean => {
  const range = parseRange(rangeHeader, size)
  return range._tag === "Full" || (range._tag === "Partial" && range.start === 0)
}

/** Whole seconds until a user may start another download, rounded up; 0 when they may now. */
export const installerRetryAfterSeconds = (lastStartMs: number, nowMs: number): number =>
  Math.max(0, Math.ceil((lastStartMs + INSTALLER_INTERVAL_SECONDS * 1000 - nowMs) / 1000))
