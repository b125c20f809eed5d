import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { SyncService } from "./SyncService.js"

export const SyncHttpLive = HttpApiBuilder.group(TonearmApi, "sync", (handlers) =>
  Effect.map(SyncService, (sync) =>
    handlers.handle("changes", ({ urlParams }) =>
      Effect.flatMap(CurrentSession, ({ user }) => sync.page(user.id, urlParams)),
    ),
  ),
)
