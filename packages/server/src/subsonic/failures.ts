import {
  Conflict,
  Forbidden,
  InvalidRequest,
  NotFound,
  type NotFoundResource,
  SubsonicErrorCode,
  SubsonicFailure,
} from "@tonearm/core"
import { Effect } from "effect"
import { SubsonicThrottled } from "./SubsonicCredentialsService.js"

/** The word a Subsonic app shows for each thing a NotFound names: error 70 "Song not found". */
export const NOT_FOUND_WORDS: Readonly<Record<NotFoundResource, string>> = {
  track: "Song",
  album: "Album",
  artist: "Artist",
  genre: "Genre",
  playlist: "Playlist",
  // An entry the caller saw in the playlist a moment ago: the playlist as they knew it is gone.
  playlist_entry: "Playlist",
  image: "Cover art",
  lyrics: "Lyrics",
  play: "Play",
  user: "User",
  session: "Session",
  api_key: "API key",
  request: "Request",
  quarantine_entry: "Quarantine entry",
  playback_error: "Playback error",
  rebuild_run: "Rebuild run",
  renderer: "Renderer",
  tag_source: "Tag source",
  installer: "Installer",
  import: "Import",
  scrobbler: "Scrobbler",
  library: "Music folder",
  unknown: "Item",
}

/** Error 70 under a method's own word ("Directory not found", "Item not found"). */
export const notFoundAs = (what: string) =>
  new SubsonicFailure({ code: SubsonicErrorCode.notFound, message: `${what} not found` })

/** Error 70 for a resource: "Song not found", "Playlist not found", … */
export const notFound = (resource: NotFoundResource) => notFoundAs(NOT_FOUND_WORDS[resource])

export const notAuthorized = (message: string) =>
  new SubsonicFailure({ code: SubsonicErrorCode.notAuthorized, message })

/** Where a method names what is missing in its own words: any NotFound of `effect` answers 70 with `what`. */
export const notFoundCalled =
  (what: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, NotFound> | SubsonicFailure, R> =>
    Effect.catchIf(
      effect,
      (error): error is Extract<E, NotFound> => error instanceof NotFound,
      () => Effect.fail(notFoundAs(what)),
    ) as Effect.Effect<A, Exclude<E, NotFound> | SubsonicFailure, R>

/** What a failed method answers: a Subsonic error, with an HTTP status and headers when not 200. */
export interface SubsonicAnswer {
  readonly code: SubsonicErrorCode
  readonly message: string
  readonly httpStatus?: number
  readonly headers?: Readonly<Record<string, string>>
}

const SYSTEM_PLAYLIST = "System playlists are rebuilt by the server and cannot be edited"

/**
 * A method's failure as Subsonic tells it, chosen by the error's type (and a NotFound's resource, a Conflict's
 * reason), never by its text. `undefined`: not an answerable failure (a bug or a storage error), logged and
 * answered "Internal error" by the caller.
 */
export const subsonicAnswerOf = (error: unknown): SubsonicAnswer | undefined => {
  if (error instanceof SubsonicFailure) return { code: error.code, message: error.message }
  if (error instanceof SubsonicThrottled) {
    return {
      code: SubsonicErrorCode.wrongCredentials,
      message: "Too many failed sign-ins; try again later",
      httpStatus: 429,
      headers: { "retry-after": String(error.retryAfterSeconds) },
    }
  }
  if (error instanceof NotFound) return notFound(error.resource)
  if (error instanceof Conflict) {
    return error.reason === "system_playlist"
      ? { code: SubsonicErrorCode.notAuthorized, message: SYSTEM_PLAYLIST }
      : error.reason === "smart_playlist"
        ? { code: SubsonicErrorCode.notAuthorized, message: error.message }
        : { code: SubsonicErrorCode.generic, message: error.message }
  }
  if (error instanceof Forbidden) return { code: SubsonicErrorCode.notAuthorized, message: error.message }
  if (error instanceof InvalidRequest) return { code: SubsonicErrorCode.generic, message: error.message }
  return undefined
}

/** The answer to a system playlist's edit (also refused before a service is asked). */
export const systemPlaylistRefusal = () => notAuthorized(SYSTEM_PLAYLIST)
/** A smart playlist (issue 28) is filled from its rules, which Subsonic apps cannot see or change. */
export const smartPlaylistRefusal = () =>
  notAuthorized("Smart playlists are filled from their rules and cannot be edited by apps")
