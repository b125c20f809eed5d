import { SqlClient } from "@effect/sql"
import type { UserId } from "@tonearm/core"
import { Effect } from "effect"
import { orInternal } from "../db/sqlErrors.js"

export interface PlayStat {
  readonly id: string
  /** Unskipped plays. */
  readonly plays: number
  /** Epoch ms of the latest play of any kind. */
  readonly lastPlayedMs: number
}

/** What the home sections read from a user's listening history and latest snapshot. */
export class HomeRepository extends Effect.Service<HomeRepository>()("@tonearm/server/HomeRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Albums by unskipped plays, most first (ties: most recent first). */
    const mostPlayedAlbums = (user: UserId, limit: number) =>
      sql<{ album_id: string }>`
        SELECT p.album_id FROM play_events p JOIN albums a ON a.id = p.album_id
        WHERE p.user_id = ${user} AND NOT p.skipped
        GROUP BY p.album_id ORDER BY count(*) DESC, max(p.started_at) DESC, p.album_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => row.album_id)),
        orInternal("HomeRepository.mostPlayedAlbums"),
      )

    /** Albums by their latest play, newest first. */
    const lastPlayedAlbums = (user: UserId, limit: number) =>
      sql<{ album_id: string }>`
        SELECT p.album_id FROM play_events p JOIN albums a ON a.id = p.album_id
        WHERE p.user_id = ${user}
        GROUP BY p.album_id ORDER BY max(p.started_at) DESC, p.album_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => row.album_id)),
        orInternal("HomeRepository.lastPlayedAlbums"),
      )

    const stats = (column: "album_id" | "artist_id", user: UserId) =>
      sql<{ id: string; plays: number; last_played: Date }>`
        SELECT p.${sql(column)} AS id, count(*) FILTER (WHERE NOT p.skipped)::int AS plays, max(p.started_at) AS last_played
        FROM play_events p
        WHERE p.user_id = ${user} AND p.${sql(column)} IS NOT NULL
          AND EXISTS (SELECT 1 FROM ${sql(column === "album_id" ? "albums" : "artists")} e WHERE e.id = p.${sql(column)})
        GROUP BY p.${sql(column)}`.pipe(
        Effect.map((rows) =>
          rows.map((row): PlayStat => ({ id: row.id, plays: row.plays, lastPlayedMs: row.last_played.getTime() })),
        ),
        orInternal("HomeRepository.stats"),
      )

    const albumStats = (user: UserId) => stats("album_id", user)
    const artistStats = (user: UserId) => stats("artist_id", user)

    /** The snapshot's You-might-like row of one kind, in rank order. */
    const youMightLike = (user: UserId, kind: "album" | "artist") =>
      sql<{ entity_id: string }>`
        SELECT entity_id FROM you_might_like WHERE user_id = ${user} AND kind = ${kind} ORDER BY rank, entity_id`.pipe(
        Effect.map((rows) => rows.map((row) => row.entity_id)),
        orInternal("HomeRepository.youMightLike"),
      )

    return { mostPlayedAlbums, lastPlayedAlbums, albumStats, artistStats, youMightLike } as const
  }),
}) {}
