import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { envelopeOf, NotFound } from "../errors.js"
import { AdminAuthentication } from "../http/Authentication.js"

/** One admin-requested rebuild run (a user, or everyone). */
export const RebuildRunId = Schema.UUID.pipe(Schema.brand("RebuildRunId"))
export type RebuildRunId = typeof RebuildRunId.Type

/** `{username}` rebuilds one user, `{all: true}` every user: exactly one of the two. */
export const RebuildRequest = Schema.Struct({
  username: Schema.optional(Schema.Trim.pipe(Schema.nonEmptyString())),
  all: Schema.optional(Schema.Boolean),
}).pipe(
  Schema.filter(
    (request) =>
      (request.username !== undefined) !== (request.all === true) || {
        path: ["username"],
        message: "give exactly one of username or all: true",
      },
  ),
)
export type RebuildRequest = typeof RebuildRequest.Type

export class RebuildStarted extends Schema.Class<RebuildStarted>("RebuildStarted")({
  id: RebuildRunId,
  total: Schema.NonNegativeInt,
}) {}

export const RebuildRunState = Schema.Literal("running", "done", "failed")
export type RebuildRunState = typeof RebuildRunState.Type

/** Progress of a run: `failed` counts users whose rebuild failed; the run is `failed` when any did. */
export class RebuildRun extends Schema.Class<RebuildRun>("RebuildRun")({
  id: RebuildRunId,
  state: RebuildRunState,
  total: Schema.NonNegativeInt,
  done: Schema.NonNegativeInt,
  failed: Schema.NonNegativeInt,
  started_at: Schema.DateTimeUtc,
  finished_at: Schema.NullOr(Schema.DateTimeUtc),
}) {}

const runId = HttpApiSchema.param("id", RebuildRunId)

/** Rebuilding system playlists on demand, outside the 03:00 schedule (admins only). */
export class RebuildsApi extends HttpApiGroup.make("rebuilds")
  .add(
    HttpApiEndpoint.post("start", "/api/admin/recommendation-rebuilds")
      .setPayload(RebuildRequest)
      .addSuccess(RebuildStarted, { status: 202 })
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Starts the daily rebuild now, in the background, for one user (`username`) or every user (`all: true`); exactly one of the two. Unknown username: 404.",
      ),
  )
  .add(
    HttpApiEndpoint.get("status")`/api/admin/recommendation-rebuilds/${runId}`
      .addSuccess(RebuildRun)
      .addError(envelopeOf(NotFound))
      .annotate(OpenApi.Description, "Progress of a run this server started; unknown id: 404."),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: recommendation rebuilds") {}
