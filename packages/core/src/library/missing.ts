import { Schema } from "effect"
import { IntFromQuery } from "../http/queryNumbers.js"
import { TrackId } from "../ids.js"
import { Track } from "./Library.js"

/** Paging of GET /api/admin/library/missing: limit defaults to 50 and is clamped to 500 (caps are clamps). */
export const MISSING_PAGE_DEFAULT = 50
export const MISSING_PAGE_MAX = 500

export const MissingTracksQuery = Schema.Struct({
  offset: Schema.optional(IntFromQuery.pipe(Schema.nonNegative())),
  limit: Schema.optional(IntFromQuery.pipe(Schema.positive())),
})
export type MissingTracksQuery = typeof MissingTracksQuery.Type

/** A track whose file vanished: hidden everywhere, kept with its id, likes, playlist entries and plays. */
export class MissingTrack extends Schema.Class<MissingTrack>("MissingTrack")({
  ...Track.fields,
  /** When a scan first found its file gone. */
  missing_since: Schema.DateTimeUtc,
}) {}

/** GET /api/admin/library/missing: the longest missing first. */
export class MissingTrackPage extends Schema.Class<MissingTrackPage>("MissingTrackPage")({
  items: Schema.Array(MissingTrack),
  total: Schema.Int,
  offset: Schema.Int,
  limit: Schema.Int,
}) {}

/** POST /api/admin/library/missing/purge: the given missing tracks, or (absent) every missing track. */
export const PurgeMissingRequest = Schema.Struct({ track_ids: Schema.optional(Schema.Array(TrackId)) })
export type PurgeMissingRequest = typeof PurgeMissingRequest.Type

export class PurgeMissingResult extends Schema.Class<PurgeMissingResult>("PurgeMissingResult")({
  purged: Schema.Int,
}) {}
