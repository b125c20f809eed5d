import { SqlClient } from "@effect/sql"
import {
  ArtistId,
  IMPORT_CLIENT_ID,
  PickKind,
  PlayEventId,
  PlayHistoryItem,
  type PlayStat,
  type TrackId,
  type UserId,
} from "@tonearm/core"
import { Effect, Schema } from "effect"
import { type Catalogue, catalogueIn } from "../db/libraryScope.js"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"
import { LibraryAccess } from "../library/LibraryAccess.js"
import { isTasteText } from "./tasteColumns.js"

/** A play row: the wire history item plus its end and the track's length when it was played. */
export const PlayRecord = Schema.Struct({
  ...PlayHistoryItem.fields,
  started_at: Schema.DateTimeUtcFromDate,
  ended_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  track_duration_ms: Schema.Number,
})
export type PlayRecord = typeof PlayRecord.Type

export interface NewPlay {
  readonly userId: UserId
  readonly trackId: TrackId
  readonly artistId: string
  readonly albumId: string
  readonly clientId: string
  readonly startedAt: Date
  readonly endedAt: Date | null
  readonly durationPlayedMs: number | null
  readonly trackDurationMs: number
  readonly skipped: boolean
  readonly completion: number | null
  readonly source: string | null
  readonly pickKind: PickKind | null
  readonly deviceClass: string | null
  readonly now: Date
}

/** One imported listen as a play: the rules (skip, completion, clamp) already applied by the caller. */
export interface ImportedPlay {
  readonly trackId: string
  readonly startedAtMs: number
  readonly playedMs: number
  readonly trackDurationMs: number
  readonly skipped: boolean
  readonly completion: number | null
}

/** One play as the export reads it. */
export interface ExportRow {
  readonly id: string
  readonly started_at: Date
  readonly duration_played_ms: number | null
  readonly track_duration_ms: number
  readonly track_id: string
  readonly source: string | null
  readonly skipped: boolean
  readonly title: string
  readonly mbid: string | null
  readonly artist: string
  readonly album: string
}

const MetricsRow = Schema.Struct({
  source: Schema.NullOr(Schema.String),
  pick_kind: Schema.NullOr(PickKind),
  skipped: Schema.Boolean,
  completion: Schema.NullOr(Schema.Number),
})

/** The aggregate's field types; the values are decoded by the engine's worker (`decodeTasteText`). */
const TasteTextRow = Schema.declare(isTasteText, { identifier: "TasteText" })

const TrendRow = Schema.Struct({
  user_id: Schema.String,
  artist_id: Schema.NullOr(ArtistId),
  started_at_ms: Schema.Number,
  source: Schema.NullOr(Schema.String),
  skipped: Schema.Boolean,
  completion: Schema.NullOr(Schema.Number),
  track_id: Schema.String,
  first_listen: Schema.Boolean,
})

export class PlayRepository extends Effect.Service<PlayRepository>()("@tonearm/server/PlayRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const access = yield* LibraryAccess
    /**
     * Runs a read over the current caller's catalogue (issue 27): plays of a track of a library the caller does not
     * hear stay stored (taste is built from every play) but are not shown to them.
     */
    const inScope = <A, E, R>(read: (c: Catalogue) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(access.current, (scope) => read(catalogueIn(sql, scope)))

    /** Serialises one user's play writes, so "a new play closes the open one" holds under concurrency. */
    const lockUser = (userId: UserId) =>
      sql`SELECT pg_advisory_xact_lock(hashtext(${`plays:${userId}`}))`.pipe(
        Effect.asVoid,
        orInternal("PlayRepository.lockUser"),
      )

    /** An open play closed by a newer one counts as a play with no completion value (not a skip). */
    const closeOpen = (userId: UserId, at: Date) =>
      sql`UPDATE play_events SET ended_at = GREATEST(started_at, ${at}) WHERE user_id = ${userId} AND ended_at IS NULL`.pipe(
        Effect.asVoid,
        orInternal("PlayRepository.closeOpen"),
      )

    const insert = (play: NewPlay) =>
      sql<{ id: string }>`
        INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
          duration_played_ms, track_duration_ms, skipped, completion, source, pick_kind, device_class, created_at)
        VALUES (${play.userId}, ${play.trackId}, ${play.artistId}, ${play.albumId}, ${play.clientId}, ${play.startedAt},
          ${play.endedAt}, ${play.durationPlayedMs}, ${play.trackDurationMs}, ${play.skipped}, ${play.completion},
          ${play.source}, ${play.pickKind}, ${play.deviceClass}, ${play.now})
        RETURNING id`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(PlayEventId)(rows[0]!.id)),
        orInternal("PlayRepository.insert"),
      )

    /** The caller's own play, or None (another user's id is "not found"). */
    const find = (userId: UserId, id: PlayEventId) =>
      sql`SELECT * FROM play_events WHERE id = ${id} AND user_id = ${userId}`.pipe(
        Effect.flatMap(decodeFirst(PlayRecord)),
        orInternal("PlayRepository.find"),
      )

    /**
     * Records a play's end; true when it did. With `onlyOpen` only a play no end was recorded for yet changes: the
     * check and the write are one statement, so of concurrent ends exactly one wins (issue 29).
     */
    const finish = (
      id: PlayEventId,
      end: { endedAt: Date; durationPlayedMs: number; skipped: boolean; completion: number | null },
      onlyOpen: boolean,
    ) =>
      sql`
        UPDATE play_events SET ended_at = GREATEST(started_at, ${end.endedAt}),
          duration_played_ms = ${end.durationPlayedMs}, skipped = ${end.skipped}, completion = ${end.completion}
        WHERE id = ${id} AND (${!onlyOpen} OR duration_played_ms IS NULL) RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("PlayRepository.finish"),
      )

    /** The user's latest play of this track still open (started, no end reported yet). */
    const openPlayOf = (userId: UserId, trackId: TrackId) =>
      sql`SELECT * FROM play_events WHERE user_id = ${userId} AND track_id = ${trackId}
          AND ended_at IS NULL AND duration_played_ms IS NULL ORDER BY started_at DESC LIMIT 1`.pipe(
        Effect.flatMap(decodeFirst(PlayRecord)),
        orInternal("PlayRepository.openPlayOf"),
      )

    /** Every user's open plays started since `since`, newest first, with the listener's name (now playing). */
    const openPlaysSince = (since: Date) =>
      inScope(
        (c) => sql<{ user_id: string; username: string; track_id: string; client_id: string; started_at: Date }>`
        SELECT p.user_id, u.username, p.track_id, p.client_id, p.started_at
        FROM play_events p JOIN users u ON u.id = p.user_id JOIN ${c.tracks} t ON t.id = p.track_id
        WHERE p.ended_at IS NULL AND p.started_at >= ${since} ORDER BY p.started_at DESC LIMIT 100`,
      ).pipe(orInternal("PlayRepository.openPlaysSince"))

    /** Newest first, keyset-paged on (started_at, id). */
    const history = (userId: UserId, before: { startedAt: Date; id: string } | null, limit: number) =>
      inScope((c) => {
        // A listener limited to some libraries sees the plays of their tracks; the others stay stored.
        const heard = c.whole ? sql`` : sql`AND EXISTS (SELECT 1 FROM ${c.tracks} t WHERE t.id = play_events.track_id)`
        return before === null
          ? sql`SELECT * FROM play_events WHERE user_id = ${userId} ${heard}
                ORDER BY started_at DESC, id DESC LIMIT ${limit}`
          : sql`SELECT * FROM play_events WHERE user_id = ${userId} ${heard}
                AND (started_at, id) < (${before.startedAt}, ${before.id}::uuid)
                ORDER BY started_at DESC, id DESC LIMIT ${limit}`
      }).pipe(Effect.flatMap(decodeRows(PlayRecord)), orInternal("PlayRepository.history"))

    /** The user's most-played tracks of an artist, skips excluded, still in the library. */
    const topTracks = (userId: UserId, artistId: ArtistId, limit: number) =>
      inScope(
        (c) => sql<{ track_id: string }>`
        SELECT p.track_id FROM play_events p JOIN ${c.tracks} t ON t.id = p.track_id
        WHERE p.user_id = ${userId} AND t.artist_id = ${artistId} AND NOT p.skipped
        GROUP BY p.track_id ORDER BY count(*) DESC, max(p.started_at) DESC, p.track_id LIMIT ${limit}`,
      ).pipe(
        Effect.map((rows) => rows.map((row) => row.track_id)),
        orInternal("PlayRepository.topTracks"),
      )

    /**
     * The user's plays summed per album and per artist still in the library, in one statement (Home reads both,
     * and ranks its sections from them: `rankMostPlayed`, `rankLastPlayed`, Rediscover).
     */
    const playStats = (user: UserId) =>
      inScope(
        (c) => sql<{
          kind: "album" | "artist"
          id: string
          plays: number
          last_played: Date
          last_unskipped: Date | null
        }>`
        SELECT 'album' AS kind, p.album_id AS id, count(*) FILTER (WHERE NOT p.skipped)::int AS plays,
               max(p.started_at) AS last_played, max(p.started_at) FILTER (WHERE NOT p.skipped) AS last_unskipped
        FROM play_events p
        WHERE p.user_id = ${user} AND p.album_id IS NOT NULL AND EXISTS (SELECT 1 FROM ${c.albums} e WHERE e.id = p.album_id)
        GROUP BY p.album_id
        UNION ALL
        SELECT 'artist', p.artist_id, count(*) FILTER (WHERE NOT p.skipped)::int, max(p.started_at),
               max(p.started_at) FILTER (WHERE NOT p.skipped)
        FROM play_events p
        WHERE p.user_id = ${user} AND p.artist_id IS NOT NULL
          AND EXISTS (SELECT 1 FROM ${c.artists} e WHERE e.id = p.artist_id)
        GROUP BY p.artist_id`,
      ).pipe(
        Effect.map((rows) => {
          const albums: Array<PlayStat> = []
          const artists: Array<PlayStat> = []
          for (const row of rows)
            (row.kind === "album" ? albums : artists).push({
              id: row.id,
              plays: row.plays,
              lastPlayedMs: row.last_played.getTime(),
              lastUnskippedMs: row.last_unskipped === null ? null : row.last_unskipped.getTime(),
            })
          return { albums, artists }
        }),
        orInternal("PlayRepository.playStats"),
      )

    /**
     * All of a user's plays in time order, as columns (one row: ids and the nullable texts as JSON arrays, the
     * floats as float8 bytes, the skip flags as a 0/1 string) — a NULL completion travels as NaN.
     * Left undecoded here: the engine's worker decodes it (`decodeTasteText`), off the HTTP event loop.
     */
    const tasteRows = (userId: UserId) =>
      sql`
        SELECT count(*)::int AS plays,
               coalesce(json_agg(track_id)::text, '[]') AS track_ids,
               coalesce(string_agg(float8send((extract(epoch FROM started_at) * 1000)::float8), ''::bytea), ''::bytea) AS started_at,
               coalesce(string_agg(CASE WHEN skipped THEN '1' ELSE '0' END, ''), '') AS skipped,
               coalesce(string_agg(float8send(coalesce(completion::float8, 'NaN')), ''::bytea), ''::bytea) AS completion,
               coalesce(json_agg(device_class)::text, '[]') AS device_class,
               coalesce(json_agg(source)::text, '[]') AS source,
               coalesce(json_agg(pick_kind)::text, '[]') AS pick_kind
        FROM (SELECT * FROM play_events WHERE user_id = ${userId} ORDER BY started_at, id) p`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(TasteTextRow)(rows[0])),
        orInternal("PlayRepository.tasteRows"),
      )

    /** Unskipped plays per track by everyone since `since` (popularity and the Discover cross-user bucket). */
    const playCountsSince = (since: Date) =>
      sql<{ track_id: TrackId; plays: number }>`
        SELECT track_id, count(*)::int AS plays FROM play_events
        WHERE started_at >= ${since} AND NOT skipped GROUP BY track_id`.pipe(
        orInternal("PlayRepository.playCountsSince"),
      )

    /** Every listener's unskipped plays per artist since `since` (co-listening similarity between artists). */
    const artistPlaysByListener = (since: Date) =>
      sql<{ user_id: string; artist_id: ArtistId; plays: number }>`
        SELECT user_id, artist_id, count(*)::int AS plays FROM play_events
        WHERE started_at >= ${since} AND NOT skipped AND artist_id IS NOT NULL
        GROUP BY user_id, artist_id`.pipe(orInternal("PlayRepository.artistPlaysByListener"))

    /** Plays inside the metrics window. */
    const metricsRows = (userId: UserId, since: Date) =>
      sql`SELECT source, pick_kind, skipped, completion FROM play_events WHERE user_id = ${userId} AND started_at >= ${since}`.pipe(
        Effect.flatMap(decodeRows(MetricsRow)),
        orInternal("PlayRepository.metricsRows"),
      )

    /** Every user's plays since `since` (recommendation trends; identity never leaves the server). */
    const trendRowsSince = (since: Date) =>
      sql`
        SELECT user_id, artist_id, (extract(epoch FROM started_at) * 1000)::float8 AS started_at_ms, source, skipped,
               completion::float8 AS completion, track_id,
               NOT EXISTS (SELECT 1 FROM play_events earlier
                           WHERE earlier.user_id = p.user_id AND earlier.track_id = p.track_id
                             AND earlier.started_at < p.started_at) AS first_listen
        FROM play_events p WHERE started_at >= ${since}`.pipe(
        Effect.flatMap(decodeRows(TrendRow)),
        orInternal("PlayRepository.trendRowsSince"),
      )

    /**
     * Imported listens in one statement (issue 26): a listen is a duplicate when the user already has a play of the
     * same track starting in the same second, from any source (checked here), or from another import (the unique
     * index `play_events_import_second_idx`, so two imports at once cannot both add it). Answers how many it added.
     */
    const insertImported = (userId: UserId, source: string, rows: ReadonlyArray<ImportedPlay>, now: Date) =>
      rows.length === 0
        ? Effect.succeed(0)
        : sql<{ n: number }>`
        WITH added AS (
          INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at,
            duration_played_ms, track_duration_ms, skipped, completion, source, created_at)
          SELECT ${userId}, x.track_id, t.artist_id, t.album_id, ${IMPORT_CLIENT_ID}, x.started_at,
                 x.started_at + x.played * interval '1 millisecond', x.played, x.length, x.skipped, x.completion,
                 ${source}, ${now}
          FROM unnest(${rows.map((row) => row.trackId)}::uuid[], ${rows.map((row) => new Date(row.startedAtMs).toISOString())}::timestamptz[],
                      ${rows.map((row) => row.playedMs)}::int[], ${rows.map((row) => row.trackDurationMs)}::int[],
                      ${rows.map((row) => row.skipped)}::bool[], ${rows.map((row) => row.completion)}::real[])
               AS x (track_id, started_at, played, length, skipped, completion)
          JOIN tracks t ON t.id = x.track_id
          WHERE NOT EXISTS (
            SELECT 1 FROM play_events p WHERE p.user_id = ${userId} AND p.track_id = x.track_id
              AND p.started_at >= date_trunc('second', x.started_at)
              AND p.started_at < date_trunc('second', x.started_at) + interval '1 second')
          ON CONFLICT DO NOTHING
          RETURNING 1)
        SELECT count(*)::int AS n FROM added`.pipe(
            Effect.map((result) => result[0]?.n ?? 0),
            orInternal("PlayRepository.insertImported"),
          )

    /** The user's plays oldest first after (started_at, id), with what an export line says of each track. */
    const exportPage = (userId: UserId, after: { startedAt: Date; id: string } | null, limit: number) =>
      inScope((c) => {
        // Like the history: a listener limited to some libraries exports the plays of their tracks.
        const heard = c.whole ? sql`` : sql`AND EXISTS (SELECT 1 FROM ${c.tracks} h WHERE h.id = p.track_id)`
        return after === null
          ? sql<ExportRow>`
          SELECT p.id, p.started_at, p.duration_played_ms, p.track_duration_ms, p.track_id, p.source, p.skipped,
                 t.title, t.mbid, a.name AS artist, al.title AS album
          FROM play_events p JOIN indexed_tracks t ON t.id = p.track_id JOIN indexed_artists a ON a.id = t.artist_id
          JOIN indexed_albums al ON al.id = t.album_id
          WHERE p.user_id = ${userId} ${heard} ORDER BY p.started_at, p.id LIMIT ${limit}`
          : sql<ExportRow>`
          SELECT p.id, p.started_at, p.duration_played_ms, p.track_duration_ms, p.track_id, p.source, p.skipped,
                 t.title, t.mbid, a.name AS artist, al.title AS album
          FROM play_events p JOIN indexed_tracks t ON t.id = p.track_id JOIN indexed_artists a ON a.id = t.artist_id
          JOIN indexed_albums al ON al.id = t.album_id
          WHERE p.user_id = ${userId} ${heard} AND (p.started_at, p.id) > (${after.startedAt}, ${after.id}::uuid)
          ORDER BY p.started_at, p.id LIMIT ${limit}`
      }).pipe(orInternal("PlayRepository.exportPage"))

    return {
      lockUser,
      closeOpen,
      insert,
      find,
      finish,
      history,
      topTracks,
      openPlayOf,
      openPlaysSince,
      playStats,
      metricsRows,
      tasteRows,
      playCountsSince,
      artistPlaysByListener,
      trendRowsSince,
      insertImported,
      exportPage,
    } as const
  }),
  dependencies: [LibraryAccess.Default],
}) {}
