import type { SessionUser } from "@tonearm/core"
import { Effect } from "effect"
import { LibraryAccess } from "../library/index.js"
import { PlayQueueService } from "../playqueue/index.js"
import type { SubsonicMethod, SubsonicServices } from "./method.js"
import { methodTable, SUBSONIC_METHODS } from "./methods/index.js"
import type { SubsonicParams } from "./params.js"

/**
 * The Subsonic methods (registered by area under `methods/`), over the services the JSON API uses. No rule lives
 * here, only the protocol's shapes; the HTTP layer (`SubsonicHttp`) reads the request, signs in and renders.
 */
export class SubsonicService extends Effect.Service<SubsonicService>()("@tonearm/server/SubsonicService", {
  effect: Effect.gen(function* () {
    const table = methodTable(SUBSONIC_METHODS)
    const services = yield* Effect.context<SubsonicServices>()
    return {
      /** The method of that name, or undefined (Subsonic's "Unknown method", 404). */
      method: (name: string): SubsonicMethod | undefined => table.get(name),
      run: (method: SubsonicMethod, user: SessionUser | undefined, params: SubsonicParams) =>
        // Its catalogue reads see the libraries this user hears (contract "Multiple libraries").
        method.run(user, params).pipe(Effect.provide(services), LibraryAccess.asCaller(user)),
    } as const
  }),
  dependencies: [PlayQueueService.Default],
}) {}
