import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"

/** An import job's id. */
export const ImportId = Schema.UUID.pipe(Schema.brand("ImportId"))
export type ImportId = typeof ImportId.Type

/** Where imported listens come from (contract "Listening history in and out"). */
export const ImportSource = Schema.Literal("listenbrainz_export", "lastfm_api", "spotify_extended", "navidrome_db")
export type ImportSource = typeof ImportSource.Type

/** The sources a listener uploads a file for at `POST /api/me/imports` (Navidrome is the admin's). */
export const FileImportSource = Schema.Literal("listenbrainz_export", "spotify_extended")
export type FileImportSource = typeof FileImportSource.Type

export const ImportState = Schema.Literal("queued", "running", "done", "failed")
export type ImportState = typeof ImportState.Type

/** The `source` an imported play carries: `import:<source>`. */
export const importPlaySource = (source: ImportSource): string => `import:${source}`
/** The `client_id` every imported play carries. */
export const IMPORT_CLIENT_ID = "import"
/** True for a play's source written by an import (`import:…`). */
export const isImportPlaySource = (source: string | null | undefined): boolean => source?.startsWith("import:") === true

/** `GET /api/me/imports/{id}` (and each row of `GET /api/me/imports`). */
export class ImportStatus extends Schema.Class<ImportStatus>("ImportStatus")({
  id: ImportId,
  source: ImportSource,
  state: ImportState,
  /** Listens read so far (every entry of the file, matched or not). */
  total: Schema.Int,
  matched: Schema.Int,
  unmatched: Schema.Int,
  /** Matched listens the user already had as a play (same track, same second): not added again. */
  duplicates: Schema.Int,
  started_at: Schema.NullOr(Schema.DateTimeUtc),
  finished_at: Schema.NullOr(Schema.DateTimeUtc),
  /** Why it failed, or a short note on how it ended. */
  message: Schema.NullOr(Schema.String),
}) {}

/** 202 answer of both import routes. */
export class ImportCreated extends Schema.Class<ImportCreated>("ImportCreated")({
  id: ImportId,
}) {}

/** `GET /api/me/imports`: the caller's imports, newest first. */
export class ImportList extends Schema.Class<ImportList>("ImportList")({
  items: Schema.Array(ImportStatus),
  cursor: Schema.NullOr(Schema.String),
}) {}

/** Why an entry was not imported. `no_match`: no library track; `incomplete`: no artist or title. */
export const UnmatchedReason = Schema.Literal("no_match", "incomplete")
export type UnmatchedReason = typeof UnmatchedReason.Type

/** One entry that matched no track, in file order. */
export class UnmatchedListen extends Schema.Class<UnmatchedListen>("UnmatchedListen")({
  position: Schema.Int,
  artist: Schema.String,
  title: Schema.String,
  album: Schema.NullOr(Schema.String),
  listened_at: Schema.DateTimeUtc,
  reason: UnmatchedReason,
}) {}

/** `GET /api/me/imports/{id}/unmatched`: paged in file order. */
export class UnmatchedPage extends Schema.Class<UnmatchedPage>("UnmatchedPage")({
  items: Schema.Array(UnmatchedListen),
  cursor: Schema.NullOr(Schema.String),
}) {}

export const IMPORTS_PAGE_DEFAULT = 50
export const IMPORTS_PAGE_MAX = 500

/** `?limit=&cursor=` like the other paged routes (a limit above the maximum is served at the maximum). */
export const ImportsPageQuery = Schema.Struct({
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
  cursor: Schema.optional(Schema.String),
})

/** `?source=` on the multipart upload (the form's own `source` field wins). */
export const ImportUploadQuery = Schema.Struct({
  source: Schema.optional(ImportSource),
})

/** The Last.fm pull: no file, the account name to read scrobbles from. */
export const LastfmImportRequest = Schema.Struct({
  source: Schema.Literal("lastfm_api"),
  username: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
})
export type LastfmImportRequest = typeof LastfmImportRequest.Type

/** The multipart form: field `file` (the export) and `source` (or `?source=`). */
export const ImportUploadForm = Schema.Struct({
  file: Schema.Unknown,
  source: Schema.optional(ImportSource),
})

/** One listen of an export, the same for every source once parsed. */
export interface Listen {
  readonly artist: string
  readonly title: string
  readonly album: string | null
  readonly recording_mbid: string | null
  /** When the listen started, epoch milliseconds. */
  readonly started_at_ms: number
  /** How long it played, when the export says; else the track length is used. */
  readonly ms_played: number | null
  /** The Tonearm track it was, when the export is Tonearm's own (read back exactly, not matched). */
  readonly tonearm_track_id?: string | null
}

/** `import.progress` event data (throttled per import, plus the final state). */
export const ImportProgressData = Schema.Struct({
  import_id: Schema.String,
  state: ImportState,
  total: Schema.Int,
  matched: Schema.Int,
  unmatched: Schema.Int,
  duplicates: Schema.Int,
})
