import { Schema } from "effect"
import { UserId } from "../ids.js"
import { Mbid } from "../recommendations/Discover.js"

export const RequestId = Schema.UUID.pipe(Schema.brand("RequestId"))
export type RequestId = typeof RequestId.Type

/** Request workflow states (contract): pending and approved are open; the rest are terminal. */
export const REQUEST_STATUSES = ["pending", "approved", "available", "cancelled", "rejected"] as const
export const RequestStatus = Schema.Literal(...REQUEST_STATUSES)
export type RequestStatus = typeof RequestStatus.Type
export const OPEN_REQUEST_STATUSES: ReadonlyArray<RequestStatus> = ["pending", "approved"]
export const isOpenRequest = (status: RequestStatus) => OPEN_REQUEST_STATUSES.includes(status)

export const RequestKind = Schema.Literal("artist", "album")
export type RequestKind = typeof RequestKind.Type

/** An acquisition request (contract "Enrichment, requests, quarantine"). */
export class AcquisitionRequest extends Schema.Class<AcquisitionRequest>("AcquisitionRequest")({
  id: RequestId,
  user_id: UserId,
  kind: RequestKind,
  mbid: Schema.String,
  name: Schema.String,
  status: RequestStatus,
  created_at: Schema.DateTimeUtc,
  decided_at: Schema.NullOr(Schema.DateTimeUtc),
  decided_by: Schema.NullOr(UserId),
  manager_add_confirmed_at: Schema.NullOr(Schema.DateTimeUtc),
  reason: Schema.NullOr(Schema.String),
}) {}

export const NewRequest = Schema.Struct({
  kind: RequestKind,
  mbid: Mbid,
  name: Schema.Trim.pipe(Schema.minLength(1, { message: () => "name must not be empty" }), Schema.maxLength(500)),
})
export type NewRequest = typeof NewRequest.Type

export const RejectRequest = Schema.Struct({ reason: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))) })

export const AdminRequestsQuery = Schema.Struct({ status: Schema.optional(RequestStatus) })

/** The music-acquisition manager (Lidarr API v1) settings (contract). */
export class ManagerSettings extends Schema.Class<ManagerSettings>("ManagerSettings")({
  url: Schema.NullOr(Schema.String),
  api_key: Schema.NullOr(Schema.String),
  root_folder_path: Schema.NullOr(Schema.String),
  quality_profile_id: Schema.NullOr(Schema.Int),
  metadata_profile_id: Schema.NullOr(Schema.Int),
  auto_approve: Schema.Boolean,
}) {}

export const ManagerSettingsInput = Schema.Struct({
  url: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
  api_key: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500)))),
  root_folder_path: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
  quality_profile_id: Schema.optional(Schema.NullOr(Schema.Int)),
  metadata_profile_id: Schema.optional(Schema.NullOr(Schema.Int)),
  auto_approve: Schema.optional(Schema.Boolean),
})
export type ManagerSettingsInput = typeof ManagerSettingsInput.Type

const blank = (value: string | null | undefined) => value === null || value === undefined || value.trim() === ""

/**
 * The defaults an add needs (spec "Errors": saving without them is `missing_defaults`): a root folder and
 * both profile ids. Returns the missing field names.
 */
export const missingManagerDefaults = (settings: {
  readonly root_folder_path: string | null
  readonly quality_profile_id: number | null
  readonly metadata_profile_id: number | null
}): ReadonlyArray<string> =>
  [
    blank(settings.root_folder_path) ? "root_folder_path" : undefined,
    settings.quality_profile_id === null ? "quality_profile_id" : undefined,
    settings.metadata_profile_id === null ? "metadata_profile_id" : undefined,
  ].filter((field): field is string => field !== undefined)

/** A profile id the manager knows: the configured one when it still exists, else the manager's first. */
export const resolveProfileId = (configured: number, known: ReadonlyArray<number>): number | undefined =>
  known.includes(configured) ? configured : known[0]
