import { Either, Encoding, ParseResult, Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"
import { TrackId, UserId } from "../ids.js"
import { BooleanFromQuery } from "../moderation/Quarantine.js"

// ---------------------------------------------------------------------------------------------------------
// Playback errors
// ---------------------------------------------------------------------------------------------------------

/** Contract "Diagnostics and errors"; the database CHECK (migration 0008) holds the same list. */
export const PLAYBACK_ERROR_KINDS = ["load_failed", "stalled", "zero_duration"] as const
export type PlaybackErrorKind = (typeof PLAYBACK_ERROR_KINDS)[number]
export const PlaybackErrorKind = Schema.Literal(...PLAYBACK_ERROR_KINDS)

export const PLAYBACK_ERROR_RESOLUTIONS = ["fixed", "ignored", "hidden", "deleted", "re_requested"] as const
export const PlaybackErrorResolution = Schema.Literal(...PLAYBACK_ERROR_RESOLUTIONS)
export type PlaybackErrorResolution = typeof PlaybackErrorResolution.Type

export const isPlaybackErrorKind = (kind: string): kind is PlaybackErrorKind =>
  (PLAYBACK_ERROR_KINDS as ReadonlyArray<string>).includes(kind)

export const PlaybackErrorId = Schema.UUID.pipe(Schema.brand("PlaybackErrorId"))
export type PlaybackErrorId = typeof PlaybackErrorId.Type

/** Longest free text kept from a client (client ids, messages, device ids). */
export const CLIENT_TEXT_MAX = 2000

const RequiredText = Schema.String.pipe(
  Schema.filter((text) => text.trim().length > 0, { message: () => "must not be empty" }),
  Schema.maxLength(CLIENT_TEXT_MAX),
)

/**
 * POST /api/playback-errors. `kind` is a string here so an unknown one is the spec's 400 `unknown_kind`,
 * not a schema failure; `client_id` is required (spec).
 */
export const PlaybackErrorReport = Schema.Struct({
  track_id: TrackId,
  kind: Schema.String,
  client_id: RequiredText,
  message: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(CLIENT_TEXT_MAX)))),
})
export type PlaybackErrorReport = typeof PlaybackErrorReport.Type

export class PlaybackErrorReported extends Schema.Class<PlaybackErrorReported>("PlaybackErrorReported")({
  id: PlaybackErrorId,
}) {}

/** An admin's row: joined with the track, album and artist names (spec). */
export class PlaybackError extends Schema.Class<PlaybackError>("PlaybackError")({
  id: PlaybackErrorId,
  /** Null once the track left the library; the names reported with it remain. */
  track_id: Schema.NullOr(TrackId),
  track_title: Schema.String,
  album_title: Schema.String,
  artist_name: Schema.String,
  user_id: UserId,
  username: Schema.String,
  client_id: Schema.String,
  kind: PlaybackErrorKind,
  message: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc,
  resolved_at: Schema.NullOr(Schema.DateTimeUtc),
  resolution: Schema.NullOr(PlaybackErrorResolution),
}) {}

/** GET /api/admin/playback-errors paging: limit defaults to 50 and is clamped to 200 (spec "Limits"). */
export const PLAYBACK_ERROR_PAGE_DEFAULT = 50
export const PLAYBACK_ERROR_PAGE_MAX = 200

export const PlaybackErrorsQuery = Schema.Struct({
  resolved: Schema.optional(BooleanFromQuery),
  offset: Schema.optional(IntFromQuery.pipe(Schema.nonNegative())),
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
})
export type PlaybackErrorsQuery = typeof PlaybackErrorsQuery.Type

/** Newest first. */
export class PlaybackErrorPage extends Schema.Class<PlaybackErrorPage>("PlaybackErrorPage")({
  items: Schema.Array(PlaybackError),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int,
}) {}

export const ResolvePlaybackErrorRequest = Schema.Struct({ resolution: PlaybackErrorResolution })
export type ResolvePlaybackErrorRequest = typeof ResolvePlaybackErrorRequest.Type

// ---------------------------------------------------------------------------------------------------------
// Device diagnostics
// ---------------------------------------------------------------------------------------------------------

/** Contract "Diagnostics and errors"; enforced here and by the database CHECK (migration 0008). */
export const DIAGNOSTIC_KINDS = ["playback", "upnp_sync", "connectivity", "power", "lifecycle"] as const
export type DiagnosticKind = (typeof DIAGNOSTIC_KINDS)[number]
export const DiagnosticKind = Schema.Literal(...DIAGNOSTIC_KINDS)

export const isDiagnosticKind = (kind: string): kind is DiagnosticKind =>
  (DIAGNOSTIC_KINDS as ReadonlyArray<string>).includes(kind)

/** Largest batch one POST /api/diagnostics carries (contract); a bigger one is 413 `payload_too_large`. */
export const DIAGNOSTIC_BATCH_MAX = 500
/** Rows older than this, by the server's clock, are pruned (spec "Limits"). */
export const DIAGNOSTIC_RETENTION_DAYS = 30

/**
 * An instant given as RFC 3339 text or as epoch milliseconds (a number, or digits in a query string).
 * Left: why it is not one.
 */
export const parseInstant = (value: unknown): Either.Either<Date, string> => {
  if (typeof value === "number") {
    return Number.isFinite(value) && Number.isSafeInteger(Math.trunc(value)) && Math.abs(value) <= 8.64e15
      ? Either.right(new Date(Math.trunc(value)))
      : Either.left("is not a valid epoch-millisecond time")
  }
  if (typeof value !== "string") return Either.left("must be RFC 3339 text or epoch milliseconds")
  const text = value.trim()
  if (/^-?\d+$/.test(text)) return parseInstant(Number(text))
  // RFC 3339: a full date, a time and a zone (Z or ±hh:mm).
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text)) {
    return Either.left("must be RFC 3339 text or epoch milliseconds")
  }
  const date = new Date(text)
  return Number.isNaN(date.getTime()) ? Either.left("is not a valid time") : Either.right(date)
}

/** An instant on the wire: RFC 3339 or epoch milliseconds in, a Date out. */
export const InstantInput = Schema.transformOrFail(Schema.Union(Schema.String, Schema.Number), Schema.DateFromSelf, {
  strict: true,
  decode: (value, _, ast) =>
    Either.match(parseInstant(value), {
      onLeft: (message) => Either.left(new ParseResult.Type(ast, value, message)),
      onRight: Either.right,
    }),
  encode: (date) => Either.right(date.toISOString()),
})

/** An instant in a query string: RFC 3339 or epoch milliseconds. */
export const InstantFromQuery = Schema.transformOrFail(Schema.String, Schema.DateFromSelf, {
  strict: true,
  decode: (value, _, ast) =>
    Either.match(parseInstant(value), {
      onLeft: (message) => Either.left(new ParseResult.Type(ast, value, message)),
      onRight: Either.right,
    }),
  encode: (date) => Either.right(date.toISOString()),
})

/** One event of a POST /api/diagnostics batch, once the caller's debug mode is on and every kind is known. */
export const DiagnosticEventInput = Schema.Struct({
  kind: DiagnosticKind,
  device_id: RequiredText,
  /** Absent: the moment the server received it. */
  occurred_at: Schema.optional(InstantInput),
  data: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
})
export type DiagnosticEventInput = typeof DiagnosticEventInput.Type

/** What POST /api/diagnostics documents; the server reads it only when the caller's debug mode is on. */
export const DiagnosticBatch = Schema.Struct({ events: Schema.Array(DiagnosticEventInput) })
export type DiagnosticBatch = typeof DiagnosticBatch.Type

/** The kinds of a raw batch that are not on the whitelist (an unknown one rejects the whole batch). */
export const unknownDiagnosticKinds = (body: unknown): ReadonlyArray<string> => {
  const events = (body as { events?: unknown } | null)?.events
  if (!Array.isArray(events)) return []
  const unknown = new Set<string>()
  for (const event of events) {
    const kind = (event as { kind?: unknown } | null)?.kind
    if (typeof kind === "string" && !isDiagnosticKind(kind)) unknown.add(kind)
  }
  return [...unknown]
}

export class DiagnosticsAccepted extends Schema.Class<DiagnosticsAccepted>("DiagnosticsAccepted")({
  accepted: Schema.Int,
}) {}

export const DiagnosticEventId = Schema.UUID.pipe(Schema.brand("DiagnosticEventId"))
export type DiagnosticEventId = typeof DiagnosticEventId.Type

/** A stored event on the admin timeline. */
export class DiagnosticEvent extends Schema.Class<DiagnosticEvent>("DiagnosticEvent")({
  id: DiagnosticEventId,
  user_id: UserId,
  username: Schema.String,
  device_id: Schema.String,
  kind: DiagnosticKind,
  occurred_at: Schema.DateTimeUtc,
  received_at: Schema.DateTimeUtc,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
}) {}

/** GET /api/admin/diagnostics paging, sized for export: limit defaults to 500 and is clamped to 5000. */
export const DIAGNOSTIC_PAGE_DEFAULT = 500
export const DIAGNOSTIC_PAGE_MAX = 5000

/** `kind` is a string so an unknown one is 400 `unknown_kind`; `from`/`to` are RFC 3339 or epoch ms. */
export const DiagnosticsQuery = Schema.Struct({
  user_id: Schema.optional(UserId),
  device_id: Schema.optional(Schema.String),
  kind: Schema.optional(Schema.String),
  from: Schema.optional(InstantFromQuery),
  to: Schema.optional(InstantFromQuery),
  cursor: Schema.optional(Schema.String),
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
})
export type DiagnosticsQuery = typeof DiagnosticsQuery.Type

/** Oldest first (a timeline reads forward); `cursor` is null on the last page. */
export class DiagnosticPage extends Schema.Class<DiagnosticPage>("DiagnosticPage")({
  items: Schema.Array(DiagnosticEvent),
  cursor: Schema.NullOr(Schema.String),
}) {}

/** GET /api/admin/diagnostics/devices: one row per account and device, the most recently heard first. */
export class DiagnosticDevice extends Schema.Class<DiagnosticDevice>("DiagnosticDevice")({
  device_id: Schema.String,
  user_id: UserId,
  username: Schema.String,
  debug_mode_enabled: Schema.Boolean,
  events: Schema.Int,
  first_seen_at: Schema.DateTimeUtc,
  last_seen_at: Schema.DateTimeUtc,
  last_kind: DiagnosticKind,
  kinds: Schema.Record({ key: Schema.String, value: Schema.Int }),
}) {}

/**
 * The timeline's keyset cursor: the last row's `occurred_at` in whole microseconds since the epoch (what
 * PostgreSQL keeps; a millisecond Date would repeat rows) and its id, opaque to clients.
 */
export const encodeDiagnosticCursor = (occurredUs: string, id: string): string =>
  Encoding.encodeBase64Url(`v2|${occurredUs}|${id}`)

/** Undefined for an absent cursor; Left for one this server did not hand out. */
export const decodeDiagnosticCursor = (
  cursor: string | undefined,
): Either.Either<{ readonly occurredUs: string; readonly id: string } | undefined, string> => {
  if (cursor === undefined || cursor === "") return Either.right(undefined)
  const text = Either.getOrUndefined(Encoding.decodeBase64UrlString(cursor))
  const [version, us, id] = text?.split("|") ?? []
  return version !== "v2" ||
    us === undefined ||
    !/^-?\d{1,19}$/.test(us) ||
    id === undefined ||
    !/^[0-9a-f-]{36}$/i.test(id)
    ? Either.left("cursor is not one this server handed out")
    : Either.right({ occurredUs: us, id })
}
