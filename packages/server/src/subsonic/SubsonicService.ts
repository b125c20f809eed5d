import type { SessionUser } from "@tonearm/core"
import { Effect } from "effect"
import { LibraryAccess } from "../library/index.js"
import { PlayQueueService } from "../playqueue/index.js"
import type { SubsonicMethod, SubsonicServices } from "./method.js"
import { methodTable, SUBSONIC_METHODS } from "./methods/index.js"
import type { SubsonicParams } from "./params.js"

/** A method's `musicFolderId`: a library id, or undefined when absent or not a positive integer. */
const musicFolderOf = (params: SubsonicParams): number | undefined => {
  const raw = params.get("musicFolderId")
  if (raw === undefined || !/^\d{1,9}$/.test(raw)) return undefined
  const id = Number(raw)
  return id > 0 ? id : undefined
}

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
        // `musicFolderId` (any method) narrows them to one library; a value that is no library id answers nothing.
        method
          .run(user, params)
          .pipe(Effect.provide(services), LibraryAccess.within(musicFolderOf(params)), LibraryAccess.asCaller(user)),
    } as const
  }),
  dependencies: [PlayQueueService.Default],
}) {}
