import { SqlClient } from "@effect/sql"
import { CLOCK_BUCKET_MS, type UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

/** A period's plays: from (inclusive, null = all time) to (inclusive). */
export interface StatsWindow {
  readonly user: UserId
  readonly from: Date | null
  readonly to: Date
}

export interface Totals {
  readonly kind: "track" | "album" | "artist" | "total"
  readonly id: string | null
  readonly plays: number
  readonly skips: number
  readonly listened_ms: number
}

/**
 * The aggregates behind GET /api/me/listening-stats, each one statement over the caller's plays, read through
 * play_events_user_started_idx (user_id, started_at). Listened time follows core `listenedMsOf`; top lists and
 * the clock count unskipped plays.
 */
export class ListeningStatsRepository extends Effect.Service<ListeningStatsRepository>()(
  "@tonearm/server/ListeningStatsRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /** A play's listened time (core `listenedMsOf`). */
      const listenedMs = sql.literal(`coalesce(p.duration_played_ms::float8,
        least(extract(epoch FROM p.ended_at - p.started_at) * 1000, p.track_duration_ms::float8), 0)`)
      const inWindow = (window: StatsWindow) =>
        sql`p.user_id = ${window.user} AND p.started_at <= ${window.to}
            ${window.from === null ? sql`` : sql`AND p.started_at >= ${window.from}`}`
      /** The window's plays, with each play's listened time. */
      const windowPlays = (window: StatsWindow) => sql`
        SELECT p.track_id, p.skipped, p.started_at, ${listenedMs} AS listened_ms
        FROM play_events p WHERE ${inWindow(window)}`

      /**
       * The totals and the `limit` best tracks, albums and artists in one pass over the window's plays (grouping
       * sets, straight from the index scan), ranked by unskipped plays, then listened time, then id.
       */
      const totals = (window: StatsWindow, limit: number) =>
        sql<Totals>`
          WITH g AS (
            SELECT CASE WHEN grouping(track_id) = 0 THEN 'track' WHEN grouping(album_id) = 0 THEN 'album'
                        WHEN grouping(artist_id) = 0 THEN 'artist' ELSE 'total' END AS kind,
                   coalesce(track_id, album_id, artist_id) AS id,
                   count(*) FILTER (WHERE NOT skipped)::int AS plays,
                   count(*) FILTER (WHERE skipped)::int AS skips,
                   coalesce(sum(${listenedMs}), 0)::float8 AS listened_ms
            FROM play_events p WHERE ${inWindow(window)}
            GROUP BY GROUPING SETS ((track_id), (album_id), (artist_id), ())
          )
          SELECT kind, id::text AS id, plays, skips, listened_ms FROM (
            SELECT g.*, row_number() OVER (PARTITION BY kind ORDER BY plays DESC, listened_ms DESC, id) AS rank
            FROM g WHERE kind = 'total' OR (id IS NOT NULL AND plays > 0)
          ) ranked WHERE rank <= ${limit} ORDER BY kind, rank`.pipe(orInternal("ListeningStatsRepository.totals"))

      /** The `limit` best genres (a track with several genres counts toward each). */
      const genres = (window: StatsWindow, limit: number) =>
        sql<{ genre: string; plays: number; listened_ms: number }>`
          WITH p AS (${windowPlays(window)})
          SELECT g.genre, count(*) FILTER (WHERE NOT p.skipped)::int AS plays,
                 coalesce(sum(p.listened_ms), 0)::float8 AS listened_ms
          FROM p JOIN track_genres g ON g.track_id = p.track_id
          GROUP BY g.genre HAVING count(*) FILTER (WHERE NOT p.skipped) > 0
          ORDER BY plays DESC, listened_ms DESC, g.genre LIMIT ${limit}`.pipe(
          orInternal("ListeningStatsRepository.genres"),
        )

      /** Unskipped plays per UTC bucket of CLOCK_BUCKET_MS; core `listeningClock` places them in the user's zone. */
      const clockBuckets = (window: StatsWindow) =>
        sql<{ bucket: number; plays: number }>`
          WITH p AS (${windowPlays(window)})
          SELECT floor(extract(epoch FROM started_at) * 1000 / ${CLOCK_BUCKET_MS})::float8 AS bucket, count(*)::int AS plays
          FROM p WHERE NOT skipped GROUP BY 1`.pipe(orInternal("ListeningStatsRepository.clockBuckets"))

      /**
       * Artists whose first play ever (a skip too: the user has heard them) falls in the window, newest first:
       * the `limit` newest with their unskipped plays in the window, and how many there are in all.
       */
      const discoveries = (window: StatsWindow, limit: number) =>
        sql<{ artist_id: string; first_played_at: Date; plays: number; total: number }>`
          SELECT artist_id::text, first_played_at, plays, count(*) OVER ()::int AS total FROM (
            SELECT artist_id, min(started_at) AS first_played_at,
                   count(*) FILTER (WHERE NOT skipped AND started_at <= ${window.to}
                     ${window.from === null ? sql`` : sql`AND started_at >= ${window.from}`})::int AS plays
            FROM play_events WHERE user_id = ${window.user} AND artist_id IS NOT NULL
            GROUP BY artist_id
          ) firsts
          WHERE first_played_at <= ${window.to} ${window.from === null ? sql`` : sql`AND first_played_at >= ${window.from}`}
          ORDER BY first_played_at DESC, artist_id LIMIT ${limit}`.pipe(
          orInternal("ListeningStatsRepository.discoveries"),
        )

      return { totals, genres, clockBuckets, discoveries } as const
    }),
  },
) {}
