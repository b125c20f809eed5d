import { Conflict, NotFound, type UserId } from "@tonearm/core"
import { Effect } from "effect"
import type { PlaylistRecord } from "./PlaylistRepository.js"

/** Another user's playlist does not exist for the caller (404), whatever it is. */
export const ensureOwned = (playlist: PlaylistRecord, user: UserId) =>
  playlist.owner_id === user
    ? Effect.succeed(playlist)
    : Effect.fail(new NotFound({ message: "no such playlist", resource: "playlist" }))

/** System playlists are rebuilt by the server and cannot be edited by these routes (contract: 409). */
export const ensureEditable = (playlist: PlaylistRecord, user: UserId) =>
  Effect.flatMap(ensureOwned(playlist, user), (owned) =>
    owned.system_variant === null
      ? Effect.succeed(owned)
      : Effect.fail(
          new Conflict({
            message: "system playlists are rebuilt by the server and cannot be edited",
            reason: "system_playlist",
          }),
        ),
  )

/** A smart playlist's entries are filled from its rules (issue 28): the entry routes refuse them (409). */
export const ensureEntriesEditable = (playlist: PlaylistRecord, user: UserId) =>
  Effect.flatMap(ensureEditable(playlist, user), (editable) =>
    editable.smart
      ? Effect.fail(
          new Conflict({
            message: "a smart playlist is filled from its rules: change the rules instead of the tracks",
            reason: "smart_playlist",
          }),
        )
      : Effect.succeed(editable),
  )
