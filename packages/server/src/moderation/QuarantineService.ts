import { SqlClient } from "@effect/sql"
import {
  Conflict,
  clampLimit,
  type FlagRequest,
  NotFound,
  QUARANTINE_PAGE_DEFAULT,
  QUARANTINE_PAGE_MAX,
  type QuarantineAction,
  QuarantineEntry,
  type QuarantineId,
  QuarantinePage,
  type QuarantineQuery,
  QuarantineResolved,
  ServiceUnavailable,
  type TrackId,
  type UserId,
} from "@tonearm/core"
import { Effect, Option } from "effect"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { EventBus } from "../events/index.js"
import { LibraryRoots, TrackRemoval } from "../library/index.js"
import { AcquisitionManager } from "./AcquisitionManager.js"
import { QuarantineRepository } from "./QuarantineRepository.js"

const noSuchTrack = new NotFound({ message: "no such track", resource: "track" })

/**
 * Quarantine (spec "What the service does" 8; contract "Enrichment, requests, quarantine"): a listener
 * flags a track and it leaves their shuffle, top tracks, radio and system playlists (`flaggedTrackIds` is
 * the filter those surfaces apply); an admin resolves it for everyone with one verdict.
 */
export class QuarantineService extends Effect.Service<QuarantineService>()("@tonearm/server/QuarantineService", {
  effect: Effect.gen(function* () {
    const quarantine = yield* QuarantineRepository
    const events = yield* EventBus
    const removal = yield* TrackRemoval
    const manager = yield* AcquisitionManager
    const roots = yield* LibraryRoots
    const sql = yield* SqlClient.SqlClient

    const entryOf = Effect.fn("QuarantineService.entryOf")(function* (id: string) {
      const found = yield* quarantine.byId(id)
      if (Option.isNone(found))
        return yield* new NotFound({ message: "no such quarantine entry", resource: "quarantine_entry" })
      return new QuarantineEntry(found.value)
    })

    /** Broadcast `quarantine.flagged` only when the flag is new. */
    const flag = Effect.fn("QuarantineService.flag")(function* (user: UserId, trackId: TrackId, request: FlagRequest) {
      const now = yield* currentDate
      const result = yield* quarantine.flag({ userId: user, trackId, reason: request.reason?.trim() ?? "", now })
      if (result._tag === "NoTrack") return yield* noSuchTrack
      if (result.created) yield* events.publish("quarantine.flagged", null, { track_id: trackId })
      return yield* entryOf(result.id)
    })

    /** Idempotent for a flag that is not open; 404 for a track not in the library. */
    const unflag = Effect.fn("QuarantineService.unflag")(function* (user: UserId, trackId: TrackId) {
      const removed = yield* quarantine.unflag(user, trackId)
      if (!removed) {
        if (!(yield* quarantine.trackExists(trackId))) return yield* noSuchTrack
        return
      }
      yield* events.publish("quarantine.unflagged", user, { track_id: trackId })
    })

    /** The tracks a listener flagged and no admin resolved yet: every track surface leaves them out for them. */
    const flaggedTrackIds = (user: UserId) => quarantine.flaggedTrackIds(user)

    /** Drops a user's flagged tracks from a list (one read; nothing to do when they flagged none). */
    const withoutFlagged = <A>(user: UserId, items: ReadonlyArray<A>, trackIdOf: (item: A) => string) =>
      items.length === 0
        ? Effect.succeed(items)
        : Effect.map(flaggedTrackIds(user), (flagged) =>
            flagged.size === 0 ? items : items.filter((item) => !flagged.has(trackIdOf(item))),
          )

    const list = Effect.fn("QuarantineService.list")(function* (query: QuarantineQuery) {
      const offset = query.offset ?? 0
      const limit = clampLimit(query.limit, QUARANTINE_PAGE_DEFAULT, QUARANTINE_PAGE_MAX)
      const page = yield* quarantine.page(query.resolved, offset, limit)
      return new QuarantinePage({
        items: page.items.map((row) => new QuarantineEntry(row)),
        total: page.total,
        offset,
        limit,
      })
    })

    /** Closes the track's open flags and, when asked, removes its rows, in one transaction. */
    const close = (trackId: TrackId, action: QuarantineAction, admin: UserId, removeTrack: boolean) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const resolved = yield* quarantine.resolveTrack({ trackId, action, by: admin, now })
        if (removeTrack) yield* removal.removeTracks([trackId])
        return resolved.length
      }).pipe(sql.withTransaction, orInternal("QuarantineService.close"))

    /**
     * An admin's verdict on a flagged track, for every open flag on it: `keep` (it returns to the listeners
     * who flagged it), `delete_file` (the file leaves the disk, never outside the library root, then the track
     * leaves the library) or `delete_via_manager` (the acquisition manager deletes the file, then the track
     * leaves the library). `quarantine.resolved` is broadcast after each.
     */
    const resolve = Effect.fn("QuarantineService.resolve")(function* (
      admin: UserId,
      id: QuarantineId,
      action: QuarantineAction,
    ) {
      const entry = yield* entryOf(id)
      if (entry.resolved_at !== null)
        return yield* new Conflict({ message: "this flag is already resolved", reason: "already_resolved" })
      const trackId = entry.track_id
      if (trackId === null)
        return yield* new Conflict({ message: "the track is no longer in the library", reason: "track_gone" })
      let resolved = 0
      switch (action) {
        case "keep": {
          resolved = yield* close(trackId, action, admin, false)
          break
        }
        case "delete_file": {
          const outcome = yield* removal.deleteFile(trackId)
          if (outcome === "outside_library" || outcome === "not_a_file") {
            yield* Effect.logWarning(`refused to delete the file of track ${trackId}: ${outcome}`)
            return yield* new Conflict({
              message:
                outcome === "outside_library"
                  ? "the track's file is not inside the library folder; nothing was deleted"
                  : "the track's path is not a regular file; nothing was deleted",
              reason: "unsafe_path",
            })
          }
          resolved = yield* close(trackId, action, admin, true)
          yield* events.publish("quarantine.file_deleted", null, { track_id: trackId })
          break
        }
        case "delete_via_manager": {
          const track = yield* quarantine.trackForManager(trackId)
          if (Option.isNone(track))
            return yield* new Conflict({ message: "the track is no longer in the library", reason: "track_gone" })
          // The manager is told where the file lies (its library's folder joined with its path), not the stored
          // form: the `/N/` prefix is ours, and the folder tells apart the same album kept in two libraries.
          const location = yield* roots.location(track.value.path)
          const outcome = yield* manager.deleteTrackFile({ ...track.value, path: location }).pipe(
            Effect.catchTags({
              ManagerNotConfigured: () =>
                Effect.fail(new Conflict({ message: "no acquisition manager is configured", reason: "no_manager" })),
              ManagerUnavailable: (error) =>
                Effect.logWarning(`delete via manager failed: ${error.message}`).pipe(
                  Effect.zipRight(Effect.fail(new ServiceUnavailable({ message: error.message }))),
                ),
            }),
          )
          if (outcome === "unknown_file") {
            return yield* new Conflict({
              message: "the acquisition manager has no file that matches this track",
              reason: "no_matching_file",
            })
          }
          resolved = yield* close(trackId, action, admin, true)
          yield* events.publish("quarantine.deleted_via_manager", null, { track_id: trackId })
          break
        }
      }
      yield* events.publish("quarantine.resolved", null, { track_id: trackId })
      return new QuarantineResolved({ id, track_id: trackId, action, resolved })
    })

    return { flag, unflag, flaggedTrackIds, withoutFlagged, list, resolve } as const
  }),
  dependencies: [QuarantineRepository.Default, LibraryRoots.Default],
}) {}
