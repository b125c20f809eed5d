import {
  type Internal,
  InvalidRequest,
  resumePoint,
  SavedPlayQueue,
  type SavePlayQueue,
  type UserId,
} from "@tonearm/core"
import { Effect, Option } from "effect"
import { currentDate } from "../clock.js"
import { LibraryService } from "../library/index.js"
import { type PlayQueueRecord, PlayQueueRepository, type PlayQueueWrite } from "./PlayQueueRepository.js"

const EMPTY = new SavedPlayQueue({
  tracks: [],
  current_index: null,
  position_ms: 0,
  source: null,
  changed_at: null,
  changed_by: null,
})

/** Who saved a queue through the JSON route without naming itself. */
const DEFAULT_CLIENT = "tonearm"

/**
 * One play queue per user, shared by the JSON route and Subsonic getPlayQueue/savePlayQueue: whichever saves last
 * is what every player resumes.
 */
export class PlayQueueService extends Effect.Service<PlayQueueService>()("@tonearm/server/PlayQueueService", {
  effect: Effect.gen(function* () {
    const queues = yield* PlayQueueRepository
    const library = yield* LibraryService

    const view = (record: PlayQueueRecord) =>
      Effect.gen(function* () {
        const tracks = yield* library.tracksByIds(record.track_ids)
        const resumed = resumePoint(
          {
            trackIds: record.track_ids,
            currentId: record.current_id,
            currentIndex: record.current_index,
            positionMs: record.position_ms,
          },
          new Set(tracks.map((track) => track.id as string)),
        )
        if (resumed.trackIds.length === 0) return EMPTY
        return new SavedPlayQueue({
          tracks,
          current_index: resumed.currentIndex,
          position_ms: resumed.positionMs,
          source: record.source,
          changed_at: record.changed_at,
          changed_by: record.changed_by,
        })
      })

    /** The raw stored queue (Subsonic answers it in its own shape). */
    const stored = (user: UserId) => queues.find(user)

    /** Stores a queue as given (the caller has checked it); an empty one clears. Answers what it stored. */
    const store = (user: UserId, queue: PlayQueueWrite): Effect.Effect<Option.Option<PlayQueueRecord>, Internal> =>
      queue.trackIds.length === 0
        ? Effect.as(queues.clear(user), Option.none())
        : Effect.flatMap(currentDate, (now) => Effect.map(queues.save(user, queue, now), Option.some))

    const get = (user: UserId) =>
      Effect.flatMap(queues.find(user), Option.match({ onNone: () => Effect.succeed(EMPTY), onSome: view }))

    /** The JSON save: ids of no (present) track are dropped, the current entry and position follow the kept ones. */
    const save = (user: UserId, input: SavePlayQueue) =>
      Effect.gen(function* () {
        const ids = input.track_ids as ReadonlyArray<string>
        const at = input.current_index ?? null
        if (at !== null && ids.length > 0 && at >= ids.length)
          return yield* new InvalidRequest({ message: "current_index: must name an entry of track_ids" })
        const known = new Set((yield* library.tracksByIds(ids)).map((track) => track.id as string))
        const resumed = resumePoint(
          {
            trackIds: ids,
            currentId: at === null ? null : ids[at]!,
            currentIndex: at,
            positionMs: input.position_ms ?? 0,
          },
          known,
        )
        const currentIndex = at === null ? null : resumed.currentIndex
        const stored = yield* store(user, {
          trackIds: resumed.trackIds,
          currentId: currentIndex === null ? null : (resumed.trackIds[currentIndex] ?? null),
          currentIndex,
          positionMs: at === null ? 0 : resumed.positionMs,
          source: input.source ?? null,
          changedBy: input.changed_by ?? DEFAULT_CLIENT,
        })
        // The answer is this save's own queue, even when another player saved in between.
        return yield* Option.match(stored, { onNone: () => Effect.succeed(EMPTY), onSome: view })
      })

    return { get, save, stored, store, clear: queues.clear } as const
  }),
  dependencies: [PlayQueueRepository.Default],
}) {}
