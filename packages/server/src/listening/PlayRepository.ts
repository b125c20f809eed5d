import { SqlClient } from "@effect/sql"
import { type ArtistId, PickKind, PlayEventId, type TrackId, type UserId } from "@tonearm/core"
import { Effect, Option, Schema } from "effect"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

const TrackFacts = Schema.Struct({
  duration_ms: Schema.Number,
  artist_id: Schema.String,
  album_id: Schema.String,
})

export const PlayRecord = Schema.Struct({
  id: PlayEventId,
  track_id: Schema.String,
  track_duration_ms: Schema.Number,
  started_at: Schema.DateTimeUtcFromDate,
  ended_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  duration_played_ms: Schema.NullOr(Schema.Number),
  skipped: Schema.Boolean,
  source: Schema.NullOr(Schema.String),
  pick_kind: Schema.NullOr(PickKind),
  device_class: Schema.NullOr(Schema.String),
  client_id: Schema.String,
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

const MetricsRow = Schema.Struct({
  source: Schema.NullOr(Schema.String),
  pick_kind: Schema.NullOr(PickKind),
  skipped: Schema.Boolean,
  completion: Schema.NullOr(Schema.Number),
})

export class PlayRepository extends Effect.Service<PlayRepository>()("@tonearm/server/PlayRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const trackFacts = (trackId: TrackId) =>
      sql`SELECT duration_ms, artist_id, album_id FROM tracks WHERE id = ${trackId}`.pipe(
        Effect.flatMap(decodeFirst(TrackFacts)),
        orInternal("PlayRepository.trackFacts"),
      )

    const accountCreatedAt = (userId: UserId) =>
      sql<{ created_at: Date }>`SELECT created_at FROM users WHERE id = ${userId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]?.created_at)),
        orInternal("PlayRepository.accountCreatedAt"),
      )

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

    const finish = (
      id: PlayEventId,
      end: { endedAt: Date; durationPlayedMs: number; skipped: boolean; completion: number | null },
    ) =>
      sql`
        UPDATE play_events SET ended_at = GREATEST(started_at, ${end.endedAt}),
          duration_played_ms = ${end.durationPlayedMs}, skipped = ${end.skipped}, completion = ${end.completion}
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("PlayRepository.finish"))

    /** The pick kind of a track in the user's current snapshot of a system playlist; None when absent. */
    const snapshotPickKind = (userId: UserId, variant: string, trackId: TrackId) =>
      sql<{ pick_kind: string | null }>`
        SELECT pt.pick_kind FROM playlists p JOIN playlist_tracks pt ON pt.playlist_id = p.id
        WHERE p.owner_id = ${userId} AND p.system_variant = ${variant} AND pt.track_id = ${trackId}
        ORDER BY pt.position LIMIT 1`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(Schema.NullOr(PickKind))(rows[0]?.pick_kind ?? null)),
        orInternal("PlayRepository.snapshotPickKind"),
      )

    /** The rotation state's set stays unique. */
    const appendRotation = (userId: UserId, kind: string, trackId: TrackId, now: Date) =>
      sql`
        INSERT INTO rotation_states (user_id, playlist_kind, played_track_ids, rotation_started_at, updated_at)
        VALUES (${userId}, ${kind}, ARRAY[${trackId}]::uuid[], ${now}, ${now})
        ON CONFLICT (user_id, playlist_kind) DO UPDATE SET
          played_track_ids = CASE WHEN ${trackId}::uuid = ANY(rotation_states.played_track_ids)
                                  THEN rotation_states.played_track_ids
                                  ELSE rotation_states.played_track_ids || ${trackId}::uuid END,
          updated_at = EXCLUDED.updated_at`.pipe(Effect.asVoid, orInternal("PlayRepository.appendRotation"))

    /** Newest first, keyset-paged on (started_at, id). */
    const history = (userId: UserId, before: { startedAt: Date; id: string } | null, limit: number) =>
      (before === null
        ? sql`SELECT * FROM play_events WHERE user_id = ${userId} ORDER BY started_at DESC, id DESC LIMIT ${limit}`
        : sql`SELECT * FROM play_events WHERE user_id = ${userId} AND (started_at, id) < (${before.startedAt}, ${before.id}::uuid)
              ORDER BY started_at DESC, id DESC LIMIT ${limit}`
      ).pipe(Effect.flatMap(decodeRows(PlayRecord)), orInternal("PlayRepository.history"))

    /** The user's most-played tracks of an artist, skips excluded, still in the library. */
    const topTracks = (userId: UserId, artistId: ArtistId, limit: number) =>
      sql<{ track_id: string }>`
        SELECT p.track_id FROM play_events p JOIN tracks t ON t.id = p.track_id
        WHERE p.user_id = ${userId} AND t.artist_id = ${artistId} AND NOT p.skipped
        GROUP BY p.track_id ORDER BY count(*) DESC, max(p.started_at) DESC, p.track_id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => row.track_id)),
        orInternal("PlayRepository.topTracks"),
      )

    /** Plays inside the metrics window. */
    const metricsRows = (userId: UserId, since: Date) =>
      sql`SELECT source, pick_kind, skipped, completion FROM play_events WHERE user_id = ${userId} AND started_at >= ${since}`.pipe(
        Effect.flatMap(decodeRows(MetricsRow)),
        orInternal("PlayRepository.metricsRows"),
      )

    return {
      trackFacts,
      accountCreatedAt,
      lockUser,
      closeOpen,
      insert,
      find,
      finish,
      snapshotPickKind,
      appendRotation,
      history,
      topTracks,
      metricsRows,
    } as const
  }),
}) {}
