import type { SubsonicPayload } from "@tonearm/core"
import { DateTime, Effect, Option } from "effect"
import { LibraryService } from "../../library/index.js"
import { PlayQueueService } from "../../playqueue/index.js"
import { songs } from "../answers.js"
import { notFound, notFoundAs } from "../failures.js"
import { method, param, type SubsonicMethod } from "../method.js"

/** Bookmarks: the play queue, one store for the web player and Subsonic apps. */
export const bookmarkMethods: ReadonlyArray<SubsonicMethod> = [
  method("getPlayQueue", {}, (user) =>
    Effect.gen(function* () {
      const found = yield* (yield* PlayQueueService).stored(user.id)
      if (Option.isNone(found)) return {} satisfies SubsonicPayload
      const queue = found.value
      const entry = yield* songs(user, yield* (yield* LibraryService).tracksByIds(queue.track_ids))
      return {
        playQueue: {
          ...(queue.current_id === null ? {} : { current: queue.current_id }),
          position: queue.position_ms,
          username: user.username,
          changed: DateTime.formatIso(queue.changed_at),
          changedBy: queue.changed_by,
          entry,
        },
      } satisfies SubsonicPayload
    }),
  ),

  /** Without ids it clears the queue (OpenSubsonic). Unknown songs are 70, like elsewhere. */
  method(
    "savePlayQueue",
    { id: param.ids("track"), current: param.optional, position: param.later(param.int(0)), c: param.optional },
    (user, { id: ids, current, position, c }) =>
      Effect.gen(function* () {
        const queues = yield* PlayQueueService
        if (ids.length === 0) {
          yield* queues.clear(user.id)
          return {} satisfies SubsonicPayload
        }
        const known = new Set((yield* (yield* LibraryService).tracksByIds(ids)).map((track) => track.id as string))
        if (ids.some((id) => !known.has(id))) return yield* notFound("track")
        if (current !== undefined && !ids.includes(current)) return yield* notFoundAs("Current song")
        yield* queues.store(user.id, {
          trackIds: ids,
          currentId: current ?? null,
          // Subsonic names the current song only: its first entry (the web player stores the exact entry).
          currentIndex: current === undefined ? null : ids.indexOf(current),
          positionMs: Math.max(0, yield* position),
          source: null,
          changedBy: (c ?? "subsonic").slice(0, 200),
        })
        return {} satisfies SubsonicPayload
      }),
  ),
]
