import { SqlClient } from "@effect/sql"
import {
  type NewSmartPlaylist,
  NotFound,
  type PlaylistDetail,
  type PlaylistId,
  SmartPlaylist,
  type SmartPlaylistPatch,
  SmartPlaylistSummary,
  SmartPreview,
  type SmartRules,
  type UserId,
} from "@tonearm/core"
import { Effect, Option, Random } from "effect"
import { currentDate } from "../clock.js"
import { orInternal } from "../db/sqlErrors.js"
import { EventBus } from "../events/index.js"
import { PlaylistsService } from "../playlists/index.js"
import { type Evaluation, SmartPlaylistRepository, type SmartRecord } from "./SmartPlaylistRepository.js"

const noSuchPlaylist = () => new NotFound({ message: "no such smart playlist", resource: "playlist" })

/**
 * Smart playlists (issue 28 item 5): the rules of a playlist of the user's own, evaluated into its entries on save,
 * on "Refresh" and by the user's nightly run. Another user's smart playlist does not exist for the caller (404).
 */
export class SmartPlaylistsService extends Effect.Service<SmartPlaylistsService>()(
  "@tonearm/server/SmartPlaylistsService",
  {
    effect: Effect.gen(function* () {
      const smart = yield* SmartPlaylistRepository
      const playlistsService = yield* PlaylistsService
      const events = yield* EventBus
      const sql = yield* SqlClient.SqlClient

      /** The evaluation's context: the owner, the Clock's instant and a seed from Random (the random order). */
      const evaluation = (owner: UserId) =>
        Effect.gen(function* () {
          const now = yield* currentDate
          const seed = String(yield* Random.nextIntBetween(0, 2 ** 31 - 1))
          return { owner, now, seed } satisfies Evaluation
        })

      const owned = (user: UserId, id: PlaylistId) =>
        Effect.flatMap(smart.find(id), (found) =>
          Option.isSome(found) && found.value.owner_id === user
            ? Effect.succeed(found.value)
            : Effect.fail(noSuchPlaylist()),
        )

      /**
       * Evaluates the rules into the playlist's entries and stamps the evaluation (in the caller's transaction,
       * under the playlist's row lock): a track that stays keeps its entry id, so a refresh that changes nothing
       * logs no entry for sync.
       */
      const fill = (id: PlaylistId, owner: UserId, rules: SmartRules) =>
        Effect.gen(function* () {
          const at = yield* evaluation(owner)
          const { trackIds } = yield* smart.evaluate(rules, at)
          yield* playlistsService.replaceEntries(id, trackIds)
          yield* smart.markRefreshed(id, at.now)
        })

      const view = (user: UserId, id: PlaylistId) =>
        Effect.gen(function* () {
          const record = yield* owned(user, id)
          const playlist: PlaylistDetail = yield* playlistsService.get(user, id)
          return new SmartPlaylist({ id, rules: record.rules, refreshed_at: record.refreshed_at, playlist })
        })

      const refreshIn = (user: UserId, id: PlaylistId, rules: SmartRules) =>
        fill(id, user, rules).pipe(sql.withTransaction, orInternal("SmartPlaylistsService.refresh"))

      const list = Effect.fn("SmartPlaylistsService.list")(function* (user: UserId) {
        const records = yield* smart.listByOwner(user)
        const rows = new Map((yield* playlistsService.list(user)).map((row) => [row.id as string, row]))
        return records.flatMap((record: SmartRecord) => {
          const row = rows.get(record.playlist_id)
          return row === undefined
            ? []
            : [
                new SmartPlaylistSummary({
                  id: row.id,
                  name: row.name,
                  track_count: row.track_count,
                  rules: record.rules,
                  refreshed_at: record.refreshed_at,
                }),
              ]
        })
      })

      const create = Effect.fn("SmartPlaylistsService.create")(function* (user: UserId, input: NewSmartPlaylist) {
        const id = yield* Effect.gen(function* () {
          // The playlist is made (and announced) in this transaction's savepoint: rules that fail leave nothing.
          const created = yield* playlistsService.create(user, {
            name: input.name,
            ...(input.description !== undefined ? { description: input.description } : {}),
          })
          yield* smart.insert(created.id, user, input.rules, yield* currentDate)
          yield* fill(created.id, user, input.rules)
          return created.id
        }).pipe(sql.withTransaction, orInternal("SmartPlaylistsService.create"))
        return yield* view(user, id)
      })

      const get = Effect.fn("SmartPlaylistsService.get")(function* (user: UserId, id: PlaylistId) {
        return yield* view(user, id)
      })

      /** New rules (and name): saved and evaluated in one transaction. */
      const update = Effect.fn("SmartPlaylistsService.update")(function* (
        user: UserId,
        id: PlaylistId,
        patch: SmartPlaylistPatch,
      ) {
        yield* owned(user, id)
        yield* Effect.gen(function* () {
          yield* smart.setRules(id, patch.rules)
          if (patch.name !== undefined) yield* playlistsService.update(user, id, { name: patch.name })
          yield* fill(id, user, patch.rules)
        }).pipe(sql.withTransaction, orInternal("SmartPlaylistsService.update"))
        yield* events.publish("playlist.tracks_changed", user, { playlist_id: id })
        return yield* view(user, id)
      })

      const refresh = Effect.fn("SmartPlaylistsService.refresh")(function* (user: UserId, id: PlaylistId) {
        const record = yield* owned(user, id)
        yield* refreshIn(user, id, record.rules)
        yield* events.publish("playlist.tracks_changed", user, { playlist_id: id })
        return yield* view(user, id)
      })

      const preview = Effect.fn("SmartPlaylistsService.preview")(function* (user: UserId, rules: SmartRules) {
        const matching = yield* smart.count(rules, yield* evaluation(user))
        return new SmartPreview({ matching, count: Math.min(matching, rules.limit) })
      })

      /**
       * The nightly run's part (the user's daily run): every smart playlist of the user evaluated again, one
       * transaction each; a failure is logged and the others go on. Answers how many were refreshed.
       */
      const refreshOwned = Effect.fn("SmartPlaylistsService.refreshOwned")(function* (user: UserId) {
        let refreshed = 0
        for (const record of yield* smart.listByOwner(user)) {
          const id = record.playlist_id as PlaylistId
          const ok = yield* refreshIn(user, id, record.rules).pipe(
            Effect.as(true),
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning(`smart playlist ${id} refresh failed: ${error.message}`), false),
            ),
          )
          if (ok) {
            refreshed += 1
            yield* events.publish("playlist.tracks_changed", user, { playlist_id: id })
          }
        }
        return refreshed
      })

      /** Whether the playlist is smart: its entries are the server's (the playlists routes refuse to edit them). */
      const isSmart = (id: PlaylistId) => Effect.map(smart.find(id), Option.isSome)

      return { list, create, get, update, refresh, preview, refreshOwned, isSmart } as const
    }),
    dependencies: [SmartPlaylistRepository.Default],
  },
) {}
