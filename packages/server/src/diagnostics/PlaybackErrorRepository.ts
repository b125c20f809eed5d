import { SqlClient } from "@effect/sql"
import {
  PlaybackErrorId,
  type PlaybackErrorKind,
  PlaybackErrorKind as PlaybackErrorKindSchema,
  type PlaybackErrorResolution,
  PlaybackErrorResolution as PlaybackErrorResolutionSchema,
  type TrackId,
  TrackId as TrackIdSchema,
  type UserId,
  UserId as UserIdSchema,
} from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeFirst, decodeRows, withTotal } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export const PlaybackErrorRecord = Schema.Struct({
  id: PlaybackErrorId,
  track_id: Schema.NullOr(TrackIdSchema),
  track_title: Schema.String,
  album_title: Schema.String,
  artist_name: Schema.String,
  user_id: UserIdSchema,
  username: Schema.String,
  client_id: Schema.String,
  kind: PlaybackErrorKindSchema,
  message: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtcFromDate,
  resolved_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  resolution: Schema.NullOr(PlaybackErrorResolutionSchema),
})
export type PlaybackErrorRecord = typeof PlaybackErrorRecord.Type

/** Live names while the track is in the library, the names reported with it after. */
const SELECT = `
  SELECT e.id, e.track_id,
         coalesce(t.title, e.track_title) AS track_title,
         coalesce(al.title, e.album_title) AS album_title,
         coalesce(ar.name, e.artist_name) AS artist_name,
         e.user_id, u.username, e.client_id, e.kind, e.message, e.created_at, e.resolved_at, e.resolution
  FROM playback_errors e
  JOIN users u ON u.id = e.user_id
  LEFT JOIN indexed_tracks t ON t.id = e.track_id
  LEFT JOIN indexed_albums al ON al.id = t.album_id
  LEFT JOIN indexed_artists ar ON ar.id = t.artist_id`

/** The `playback_errors` table's only writer. */
export class PlaybackErrorRepository extends Effect.Service<PlaybackErrorRepository>()(
  "@tonearm/server/PlaybackErrorRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const select = sql.literal(SELECT)

      /** Stores a report on a track in the library; None when the track is not there. */
      const insert = (input: {
        userId: UserId
        trackId: TrackId
        kind: PlaybackErrorKind
        clientId: string
        message: string | null
        now: Date
      }) =>
        sql<{ id: string }>`
          INSERT INTO playback_errors (track_id, user_id, client_id, kind, message, track_title, album_title,
                                       artist_name, created_at)
          SELECT t.id, ${input.userId}, ${input.clientId}, ${input.kind}, ${input.message}, t.title, al.title,
                 ar.name, ${input.now}
          FROM tracks t JOIN indexed_albums al ON al.id = t.album_id JOIN indexed_artists ar ON ar.id = t.artist_id
          WHERE t.id = ${input.trackId}
          RETURNING id`.pipe(
          Effect.map((rows) => rows[0]?.id),
          orInternal("PlaybackErrorRepository.insert"),
        )

      const byId = (id: string) =>
        sql`${select} WHERE e.id = ${id}`.pipe(
          Effect.flatMap(decodeFirst(PlaybackErrorRecord)),
          orInternal("PlaybackErrorRepository.byId"),
        )

      /** Newest first, with the total. */
      const page = (resolved: boolean | undefined, offset: number, limit: number) => {
        const where =
          resolved === undefined
            ? sql.literal("")
            : sql.literal(resolved ? "WHERE e.resolved_at IS NOT NULL" : "WHERE e.resolved_at IS NULL")
        return withTotal(
          sql`${select} ${where} ORDER BY e.created_at DESC, e.id DESC OFFSET ${offset} LIMIT ${limit}`.pipe(
            Effect.flatMap(decodeRows(PlaybackErrorRecord)),
          ),
          sql<{ n: number }>`SELECT count(*)::int AS n FROM playback_errors e ${where}`,
        ).pipe(orInternal("PlaybackErrorRepository.page"))
      }

      /** Resolves an unresolved error; false when it was resolved already (or is gone). */
      const resolve = (input: { id: string; resolution: PlaybackErrorResolution; by: UserId; now: Date }) =>
        sql<{ id: string }>`
          UPDATE playback_errors SET resolved_at = ${input.now}, resolution = ${input.resolution},
                                     resolved_by = ${input.by}
          WHERE id = ${input.id} AND resolved_at IS NULL
          RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          orInternal("PlaybackErrorRepository.resolve"),
        )

      return { insert, byId, page, resolve } as const
    }),
  },
) {}
