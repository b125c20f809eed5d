import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../http/Authentication.js"
import { SavedPlayQueue, SavePlayQueue } from "./PlayQueue.js"

/**
 * The signed-in user's play queue, the same store as Subsonic `savePlayQueue`/`getPlayQueue`, so a Subsonic app
 * and the web player resume each other's queue and position (docs/decisions.md "Web player: the queue").
 */
export class PlayQueueApi extends HttpApiGroup.make("playQueue")
  .add(
    HttpApiEndpoint.get("get", "/api/me/play-queue")
      .addSuccess(SavedPlayQueue)
      .annotate(OpenApi.Description, "The saved queue with its current entry and position; empty when none."),
  )
  .add(
    HttpApiEndpoint.put("save", "/api/me/play-queue")
      .setPayload(SavePlayQueue)
      .addSuccess(SavedPlayQueue)
      .annotate(
        OpenApi.Description,
        "Replaces the saved queue (an empty track_ids clears it) and answers it as stored: unknown track ids are dropped.",
      ),
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Play queue") {}
