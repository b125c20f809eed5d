import { SqlClient } from "@effect/sql"
import {
  QuarantineAction,
  QuarantineId,
  type TrackId,
  TrackId as TrackIdSchema,
  type UserId,
  UserId as UserIdSchema,
} from "@tonearm/core"
import { Effect, Schema } from "effect"
import { catalogueIn } from "../db/libraryScope.js"
import { decodeFirst, decodeRows, withTotal } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"
import { LibraryAccess } from "../library/LibraryAccess.js"

/** A flag as stored, with the live names of its track when it is still in the library. */
export const QuarantineRecord = Schema.Struct({
  id: QuarantineId,
  track_id: Schema.NullOr(TrackIdSchema),
  track_title: Schema.String,
  album_title: Schema.String,
  artist_name: Schema.String,
  user_id: UserIdSchema,
  username: Schema.String,
  reason: Schema.String,
  created_at: Schema.DateTimeUtcFromDate,
  resolved_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  action: Schema.NullOr(QuarantineAction),
})
export type QuarantineRecord = typeof QuarantineRecord.Type

/** What the manager needs to find a track's file (`path` as stored; the service tells the manager its location). */
export const TrackForManager = Schema.Struct({
  path: Schema.String,
  title: Schema.String,
  artist_name: Schema.String,
  artist_mbid: Schema.NullOr(Schema.String),
})
export type TrackForManager = typeof TrackForManager.Type

const SELECT = `
  SELECT q.id, q.track_id,
         coalesce(t.title, q.track_title) AS track_title,
         coalesce(al.title, q.album_title) AS album_title,
         coalesce(ar.name, q.artist_name) AS artist_name,
         q.user_id, u.username, q.reason, q.created_at, q.resolved_at, q.action
  FROM quarantine q
  JOIN users u ON u.id = q.user_id
  LEFT JOIN indexed_tracks t ON t.id = q.track_id
  LEFT JOIN indexed_albums al ON al.id = t.album_id
  LEFT JOIN indexed_artists ar ON ar.id = t.artist_id`

/** The `quarantine` table's only writer. */
export class QuarantineRepository extends Effect.Service<QuarantineRepository>()(
  "@tonearm/server/QuarantineRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const access = yield* LibraryAccess
      const select = sql.literal(SELECT)
      /** The caller's catalogue (issue 27): a listener flags only a track of their libraries. */
      const catalogue = Effect.map(access.current, (scope) => catalogueIn(sql, scope))

      const byId = (id: string) =>
        sql`${select} WHERE q.id = ${id}`.pipe(
          Effect.flatMap(decodeFirst(QuarantineRecord)),
          orInternal("QuarantineRepository.byId"),
        )

      /**
       * Flags a present track for a user, keeping the names it has now; an open flag of that user on that
       * track is answered as it is. None when the track is not in the library.
       */
      const flag = (input: { userId: UserId; trackId: TrackId; reason: string; now: Date }) =>
        Effect.gen(function* () {
          const c = yield* catalogue
          const inserted = yield* sql<{ id: string }>`
            INSERT INTO quarantine (track_id, user_id, reason, track_title, album_title, artist_name, created_at)
            SELECT t.id, ${input.userId}, ${input.reason}, t.title, al.title, ar.name, ${input.now}
            FROM ${c.tracks} t JOIN indexed_albums al ON al.id = t.album_id JOIN indexed_artists ar ON ar.id = t.artist_id
            WHERE t.id = ${input.trackId}
            ON CONFLICT (user_id, track_id) WHERE resolved_at IS NULL DO NOTHING
            RETURNING id`
          const id =
            inserted[0]?.id ??
            (yield* sql<{ id: string }>`
              SELECT q.id FROM quarantine q JOIN ${c.tracks} t ON t.id = q.track_id
              WHERE q.user_id = ${input.userId} AND q.track_id = ${input.trackId} AND q.resolved_at IS NULL`)[0]?.id
          return id === undefined
            ? { _tag: "NoTrack" as const }
            : { _tag: "Flagged" as const, id, created: inserted.length > 0 }
        }).pipe(orInternal("QuarantineRepository.flag"))

      /** Withdraws a user's open flag; answers whether there was one. */
      const unflag = (userId: UserId, trackId: TrackId) =>
        sql<{ id: string }>`
          DELETE FROM quarantine WHERE user_id = ${userId} AND track_id = ${trackId} AND resolved_at IS NULL
          RETURNING id`.pipe(
          Effect.map((rows) => rows.length > 0),
          orInternal("QuarantineRepository.unflag"),
        )

      const trackExists = (trackId: TrackId) =>
        Effect.flatMap(
          catalogue,
          (c) => sql<{ n: number }>`SELECT count(*)::int AS n FROM ${c.tracks} t WHERE t.id = ${trackId}`,
        ).pipe(
          Effect.map((rows) => (rows[0]?.n ?? 0) > 0),
          orInternal("QuarantineRepository.trackExists"),
        )

      /** The tracks a user has open flags on: the quarantine filter. */
      const flaggedTrackIds = (userId: UserId) =>
        sql<{ track_id: TrackId }>`
          SELECT track_id FROM quarantine
          WHERE user_id = ${userId} AND resolved_at IS NULL AND track_id IS NOT NULL`.pipe(
          Effect.map((rows) => new Set<string>(rows.map((row) => row.track_id))),
          orInternal("QuarantineRepository.flaggedTrackIds"),
        )

      /** Newest first, with the total; `resolved` undefined lists every flag. */
      const page = (resolved: boolean | undefined, offset: number, limit: number) => {
        const where =
          resolved === undefined
            ? sql.literal("")
            : resolved
              ? sql.literal("WHERE q.resolved_at IS NOT NULL")
              : sql.literal("WHERE q.resolved_at IS NULL")
        return withTotal(
          sql`${select} ${where} ORDER BY q.created_at DESC, q.id DESC OFFSET ${offset} LIMIT ${limit}`.pipe(
            Effect.flatMap(decodeRows(QuarantineRecord)),
          ),
          sql<{ n: number }>`SELECT count(*)::int AS n FROM quarantine q ${where}`,
        ).pipe(orInternal("QuarantineRepository.page"))
      }

      /**
       * Resolves every open flag on a track with one verdict (it is about the track, not about one listener).
       * Answers the ids resolved; run it before the track's row goes (its flags keep the names).
       */
      const resolveTrack = (input: { trackId: TrackId; action: QuarantineAction; by: UserId; now: Date }) =>
        sql<{ id: string }>`
          UPDATE quarantine SET resolved_at = ${input.now}, action = ${input.action}, resolved_by = ${input.by}
          WHERE track_id = ${input.trackId} AND resolved_at IS NULL
          RETURNING id`.pipe(
          Effect.map((rows) => rows.map((row) => row.id)),
          orInternal("QuarantineRepository.resolveTrack"),
        )

      /** The track's file path, names and artist MBID (present or missing), for the manager. */
      const trackForManager = (trackId: TrackId) =>
        sql`
          SELECT t.path, t.title, ar.name AS artist_name, ar.mbid AS artist_mbid
          FROM indexed_tracks t JOIN indexed_artists ar ON ar.id = t.artist_id
          WHERE t.id = ${trackId}`.pipe(
          Effect.flatMap(decodeFirst(TrackForManager)),
          orInternal("QuarantineRepository.trackForManager"),
        )

      return { byId, flag, unflag, trackExists, flaggedTrackIds, page, resolveTrack, trackForManager } as const
    }),
    dependencies: [LibraryAccess.Default],
  },
) {}
