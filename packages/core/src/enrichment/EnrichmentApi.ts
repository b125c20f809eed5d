import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { envelopeOf, NotFound } from "../errors.js"
import { AdminAuthentication } from "../http/Authentication.js"
import { ConnectionTest, RefetchStarted, ResearchStarted, TagSource, TagSourcePatch, TagSources } from "./Enrichment.js"

const sourceId = HttpApiSchema.param("id", Schema.String)

/** Admin: the tag (and cover) providers, their keys and the global version counter (spec "Administration"). */
export class TagSourcesApi extends HttpApiGroup.make("tagSources")
  .add(HttpApiEndpoint.get("list", "/api/admin/tag-sources").addSuccess(TagSources))
  .add(
    HttpApiEndpoint.post("research", "/api/admin/tag-sources/research")
      .addSuccess(ResearchStarted)
      .annotate(
        OpenApi.Description,
        "Bumps the version and re-opens every settled (and failed) row for re-enrichment.",
      ),
  )
  .add(
    HttpApiEndpoint.patch("update")`/api/admin/tag-sources/${sourceId}`
      .setPayload(TagSourcePatch)
      .addSuccess(TagSource)
      .addError(envelopeOf(NotFound))
      .annotate(
        OpenApi.Description,
        "Changing `enabled` bumps the version; a key-only change does not. 404 for an unknown id.",
      ),
  )
  .add(
    HttpApiEndpoint.post("test")`/api/admin/tag-sources/${sourceId}/test`
      .addSuccess(ConnectionTest)
      .addError(envelopeOf(NotFound))
      .annotate(OpenApi.Description, "A connection test; `ok: false` for a provider that cannot be tested."),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: tag sources") {}

export class CoverRefetchApi extends HttpApiGroup.make("coverRefetch")
  .add(
    HttpApiEndpoint.post("refetchMissing", "/api/admin/covers/refetch-missing")
      .addSuccess(RefetchStarted)
      .annotate(
        OpenApi.Description,
        "Starts an unbounded background drain over albums without a cover; `started` is false when one is already running.",
      ),
  )
  .middleware(AdminAuthentication)
  .annotate(OpenApi.Title, "Admin: covers") {}
