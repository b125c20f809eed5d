import { NotFound, type SystemVariant, type TuningSampleQuery } from "@tonearm/core"
import { Effect, Option } from "effect"
import type { AccountsService } from "../accounts/index.js"
import type { PlaylistsService } from "../playlists/index.js"

/**
 * The tuning page's sample list (issue 28 item 3): one user's system playlist, For You unless the query names
 * another, as its detail (entries with their reasons and score parts). An unknown user, or a playlist the user
 * does not have, is 404.
 */
export const tuningSample = (accounts: AccountsService, playlists: PlaylistsService, query: TuningSampleQuery) =>
  Effect.gen(function* () {
    const found = yield* accounts.userByName(query.username)
    if (Option.isNone(found))
      return yield* new NotFound({ message: `no user named ${query.username}`, resource: "user" })
    const user = found.value
    const variant: SystemVariant = query.variant ?? "for_you"
    const row = (yield* playlists.list(user.id)).find((candidate) => candidate.system_variant === variant)
    if (row === undefined)
      return yield* new NotFound({ message: `${query.username} has no ${variant} playlist`, resource: "playlist" })
    return yield* playlists.get(user.id, row.id)
  })
