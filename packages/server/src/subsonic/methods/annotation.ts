import { deviceClassOfClient, missingParameter, type SubsonicPayload, TrackId } from "@tonearm/core"
import { DateTime, Effect } from "effect"
import { currentDate } from "../../clock.js"
import { LikesService, PlaysService, RatingsService } from "../../listening/index.js"
import { isUuid, kindOf } from "../answers.js"
import { notFound, notFoundAs } from "../failures.js"
import { method, param, type SubsonicMethod } from "../method.js"

const starParams = { id: param.all, albumId: param.all, artistId: param.all }

/** star/unstar: `id` (a song, or an album or artist for older apps), `albumId`, `artistId`; each repeatable. */
const starTargets = ({
  id,
  albumId,
  artistId,
}: {
  id: Array<string>
  albumId: Array<string>
  artistId: Array<string>
}) =>
  Effect.gen(function* () {
    const targets: Array<{ entity: "track" | "album" | "artist"; id: string }> = []
    for (const raw of id) {
      const kind = yield* kindOf(raw)
      if (kind === undefined) return yield* notFoundAs("Item")
      targets.push({ entity: kind, id: raw })
    }
    for (const raw of albumId) {
      if (!isUuid(raw)) return yield* notFound("album")
      targets.push({ entity: "album", id: raw })
    }
    for (const raw of artistId) {
      if (!isUuid(raw)) return yield* notFound("artist")
      targets.push({ entity: "artist", id: raw })
    }
    if (targets.length === 0) return yield* Effect.fail(missingParameter("id"))
    return targets
  })

/** Annotation: stars (Tonearm's likes) and scrobbles (plays). */
export const annotationMethods: ReadonlyArray<SubsonicMethod> = [
  // An item that is gone by the time it is liked answers 70 by its kind ("Song not found").
  method("star", starParams, (user, params) =>
    Effect.gen(function* () {
      const likes = yield* LikesService
      for (const target of yield* starTargets(params)) yield* likes.like(user.id, target.entity, target.id)
      return {} satisfies SubsonicPayload
    }),
  ),

  method("unstar", starParams, (user, params) =>
    Effect.gen(function* () {
      const likes = yield* LikesService
      for (const target of yield* starTargets(params)) yield* likes.unlike(user.id, target.entity, target.id)
      return {} satisfies SubsonicPayload
    }),
  ),

  /**
   * setRating: `id` is a song, album or artist; `rating` 1–5 sets the caller's rating, 0 removes it. A rating
   * outside 0–5 is error 0; an id that names nothing is 70.
   */
  method("setRating", { id: param.required, rating: param.requiredInt }, (user, { id, rating }) =>
    Effect.gen(function* () {
      const kind = yield* kindOf(id)
      if (kind === undefined) return yield* notFoundAs("Item")
      yield* (yield* RatingsService).rate(user.id, kind, id, rating)
      return {} satisfies SubsonicPayload
    }),
  ),

  /**
   * `submission=false` reports a play starting (play_started); `true` (the default) a completed play. The device
   * class comes from the client name `c`; the client id is `c` too. Subsonic tells no play source, so the play has
   * none (the metrics baseline). An unknown song is 70 "Song not found".
   */
  method(
    "scrobble",
    // `time` pairs with `id` by position, so both are read with their empty values.
    { id: param.allGiven, time: param.allGiven, submission: param.bool(true), c: param.optional },
    (user, { id: ids, time: times, submission, c }) =>
      Effect.gen(function* () {
        if (ids.every((id) => id === "")) return yield* Effect.fail(missingParameter("id"))
        const plays = yield* PlaysService
        const client = c?.trim() || "subsonic"
        const device_class = deviceClassOfClient(c)
        for (const [index, raw] of ids.entries()) {
          if (raw === "") continue
          if (!isUuid(raw)) return yield* notFound("track")
          const event = { track_id: TrackId.make(raw), client_id: client.slice(0, 200), source: null, device_class }
          if (!submission) {
            yield* plays.report(user.id, { type: "play_started", ...event })
            continue
          }
          const time = Number(times[index])
          const at =
            times[index] !== undefined && times[index] !== "" && Number.isFinite(time)
              ? DateTime.unsafeMake(time)
              : DateTime.unsafeMake(yield* currentDate)
          yield* plays.completed(user.id, { ...event, at })
        }
        return {} satisfies SubsonicPayload
      }),
  ),
]
