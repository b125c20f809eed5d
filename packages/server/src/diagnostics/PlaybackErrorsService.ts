import {
  Conflict,
  clampLimit,
  isPlaybackErrorKind,
  NotFound,
  PLAYBACK_ERROR_KINDS,
  PLAYBACK_ERROR_PAGE_DEFAULT,
  PLAYBACK_ERROR_PAGE_MAX,
  PlaybackError,
  type PlaybackErrorId,
  PlaybackErrorPage,
  type PlaybackErrorReport,
  PlaybackErrorReported,
  type PlaybackErrorResolution,
  type PlaybackErrorsQuery,
  UnknownKind,
  type UserId,
} from "@tonearm/core"
import { Effect, Option } from "effect"
import { currentDate } from "../clock.js"
import { type PlaybackErrorRecord, PlaybackErrorRepository } from "./PlaybackErrorRepository.js"

const toPlaybackError = (row: PlaybackErrorRecord) => new PlaybackError(row)

/**
 * Playback errors (spec "Playback errors and diagnostics"): any signed-in user reports one on a track in the
 * library with a whitelisted kind and a client id; admins list them and resolve each once.
 */
export class PlaybackErrorsService extends Effect.Service<PlaybackErrorsService>()(
  "@tonearm/server/PlaybackErrorsService",
  {
    effect: Effect.gen(function* () {
      const errors = yield* PlaybackErrorRepository

      const report = Effect.fn("PlaybackErrorsService.report")(function* (user: UserId, input: PlaybackErrorReport) {
        if (!isPlaybackErrorKind(input.kind)) {
          return yield* new UnknownKind({
            message: `unknown playback-error kind "${input.kind}" (one of ${PLAYBACK_ERROR_KINDS.join(", ")})`,
          })
        }
        const message = input.message?.trim()
        const id = yield* errors.insert({
          userId: user,
          trackId: input.track_id,
          kind: input.kind,
          clientId: input.client_id.trim(),
          message: message === undefined || message === "" ? null : message,
          now: yield* currentDate,
        })
        if (id === undefined) return yield* new NotFound({ message: "no such track", resource: "track" })
        return new PlaybackErrorReported({ id: id as PlaybackErrorId })
      })

      const list = Effect.fn("PlaybackErrorsService.list")(function* (query: PlaybackErrorsQuery) {
        const offset = query.offset ?? 0
        const limit = clampLimit(query.limit, PLAYBACK_ERROR_PAGE_DEFAULT, PLAYBACK_ERROR_PAGE_MAX)
        const page = yield* errors.page(query.resolved, offset, limit)
        return new PlaybackErrorPage({ items: page.items.map(toPlaybackError), total: page.total, offset, limit })
      })

      /** Unresolved → resolved with a resolution (spec "Other lifecycles"); resolving twice is 409. */
      const resolve = Effect.fn("PlaybackErrorsService.resolve")(function* (
        admin: UserId,
        id: PlaybackErrorId,
        resolution: PlaybackErrorResolution,
      ) {
        const resolved = yield* errors.resolve({ id, resolution, by: admin, now: yield* currentDate })
        const row = yield* errors.byId(id)
        if (Option.isNone(row))
          return yield* new NotFound({ message: "no such playback error", resource: "playback_error" })
        if (!resolved)
          return yield* new Conflict({ message: "this playback error is already resolved", reason: "already_resolved" })
        return toPlaybackError(row.value)
      })

      return { report, list, resolve } as const
    }),
    dependencies: [PlaybackErrorRepository.Default],
  },
) {}
