import { SqlClient, type Statement } from "@effect/sql"
import { type PlaylistId, type SmartCondition, SmartRules, TrackId, type UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { daysBefore } from "../clock.js"
import { type Catalogue, catalogueIn } from "../db/libraryScope.js"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"
import { LibraryAccess } from "../library/LibraryAccess.js"

/** A smart playlist's stored row. */
export const SmartRecord = Schema.Struct({
  playlist_id: Schema.String,
  owner_id: Schema.String,
  rules: SmartRules,
  refreshed_at: Schema.DateTimeUtcFromDate,
})
export type SmartRecord = typeof SmartRecord.Type

/** What an evaluation needs besides the rules: whose library view, the instant, the random order's seed. */
export interface Evaluation {
  readonly owner: UserId
  readonly now: Date
  readonly seed: string
}

/** `contains` matches a substring literally: LIKE's own characters in the value are escaped. */
const likePattern = (value: string) => `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/**
 * Rules → SQL (the one place): every condition becomes a fragment over the owner's view of a track (`t` the
 * track, `al` its album, `ar` its artist, `s` the owner's plays of it, `r` the owner's rating of it); every value
 * travels as a parameter, and the only SQL text chosen from input is picked from the fixed tables below by a
 * value the schema already restricted.
 */
export class SmartPlaylistRepository extends Effect.Service<SmartPlaylistRepository>()(
  "@tonearm/server/SmartPlaylistRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const access = yield* LibraryAccess

      const NUMBER_OPS = { is: sql.literal("="), gt: sql.literal(">"), lt: sql.literal("<") } as const
      const ORDER = { asc: sql.literal("ASC NULLS LAST"), desc: sql.literal("DESC NULLS LAST") } as const

      const text = (column: Statement.Fragment, op: "is" | "is_not" | "contains" | "not_contains", value: string) => {
        switch (op) {
          case "is":
            return sql`lower(${column}) = lower(${value})`
          case "is_not":
            return sql`lower(${column}) <> lower(${value})`
          case "contains":
            return sql`${column} ILIKE ${likePattern(value)}`
          case "not_contains":
            return sql`${column} NOT ILIKE ${likePattern(value)}`
        }
      }

      const condition = (c: SmartCondition, at: Evaluation): Statement.Fragment => {
        switch (c.field) {
          case "genre": {
            // A track may carry several genres: `is` / `contains` ask for one that matches, the negations for none.
            const positive = c.op === "is" || c.op === "is_not" ? "is" : "contains"
            const match = sql`EXISTS (SELECT 1 FROM track_genres g WHERE g.track_id = t.id AND ${text(sql.literal("g.genre"), positive, c.value)})`
            return c.op === "is" || c.op === "contains" ? match : sql`NOT ${match}`
          }
          case "artist":
            return text(sql.literal("ar.name"), c.op, c.value)
          case "format":
            return text(sql.literal("t.file_format"), c.op, c.value)
          case "year":
            return c.op === "in_range"
              ? sql`al.year BETWEEN ${c.value.from} AND ${c.value.to}`
              : sql`(al.year > 0 AND al.year ${NUMBER_OPS[c.op]} ${c.value})`
          case "added": {
            const since = daysBefore(at.now, c.value)
            return c.op === "in_last_days" ? sql`t.added_at >= ${since}` : sql`t.added_at < ${since}`
          }
          case "play_count":
            return sql`COALESCE(s.plays, 0) ${NUMBER_OPS[c.op]} ${c.value}`
          case "last_played": {
            const since = daysBefore(at.now, c.value)
            return c.op === "in_last_days"
              ? sql`s.last_played >= ${since}`
              : sql`(s.last_played IS NULL OR s.last_played < ${since})`
          }
          case "liked": {
            const liked = sql`EXISTS (SELECT 1 FROM likes l WHERE l.user_id = ${at.owner} AND l.entity = 'track' AND l.entity_id = t.id)`
            return c.value ? liked : sql`NOT ${liked}`
          }
          case "rating":
            return sql`r.rating ${NUMBER_OPS[c.op]} ${c.value}`
        }
      }

      const where = (rules: SmartRules, at: Evaluation) => {
        if (rules.conditions.length === 0) return sql`TRUE`
        const parts = rules.conditions.map((c) => sql`(${condition(c, at)})`)
        return rules.match === "all" ? sql.and(parts) : sql.or(parts)
      }

      const orderBy = (rules: SmartRules, at: Evaluation) => {
        const dir = ORDER[rules.sort.order]
        switch (rules.sort.field) {
          case "random":
            return sql`md5(t.id::text || ${at.seed})`
          case "title":
            return sql`lower(t.title) ${dir}, t.id`
          case "artist":
            return sql`ar.sort_key ${dir}, al.year, al.title, t.disc_number, t.track_number, t.id`
          case "year":
            return sql`NULLIF(al.year, 0) ${dir}, ar.sort_key, t.id`
          case "added":
            return sql`t.added_at ${dir}, t.id`
          case "play_count":
            return sql`COALESCE(s.plays, 0) ${dir}, t.id`
          case "last_played":
            return sql`s.last_played ${dir}, t.id`
          case "rating":
            return sql`r.rating ${dir}, t.id`
        }
      }

      /**
       * The owner's view of the library: present tracks only (the `tracks` view leaves missing ones out), less the
       * tracks the owner flagged (quarantine), with the owner's play counts, last plays and ratings beside them.
       */
      const candidates = (c: Catalogue, rules: SmartRules, at: Evaluation) => sql`
        FROM ${c.tracks} t
        JOIN indexed_albums al ON al.id = t.album_id
        JOIN indexed_artists ar ON ar.id = t.artist_id
        LEFT JOIN (
          SELECT track_id, count(*) FILTER (WHERE NOT skipped)::int AS plays, max(started_at) AS last_played
          FROM play_events WHERE user_id = ${at.owner} GROUP BY track_id
        ) s ON s.track_id = t.id
        LEFT JOIN ratings r ON r.user_id = ${at.owner} AND r.entity = 'track' AND r.entity_id = t.id
        WHERE NOT EXISTS (
          SELECT 1 FROM quarantine q WHERE q.user_id = ${at.owner} AND q.resolved_at IS NULL AND q.track_id = t.id
        ) AND (${where(rules, at)})`

      /** The owner's catalogue: the libraries the owner hears (issue 27), whoever refreshes the playlist. */
      const ownersCatalogue = (at: Evaluation) =>
        Effect.map(access.forUserId(at.owner), (scope) => catalogueIn(sql, scope))

      /** The tracks the rules pick, in order, at most `rules.limit`, and how many matched before the limit. */
      const evaluate = (rules: SmartRules, at: Evaluation) =>
        Effect.flatMap(
          ownersCatalogue(at),
          (c) => sql<{ id: string; matching: number }>`
          SELECT t.id, count(*) OVER ()::int AS matching ${candidates(c, rules, at)}
          ORDER BY ${orderBy(rules, at)} LIMIT ${rules.limit}`,
        ).pipe(
          Effect.map((rows) => ({
            trackIds: rows.map((row) => TrackId.make(row.id)),
            matching: rows[0]?.matching ?? 0,
          })),
          orInternal("SmartPlaylistRepository.evaluate"),
        )

      /** How many tracks the rules match (before the limit). */
      const count = (rules: SmartRules, at: Evaluation) =>
        Effect.flatMap(
          ownersCatalogue(at),
          (c) => sql<{ n: number }>`SELECT count(*)::int AS n ${candidates(c, rules, at)}`,
        ).pipe(
          Effect.map((rows) => rows[0]?.n ?? 0),
          orInternal("SmartPlaylistRepository.count"),
        )

      const insert = (playlist: PlaylistId, owner: UserId, rules: SmartRules, now: Date) =>
        sql`INSERT INTO smart_playlists (playlist_id, owner_id, rules, refreshed_at)
            VALUES (${playlist}, ${owner}, ${JSON.stringify(rules)}::jsonb, ${now})`.pipe(
          Effect.asVoid,
          orInternal("SmartPlaylistRepository.insert"),
        )

      const setRules = (playlist: PlaylistId, rules: SmartRules) =>
        sql`UPDATE smart_playlists SET rules = ${JSON.stringify(rules)}::jsonb WHERE playlist_id = ${playlist}`.pipe(
          Effect.asVoid,
          orInternal("SmartPlaylistRepository.setRules"),
        )

      const markRefreshed = (playlist: PlaylistId, now: Date) =>
        sql`UPDATE smart_playlists SET refreshed_at = ${now} WHERE playlist_id = ${playlist}`.pipe(
          Effect.asVoid,
          orInternal("SmartPlaylistRepository.markRefreshed"),
        )

      const find = (playlist: PlaylistId) =>
        sql`SELECT playlist_id, owner_id, rules, refreshed_at FROM smart_playlists WHERE playlist_id = ${playlist}`.pipe(
          Effect.flatMap(decodeFirst(SmartRecord)),
          orInternal("SmartPlaylistRepository.find"),
        )

      const listByOwner = (owner: UserId) =>
        sql`SELECT playlist_id, owner_id, rules, refreshed_at FROM smart_playlists WHERE owner_id = ${owner}
            ORDER BY refreshed_at DESC, playlist_id`.pipe(
          Effect.flatMap(decodeRows(SmartRecord)),
          orInternal("SmartPlaylistRepository.listByOwner"),
        )

      return { evaluate, count, insert, setRules, markRefreshed, find, listByOwner } as const
    }),
    dependencies: [LibraryAccess.Default],
  },
) {}
