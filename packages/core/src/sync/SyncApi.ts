import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../http/Authentication.js"
import { SyncPage, SyncQuery } from "./Sync.js"

/** Keeping clients' offline copies in step (spec "Library sync"). */
export class SyncApi extends HttpApiGroup.make("sync")
  .add(
    HttpApiEndpoint.get("changes", "/api/library/sync")
      .setUrlParams(SyncQuery)
      .addSuccess(SyncPage)
      .annotate(
        OpenApi.Description,
        "Changes after `cursor` (absent: everything): upserts in their current state and deletes, each entity once. Call again with the returned cursor while `has_more`.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Library sync") {}
