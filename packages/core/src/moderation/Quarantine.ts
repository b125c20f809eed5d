import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"
import { TrackId, UserId } from "../ids.js"

/** A quarantine entry's id: one user's flag on one track. */
export const QuarantineId = Schema.UUID.pipe(Schema.brand("QuarantineId"))
export type QuarantineId = typeof QuarantineId.Type

/** The admin's verdicts (contract "Enrichment, requests, quarantine"). */
export const QUARANTINE_ACTIONS = ["keep", "delete_file", "delete_via_manager"] as const
export const QuarantineAction = Schema.Literal(...QUARANTINE_ACTIONS)
export type QuarantineAction = typeof QuarantineAction.Type

/** Longest reason kept; a longer one is refused (400 `invalid_request`). */
export const QUARANTINE_REASON_MAX = 1000

/** POST /api/tracks/{id}/quarantine. An absent body or reason is an empty reason. */
export const FlagRequest = Schema.Struct({
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(QUARANTINE_REASON_MAX))),
})
export type FlagRequest = typeof FlagRequest.Type

/** One user's flag on one track, as the admin list (and the flag answer) shows it. */
export class QuarantineEntry extends Schema.Class<QuarantineEntry>("QuarantineEntry")({
  id: QuarantineId,
  /** Null once the track left the library (delete_file, delete_via_manager). */
  track_id: Schema.NullOr(TrackId),
  track_title: Schema.String,
  album_title: Schema.String,
  artist_name: Schema.String,
  user_id: UserId,
  username: Schema.String,
  reason: Schema.String,
  created_at: Schema.DateTimeUtc,
  resolved_at: Schema.NullOr(Schema.DateTimeUtc),
  action: Schema.NullOr(QuarantineAction),
}) {}

/** Paging of GET /api/admin/quarantine: limit defaults to 50 and is clamped to 200. */
export const QUARANTINE_PAGE_DEFAULT = 50
export const QUARANTINE_PAGE_MAX = 200

const BooleanFromQuery = Schema.transform(Schema.Literal("true", "false", "1", "0"), Schema.Boolean, {
  strict: true,
  decode: (text) => text === "true" || text === "1",
  encode: (flag) => (flag ? "true" : "false"),
})

export { BooleanFromQuery }

export const QuarantineQuery = Schema.Struct({
  /** Absent: every entry; false: the open ones; true: the resolved ones. */
  resolved: Schema.optional(BooleanFromQuery),
  offset: Schema.optional(IntFromQuery.pipe(Schema.nonNegative())),
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
})
export type QuarantineQuery = typeof QuarantineQuery.Type

/** GET /api/admin/quarantine: newest first. */
export class QuarantinePage extends Schema.Class<QuarantinePage>("QuarantinePage")({
  items: Schema.Array(QuarantineEntry),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int,
}) {}

/** POST /api/admin/quarantine/{id}/resolve. */
export const ResolveQuarantineRequest = Schema.Struct({ action: QuarantineAction })
export type ResolveQuarantineRequest = typeof ResolveQuarantineRequest.Type

/** The resolve answer: the track and how many open flags on it the verdict closed. */
export class QuarantineResolved extends Schema.Class<QuarantineResolved>("QuarantineResolved")({
  id: QuarantineId,
  track_id: TrackId,
  action: QuarantineAction,
  resolved: Schema.Int,
}) {}
