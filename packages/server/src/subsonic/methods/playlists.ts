import {
  missingParameter,
  type PlaylistDetail,
  PlaylistId,
  type PlaylistRow,
  type SessionUser,
  SubsonicErrorCode,
  SubsonicFailure,
  type SubsonicPayload,
  TrackId,
} from "@tonearm/core"
import { DateTime, Effect } from "effect"
import { PlaylistsService } from "../../playlists/index.js"
import { isUuid, songs } from "../answers.js"
import { notAuthorized, notFound, smartPlaylistRefusal, systemPlaylistRefusal } from "../failures.js"
import { method, param, type SubsonicMethod } from "../method.js"

// The playlist service's failures answer through the shared mapping: an unknown song 70 "Song not found", another
// user's or an unknown playlist 70 "Playlist not found", a system playlist's edit 50 (its Conflict's reason).

const playlistOf = (user: SessionUser, row: PlaylistRow | PlaylistDetail) => ({
  id: row.id,
  name: row.name,
  ...("description" in row && row.description !== null ? { comment: row.description } : {}),
  owner: user.username,
  public: false,
  songCount: row.track_count,
  duration: Math.round(row.duration_ms / 1000),
  created: DateTime.formatIso(row.updated_at),
  changed: DateTime.formatIso(row.updated_at),
  coverArt: `pl-${row.id}`,
  // System playlists are rebuilt by the server, smart ones filled from their rules: apps must not offer to edit them.
  readonly: row.system_variant !== null || row.smart,
})

/** Another user's playlist does not exist for the caller (70), exactly as in the JSON API. */
const playlistDetail = (user: SessionUser, id: string) =>
  Effect.gen(function* () {
    if (!isUuid(id)) return yield* notFound("playlist")
    return yield* (yield* PlaylistsService).get(user.id, PlaylistId.make(id))
  })

const playlistPayload = (user: SessionUser, detail: PlaylistDetail) =>
  Effect.map(
    songs(
      user,
      detail.tracks.map((entry) => entry.track),
    ),
    (entry) => ({ playlist: { ...playlistOf(user, detail), entry } }),
  )

/** Playlists: the caller's own (system playlists read-only), listed, read, created, edited, deleted. */
export const playlistMethods: ReadonlyArray<SubsonicMethod> = [
  method("getPlaylists", { username: param.optional }, (user, { username }) =>
    Effect.gen(function* () {
      if (username !== undefined && username !== user.username) {
        return yield* notAuthorized("Only your own playlists are listed")
      }
      const rows = yield* (yield* PlaylistsService).list(user.id)
      // A withheld mix (locked) has no songs to offer a Subsonic app.
      const listed = rows.filter((row) => !row.locked)
      return { playlists: { playlist: listed.map((row) => playlistOf(user, row)) } } satisfies SubsonicPayload
    }),
  ),

  method("getPlaylist", { id: param.required }, (user, { id }) =>
    Effect.flatMap(playlistDetail(user, id), (detail) => playlistPayload(user, detail)),
  ),

  /** With `name` it makes a playlist; with `playlistId` it replaces that playlist's songs (the protocol's update). */
  method(
    "createPlaylist",
    { playlistId: param.optional, songId: param.ids("track"), name: param.optional },
    (user, { playlistId, songId, name }) =>
      Effect.gen(function* () {
        const playlists = yield* PlaylistsService
        const trackIds = songId.map((id) => TrackId.make(id))
        if (playlistId === undefined) {
          if (name === undefined) return yield* Effect.fail(missingParameter("name"))
          const created = yield* playlists.create(user.id, { name, track_ids: trackIds })
          return yield* playlistPayload(user, created)
        }
        const existing = yield* playlistDetail(user, playlistId)
        if (existing.smart) return yield* smartPlaylistRefusal()
        if (name !== undefined && name.trim() !== "") yield* playlists.update(user.id, existing.id, { name })
        if (existing.tracks.length > 0) {
          yield* playlists.removeEntries(
            user.id,
            existing.id,
            existing.tracks.map((entry) => entry.entry_id),
          )
        } else if (existing.system_variant !== null) {
          return yield* systemPlaylistRefusal()
        }
        if (trackIds.length > 0) yield* playlists.addTracks(user.id, existing.id, trackIds, undefined)
        return yield* playlistPayload(user, yield* playlistDetail(user, existing.id))
      }),
  ),

  method(
    "updatePlaylist",
    {
      playlistId: param.required,
      name: param.optional,
      // `comment=` (empty) clears the comment.
      comment: param.given,
      songIndexToRemove: param.all,
      songIdToAdd: param.all,
    },
    (user, { playlistId, name, comment, songIndexToRemove, songIdToAdd }) =>
      Effect.gen(function* () {
        const playlists = yield* PlaylistsService
        const existing = yield* playlistDetail(user, playlistId)
        if (existing.system_variant !== null) return yield* systemPlaylistRefusal()
        if (existing.smart) return yield* smartPlaylistRefusal()
        if ((name !== undefined && name.trim() !== "") || comment !== undefined) {
          yield* playlists.update(user.id, existing.id, {
            ...(name !== undefined && name.trim() !== "" ? { name } : {}),
            ...(comment !== undefined ? { description: comment === "" ? null : comment } : {}),
          })
        }
        const removeAt = new Set<number>()
        for (const raw of songIndexToRemove) {
          const index = Number(raw)
          if (!Number.isSafeInteger(index) || index < 0 || index >= existing.tracks.length) {
            return yield* new SubsonicFailure({
              code: SubsonicErrorCode.generic,
              message: `songIndexToRemove ${raw} is not a position in the playlist`,
            })
          }
          removeAt.add(index)
        }
        if (removeAt.size > 0) {
          const entryIds = existing.tracks.filter((_, index) => removeAt.has(index)).map((entry) => entry.entry_id)
          yield* playlists.removeEntries(user.id, existing.id, entryIds)
        }
        const add: Array<TrackId> = []
        for (const raw of songIdToAdd) {
          if (!isUuid(raw)) return yield* notFound("track")
          add.push(TrackId.make(raw))
        }
        if (add.length > 0) yield* playlists.addTracks(user.id, existing.id, add, undefined)
        return {} satisfies SubsonicPayload
      }),
  ),

  method("deletePlaylist", { id: param.required }, (user, { id }) =>
    Effect.gen(function* () {
      const existing = yield* playlistDetail(user, id)
      yield* (yield* PlaylistsService).remove(user.id, existing.id)
      return {} satisfies SubsonicPayload
    }),
  ),
]
