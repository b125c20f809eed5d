import { type Internal, InvalidRequest, NotFound, type RatingEntity, ratingChange, type UserId } from "@tonearm/core"
import { Effect } from "effect"
import { currentDate } from "../clock.js"
import { LikeRepository } from "./LikeRepository.js"
import { type LikedAt, LikesService } from "./LikesService.js"
import { type RatingRecord, RatingRepository } from "./RatingRepository.js"

/** The caller's own marks on what an answer shows: when they liked each item, and their rating of it. */
export interface Annotations {
  readonly starred: LikedAt
  readonly rating: (entity: RatingEntity, id: string) => number | undefined
}

/**
 * Ratings (1–5) of tracks, albums and artists, per listener: set and removed through Subsonic `setRating`, kept
 * from a Navidrome import, shown as `userRating` beside the star.
 */
export class RatingsService extends Effect.Service<RatingsService>()("@tonearm/server/RatingsService", {
  effect: Effect.gen(function* () {
    const ratings = yield* RatingRepository
    const likes = yield* LikeRepository
    const likesService = yield* LikesService

    /** `value` 0 removes the rating (a no-op when there is none); 1..5 sets it on an entity that exists. */
    const rate = Effect.fn("RatingsService.rate")(function* (
      userId: UserId,
      entity: RatingEntity,
      id: string,
      value: number,
    ) {
      const change = ratingChange(value)
      if (change === "invalid")
        return yield* new InvalidRequest({ message: "rating must be 0 (remove) or an integer from 1 to 5" })
      if (change === "remove") {
        yield* ratings.remove(userId, entity, id)
        return
      }
      if (!(yield* likes.exists(entity, id)))
        return yield* new NotFound({ message: `no such ${entity}`, resource: entity })
      yield* ratings.set(userId, { entity, entityId: id, rating: change.set, ratedAt: yield* currentDate })
    })

    /** Ratings kept from another server; one the user already gave stays. Returns how many were new. */
    const importRatings = (userId: UserId, records: ReadonlyArray<RatingRecord>) => ratings.addMissing(userId, records)

    /** The caller's stars and ratings on these items, several kinds at once (two queries side by side). */
    const annotations = (
      userId: UserId,
      wanted: Partial<Record<RatingEntity, ReadonlyArray<string>>>,
    ): Effect.Effect<Annotations, Internal> => {
      const ids = [...(wanted.track ?? []), ...(wanted.album ?? []), ...(wanted.artist ?? [])]
      if (ids.length === 0) return Effect.succeed({ starred: () => undefined, rating: () => undefined })
      return Effect.map(
        Effect.all([likesService.likedAt(userId, wanted), ratings.among(userId, ids)], { concurrency: 2 }),
        ([starred, rows]) => {
          const byKey = new Map(rows.map((row) => [`${row.entity}:${row.entity_id}`, row.rating]))
          return { starred, rating: (entity, id) => byKey.get(`${entity}:${id}`) }
        },
      )
    }

    return { rate, importRatings, annotations } as const
  }),
  dependencies: [RatingRepository.Default, LikeRepository.Default],
}) {}
