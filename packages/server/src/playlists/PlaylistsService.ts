import { SqlClient } from "@effect/sql"
import {
  InvalidRequest,
  isSingletonKind,
  type NewPlaylist,
  NotFound,
  PlaylistDetail,
  PlaylistEntry,
  type PlaylistEntryId,
  type PlaylistId,
  type PlaylistPatch,
  PlaylistRow,
  type SingletonSystemKind,
  type SystemVariant,
  type TrackId,
  type UserId,
} from "@tonearm/core"
import { hasArtistSeed, namedReason } from "@tonearm/recommend"
import { Effect, Option } from "effect"
import { ChangeLog, changesOf } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { EventBus } from "../events/index.js"
import { LibraryService } from "../library/index.js"
import { QuarantineService } from "../moderation/index.js"
import { type EntryRecord, type PlaylistRecord, PlaylistRepository, type SystemSnapshot } from "./PlaylistRepository.js"
import { ensureEditable, ensureEntriesEditable, ensureOwned } from "./PlaylistsPolicy.js"

/** Display names of the singleton system playlists, when one is created before its first build. */
const SYSTEM_NAMES: Record<SingletonSystemKind, string> = { for_you: "For You", discover: "Discover" }

const toRow = (playlist: PlaylistRecord) =>
  new PlaylistRow({
    id: playlist.id,
    name: playlist.name,
    track_count: playlist.track_count,
    duration_ms: playlist.duration_ms,
    system_variant: playlist.system_variant,
    refreshable: playlist.system_variant !== null && isSingletonKind(playlist.system_variant),
    locked: playlist.locked_reason !== null,
    locked_reason: playlist.locked_reason,
    smart: playlist.smart,
    updated_at: playlist.updated_at,
  })

export class PlaylistsService extends Effect.Service<PlaylistsService>()("@tonearm/server/PlaylistsService", {
  effect: Effect.gen(function* () {
    const playlists = yield* PlaylistRepository
    const library = yield* LibraryService
    const quarantine = yield* QuarantineService
    const changes = yield* ChangeLog
    const events = yield* EventBus
    const sql = yield* SqlClient.SqlClient

    /** First in an edit's transaction: the playlist's row lock (edits of one playlist queue); NotFound once gone. */
    const lockForEdit = (id: PlaylistId) =>
      Effect.flatMap(playlists.lockForEdit(id), (found) =>
        found ? Effect.void : Effect.fail(new NotFound({ message: "no such playlist", resource: "playlist" })),
      )

    const load = (id: PlaylistId) =>
      Effect.flatMap(playlists.find(id), (found) =>
        Option.match(found, {
          onNone: () => Effect.fail(new NotFound({ message: "no such playlist", resource: "playlist" })),
          onSome: Effect.succeed,
        }),
      )

    /**
     * The detail with its entries in `ordered` (default: stored order); entries of vanished tracks are left
     * out, and in a system playlist the tracks its owner flagged (quarantine).
     */
    const detailOf = (playlist: PlaylistRecord, ordered?: ReadonlyArray<EntryRecord>) =>
      Effect.gen(function* () {
        const stored = ordered ?? (yield* playlists.entries(playlist.id))
        const entries =
          playlist.system_variant === null
            ? stored
            : yield* quarantine.withoutFlagged(playlist.owner_id, stored, (entry) => entry.track_id)
        const tracks = yield* library.tracksByIds([...new Set(entries.map((entry) => entry.track_id))])
        // Reasons name the seed artist, or the track's own artist (the engine has no names)
        const seeds = new Set(
          entries.flatMap((entry) =>
            entry.reason !== null && hasArtistSeed(entry.reason) ? [entry.reason.seed_id!] : [],
          ),
        )
        const seedNames = new Map(
          (yield* library.artistsByIds([...seeds])).map((artist) => [artist.id as string, artist.name]),
        )
        const byId = new Map(tracks.map((track) => [track.id as string, track]))
        return new PlaylistDetail({
          ...toRow(playlist),
          description: playlist.description,
          tracks: entries.flatMap((entry) => {
            const track = byId.get(entry.track_id)
            return track === undefined
              ? []
              : [
                  new PlaylistEntry({
                    entry_id: entry.entry_id,
                    position: entry.position,
                    pick_kind: entry.pick_kind,
                    reason:
                      entry.reason === null
                        ? null
                        : namedReason(
                            entry.reason,
                            entry.reason.seed_id === undefined
                              ? track.artist_name
                              : seedNames.get(entry.reason.seed_id),
                          ),
                    track,
                  }),
                ]
          }),
        })
      })

    const ensureTracks = (ids: ReadonlyArray<TrackId>) =>
      Effect.flatMap(playlists.missingTracks(ids), (missing) =>
        missing.length === 0
          ? Effect.void
          : Effect.fail(new NotFound({ message: `no such track: ${missing[0]}`, resource: "track" })),
      )

    /** Writes entries, logs the changes and stamps the playlist, in one transaction. */
    const saveEntries = (
      playlist: PlaylistRecord,
      ordered: ReadonlyArray<{ entry_id?: PlaylistEntryId; track_id: TrackId; pick_kind: EntryRecord["pick_kind"] }>,
    ) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const { removed, written } = yield* playlists.writeEntries(playlist.id, ordered, now)
        yield* playlists.touch(playlist.id, now)
        yield* changes.record(
          [
            ...changesOf("playlist", "upsert", [playlist.id], playlist.owner_id),
            ...changesOf("playlist_track", "upsert", written, playlist.owner_id),
            ...changesOf("playlist_track", "delete", removed, playlist.owner_id),
          ],
          now,
        )
      })

    const list = Effect.fn("PlaylistsService.list")(function* (user: UserId) {
      return (yield* playlists.listByOwner(user)).map(toRow)
    })

    const get = Effect.fn("PlaylistsService.get")(function* (user: UserId, id: PlaylistId) {
      return yield* detailOf(yield* Effect.flatMap(load(id), (playlist) => ensureOwned(playlist, user)))
    })

    const create = Effect.fn("PlaylistsService.create")(function* (user: UserId, input: NewPlaylist) {
      const trackIds = input.track_ids ?? []
      yield* ensureTracks(trackIds)
      const id = yield* Effect.gen(function* () {
        const now = yield* currentDate
        const created = (yield* playlists.insert({
          ownerId: user,
          name: input.name,
          description: input.description ?? null,
          systemVariant: null,
          now,
        }))!
        const playlist = yield* load(created)
        yield* saveEntries(
          playlist,
          trackIds.map((track_id) => ({ track_id, pick_kind: null })),
        )
        return created
      }).pipe(sql.withTransaction, orInternal("PlaylistsService.create"))
      yield* events.publish("playlist.created", user, { playlist_id: id })
      return yield* detailOf(yield* load(id))
    })

    const update = Effect.fn("PlaylistsService.update")(function* (user: UserId, id: PlaylistId, patch: PlaylistPatch) {
      const playlist = yield* Effect.flatMap(load(id), (found) => ensureEditable(found, user))
      yield* Effect.gen(function* () {
        yield* lockForEdit(id)
        const now = yield* currentDate
        yield* playlists.update(id, patch, now)
        yield* changes.record(changesOf("playlist", "upsert", [id], user), now)
      }).pipe(sql.withTransaction, orInternal("PlaylistsService.update"))
      yield* events.publish("playlist.updated", user, { playlist_id: id })
      return yield* detailOf(yield* load(playlist.id))
    })

    const remove = Effect.fn("PlaylistsService.remove")(function* (user: UserId, id: PlaylistId) {
      yield* Effect.flatMap(load(id), (found) => ensureEditable(found, user))
      yield* Effect.gen(function* () {
        yield* lockForEdit(id)
        const now = yield* currentDate
        const entries = yield* playlists.remove(id)
        yield* changes.record(
          [...changesOf("playlist", "delete", [id], user), ...changesOf("playlist_track", "delete", entries, user)],
          now,
        )
      }).pipe(sql.withTransaction, orInternal("PlaylistsService.remove"))
      yield* events.publish("playlist.deleted", user, { playlist_id: id })
    })

    /** Edits the entry list of an editable playlist of the caller's and announces it. */
    const editEntries = (
      user: UserId,
      id: PlaylistId,
      edit: (
        entries: ReadonlyArray<EntryRecord>,
      ) => Effect.Effect<
        ReadonlyArray<{ entry_id?: PlaylistEntryId; track_id: TrackId; pick_kind: EntryRecord["pick_kind"] }>,
        InvalidRequest | NotFound
      >,
    ) =>
      Effect.gen(function* () {
        const playlist = yield* Effect.flatMap(load(id), (found) => ensureEntriesEditable(found, user))
        yield* Effect.gen(function* () {
          yield* lockForEdit(id)
          const ordered = yield* edit(yield* playlists.entries(id))
          yield* saveEntries(playlist, ordered)
        }).pipe(sql.withTransaction, orInternal("PlaylistsService.editEntries"))
        yield* events.publish("playlist.tracks_changed", user, { playlist_id: id })
        return yield* detailOf(yield* load(id))
      })

    /** Appends, or inserts before `position` (past the end appends). */
    const addTracks = Effect.fn("PlaylistsService.addTracks")(function* (
      user: UserId,
      id: PlaylistId,
      trackIds: ReadonlyArray<TrackId>,
      position: number | undefined,
    ) {
      yield* ensureTracks(trackIds)
      return yield* editEntries(user, id, (entries) => {
        const at = Math.min(position ?? entries.length, entries.length)
        const added = trackIds.map((track_id) => ({ track_id, pick_kind: null }))
        return Effect.succeed([...entries.slice(0, at), ...added, ...entries.slice(at)])
      })
    })

    const removeEntries = Effect.fn("PlaylistsService.removeEntries")(function* (
      user: UserId,
      id: PlaylistId,
      entryIds: ReadonlyArray<PlaylistEntryId>,
    ) {
      const drop = new Set<string>(entryIds)
      return yield* editEntries(user, id, (entries) => {
        const unknown = entryIds.find((entry) => !entries.some((existing) => existing.entry_id === entry))
        return unknown === undefined
          ? Effect.succeed(entries.filter((entry) => !drop.has(entry.entry_id)))
          : Effect.fail(
              new NotFound({ message: `no such entry in this playlist: ${unknown}`, resource: "playlist_entry" }),
            )
      })
    })

    /** The new order must name every current entry exactly once. */
    const reorder = Effect.fn("PlaylistsService.reorder")(function* (
      user: UserId,
      id: PlaylistId,
      entryIds: ReadonlyArray<PlaylistEntryId>,
    ) {
      return yield* editEntries(user, id, (entries) => {
        const byId = new Map(entries.map((entry) => [entry.entry_id as string, entry]))
        const complete = entryIds.length === entries.length && new Set(entryIds).size === entryIds.length
        if (!complete || entryIds.some((entry) => !byId.has(entry))) {
          return Effect.fail(
            new InvalidRequest({ message: "entry_ids must list every entry of the playlist exactly once" }),
          )
        }
        return Effect.succeed(entryIds.map((entry) => byId.get(entry)!))
      })
    })

    /**
     * The entries of a playlist the server fills (a smart playlist's, issue 28), in the caller's transaction under
     * the playlist's row lock: a track that stays keeps its entry, so a refill that changes nothing logs no entry.
     */
    const replaceEntries = (id: PlaylistId, trackIds: ReadonlyArray<TrackId>) =>
      Effect.gen(function* () {
        yield* lockForEdit(id)
        const playlist = yield* load(id)
        const kept = new Map<string, Array<PlaylistEntryId>>()
        for (const entry of yield* playlists.entries(id))
          kept.set(entry.track_id, [...(kept.get(entry.track_id) ?? []), entry.entry_id])
        yield* saveEntries(
          playlist,
          trackIds.map((track_id) => {
            const entry_id = kept.get(track_id)?.shift()
            return entry_id === undefined ? { track_id, pick_kind: null } : { entry_id, track_id, pick_kind: null }
          }),
        )
      })

    /** The user's singleton system playlist of `kind`, made empty if it was never built. */
    const systemPlaylist = (user: UserId, kind: SingletonSystemKind) =>
      Effect.gen(function* () {
        const existing = yield* playlists.findSystem(user, kind)
        if (Option.isSome(existing)) return existing.value
        yield* playlists.insert({
          ownerId: user,
          name: SYSTEM_NAMES[kind],
          description: null,
          systemVariant: kind,
          now: yield* currentDate,
        })
        return Option.getOrThrow(yield* playlists.findSystem(user, kind))
      })

    /** Replaces the user's system playlists (joins the caller's transaction) and logs them for sync. */
    const replaceSystemPlaylists = (user: UserId, snapshots: ReadonlyArray<SystemSnapshot>) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const written = yield* playlists.replaceSystem(user, snapshots, now)
        yield* changes.record(
          [
            ...changesOf("playlist", "upsert", written.playlists, user),
            ...changesOf("playlist", "delete", written.deletedPlaylists, user),
            ...changesOf("playlist_track", "upsert", written.entries, user),
            ...changesOf("playlist_track", "delete", written.deletedEntries, user),
          ],
          now,
        )
      })

    const rotationState = (user: UserId, kind: SystemVariant) => playlists.rotationState(user, kind)
    const resetRotation = (user: UserId, kind: SystemVariant) =>
      Effect.flatMap(currentDate, (now) => playlists.resetRotation(user, kind, now))

    /**
     * A play whose source is a system kind: the track joins that kind's rotation state, and the play takes
     * the pick kind of the track's row in the user's current snapshot (null when absent). Runs in the
     * caller's transaction.
     */
    const recordSystemPlay = (user: UserId, variant: SystemVariant, trackId: TrackId, now: Date) =>
      Effect.gen(function* () {
        yield* playlists.appendRotation(user, variant, trackId, now)
        return yield* playlists.snapshotPickKind(user, variant, trackId)
      })

    /** The caller's playlists among these ids, as row views (library sync). */
    const rowsByIds = (user: UserId, ids: ReadonlyArray<string>) =>
      Effect.map(playlists.byIds(user, ids), (rows) => rows.map(toRow))

    const entriesByIds = (user: UserId, ids: ReadonlyArray<string>) => playlists.entriesByIds(user, ids)

    return {
      list,
      get,
      create,
      update,
      remove,
      addTracks,
      removeEntries,
      reorder,
      systemPlaylist,
      replaceEntries,
      detail: detailOf,
      replaceSystemPlaylists,
      rotationState,
      resetRotation,
      recordSystemPlay,
      rowsByIds,
      entriesByIds,
    } as const
  }),
  dependencies: [PlaylistRepository.Default],
}) {}
