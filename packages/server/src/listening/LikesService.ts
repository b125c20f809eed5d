import { SqlClient } from "@effect/sql"
import {
  AlbumId,
  ArtistId,
  type EventKind,
  type Internal,
  LikedItems,
  NotFound,
  TrackId,
  type UserId,
} from "@tonearm/core"
import { Effect } from "effect"
import { ChangeLog, changesOf } from "../changes/index.js"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { EventBus } from "../events/index.js"
import { LibraryService } from "../library/index.js"
import { type LikeEntity, LikeRepository } from "./LikeRepository.js"

const EVENTS = {
  track: { liked: "track.liked", unliked: "track.unliked" },
  album: { liked: "album.liked", unliked: "album.unliked" },
  artist: { liked: "artist.liked", unliked: "artist.unliked" },
} as const satisfies Record<LikeEntity, { liked: EventKind; unliked: EventKind }>

/**
 * Likes of tracks, albums and artists: idempotent, each writing its library change-log row best-effort (a
 * failure is logged, never failing the response) and publishing its event to the liking user.
 */
/** When a user liked an entity, by kind and id; undefined when they do not like it. */
export type LikedAt = (entity: LikeEntity, id: string) => Date | undefined

export class LikesService extends Effect.Service<LikesService>()("@tonearm/server/LikesService", {
  effect: Effect.gen(function* () {
    const likes = yield* LikeRepository
    const changes = yield* ChangeLog
    const events = yield* EventBus
    const library = yield* LibraryService
    const sql = yield* SqlClient.SqlClient

    const set = (liked: boolean) =>
      Effect.fn("LikesService.set")(function* (userId: UserId, entity: LikeEntity, id: string) {
        if (liked && !(yield* likes.exists(entity, id)))
          return yield* new NotFound({ message: `no such ${entity}`, resource: entity })
        const now = yield* currentDate
        // One transaction per toggle, serialised per (user, kind, id): the like and its change-log row commit
        // together and in the same order, so what sync reports last is what is stored (issue 29). The log row is
        // written in a savepoint: its failure is logged and rolled back alone, never failing the like.
        yield* Effect.gen(function* () {
          yield* likes.lockOne(userId, entity, id)
          if (liked) yield* likes.add(userId, entity, id, now)
          else yield* likes.remove(userId, entity, id)
          yield* changes.recordBestEffort(changesOf(`like_${entity}`, liked ? "upsert" : "delete", [id], userId), now)
        }).pipe(sql.withTransaction, orInternal("LikesService.set"))
        yield* events.publish(liked ? EVENTS[entity].liked : EVENTS[entity].unliked, userId, { id })
      })

    const like = set(true)
    /** Unliking what is not liked (or no longer exists) is a no-op, still 204. */
    const unlike = set(false)

    const list = Effect.fn("LikesService.list")(function* (userId: UserId) {
      const [trackIds, albumIds, artistIds] = yield* Effect.all(
        [likes.ids(userId, "track"), likes.ids(userId, "album"), likes.ids(userId, "artist")],
        { concurrency: 3 },
      )
      const [tracks, albums, artists] = yield* Effect.all(
        [library.tracksByIds(trackIds), library.albumsByIds(albumIds), library.artistsByIds(artistIds)],
        { concurrency: 3 },
      )
      return new LikedItems({ tracks, albums, artists })
    })

    const likedAmong = (userId: UserId, entity: LikeEntity, ids: ReadonlyArray<string>) =>
      likes.likedAmong(userId, entity, ids)

    /**
     * When the user liked each of these entities, several kinds at once (one query): answers a lookup by kind
     * and id, undefined when not liked.
     */
    const likedAt = (
      userId: UserId,
      wanted: Partial<Record<LikeEntity, ReadonlyArray<string>>>,
    ): Effect.Effect<LikedAt, Internal> => {
      const ids = [...(wanted.track ?? []), ...(wanted.album ?? []), ...(wanted.artist ?? [])]
      if (ids.length === 0) return Effect.succeed(() => undefined)
      return Effect.map(likes.likedAmongAny(userId, ids), (rows) => {
        const at = new Map(rows.map((row) => [`${row.entity}:${row.entity_id}`, row.liked_at]))
        return (entity, id) => at.get(`${entity}:${id}`)
      })
    }

    /** Everything the user likes, as ids (what the taste profile counts). */
    const likedIds = Effect.fn("LikesService.likedIds")(function* (userId: UserId) {
      const [tracks, albums, artists] = yield* Effect.all(
        [likes.ids(userId, "track"), likes.ids(userId, "album"), likes.ids(userId, "artist")],
        { concurrency: 3 },
      )
      return {
        tracks: tracks.map((id) => TrackId.make(id)),
        albums: albums.map((id) => AlbumId.make(id)),
        artists: artists.map((id) => ArtistId.make(id)),
      }
    })

    /**
     * Likes kept from another server (a Navidrome import) with their original times, in one transaction with
     * their change-log rows; a like the user already has keeps its time. No event per like: the import reports
     * its own progress. Returns how many likes were new.
     */
    const importLikes = Effect.fn("LikesService.importLikes")(function* (
      userId: UserId,
      records: ReadonlyArray<{ readonly entity: LikeEntity; readonly entityId: string; readonly likedAt: Date }>,
    ) {
      if (records.length === 0) return 0
      const now = yield* currentDate
      const added = yield* Effect.gen(function* () {
        const rows = yield* likes.addMissing(userId, records)
        yield* changes.record(
          rows.map((row) => ({
            entity: `like_${row.entity}` as const,
            entityId: row.entity_id,
            scope: userId,
            operation: "upsert" as const,
          })),
          now,
        )
        return rows.length
      }).pipe(sql.withTransaction, orInternal("LikesService.importLikes"))
      return added
    })

    return { like, unlike, list, likedAmong, likedAt, likedIds, importLikes } as const
  }),
  dependencies: [LikeRepository.Default],
}) {}
