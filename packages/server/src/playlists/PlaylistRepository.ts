import { SqlClient } from "@effect/sql"
import { PickKind, PlaylistEntryId, PlaylistId, TrackId, UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

export const PlaylistRecord = Schema.Struct({
  id: PlaylistId,
  owner_id: UserId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  system_variant: Schema.NullOr(Schema.String),
  updated_at: Schema.DateTimeUtcFromDate,
  track_count: Schema.Number,
  duration_ms: Schema.Number,
})
export type PlaylistRecord = typeof PlaylistRecord.Type

export const EntryRecord = Schema.Struct({
  entry_id: PlaylistEntryId,
  track_id: Schema.String,
  position: Schema.Number,
  pick_kind: Schema.NullOr(PickKind),
})
export type EntryRecord = typeof EntryRecord.Type

/** Counts only entries whose track is still in the library. */
const SELECT_PLAYLIST = `
  SELECT p.id, p.owner_id, p.name, p.description, p.system_variant, p.updated_at,
         count(t.id)::int AS track_count, COALESCE(sum(t.duration_ms), 0)::float8 AS duration_ms
  FROM playlists p
  LEFT JOIN playlist_tracks pt ON pt.playlist_id = p.id
  LEFT JOIN tracks t ON t.id = pt.track_id`

export class PlaylistRepository extends Effect.Service<PlaylistRepository>()("@tonearm/server/PlaylistRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const select = sql.literal(SELECT_PLAYLIST)

    const listByOwner = (ownerId: UserId) =>
      sql`${select} WHERE p.owner_id = ${ownerId} GROUP BY p.id
          ORDER BY (p.system_variant IS NOT NULL), p.updated_at DESC, p.id`.pipe(
        Effect.flatMap(decodeRows(PlaylistRecord)),
        orInternal("PlaylistRepository.listByOwner"),
      )

    const find = (id: PlaylistId) =>
      sql`${select} WHERE p.id = ${id} GROUP BY p.id`.pipe(
        Effect.flatMap(decodeFirst(PlaylistRecord)),
        orInternal("PlaylistRepository.find"),
      )

    const findSystem = (ownerId: UserId, variant: string) =>
      sql`${select} WHERE p.owner_id = ${ownerId} AND p.system_variant = ${variant} GROUP BY p.id`.pipe(
        Effect.flatMap(decodeFirst(PlaylistRecord)),
        orInternal("PlaylistRepository.findSystem"),
      )

    const insert = (input: {
      readonly ownerId: UserId
      readonly name: string
      readonly description: string | null
      readonly systemVariant: string | null
      readonly now: Date
    }) =>
      sql<{ id: string }>`
        INSERT INTO playlists (owner_id, name, description, system_variant, created_at, updated_at)
        VALUES (${input.ownerId}, ${input.name}, ${input.description}, ${input.systemVariant}, ${input.now}, ${input.now})
        ON CONFLICT DO NOTHING
        RETURNING id`.pipe(
        Effect.map((rows) => rows[0]?.id),
        orInternal("PlaylistRepository.insert"),
      )

    /** `undefined` keeps a field; null clears the description. */
    const update = (
      id: PlaylistId,
      patch: { name?: string | undefined; description?: string | null | undefined },
      now: Date,
    ) =>
      sql`
        UPDATE playlists SET
          name = COALESCE(${patch.name ?? null}::text, name),
          description = CASE WHEN ${patch.description !== undefined} THEN ${patch.description ?? null}::text ELSE description END,
          updated_at = ${now}
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("PlaylistRepository.update"))

    const touch = (id: PlaylistId, now: Date) =>
      sql`UPDATE playlists SET updated_at = ${now} WHERE id = ${id}`.pipe(
        Effect.asVoid,
        orInternal("PlaylistRepository.touch"),
      )

    /** Entry ids of the playlist, then the playlist itself. */
    const remove = (id: PlaylistId) =>
      Effect.gen(function* () {
        const entries = yield* sql<{ id: string }>`SELECT id FROM playlist_tracks WHERE playlist_id = ${id}`
        yield* sql`DELETE FROM playlists WHERE id = ${id}`
        return entries.map((row) => row.id)
      }).pipe(orInternal("PlaylistRepository.remove"))

    const entries = (id: PlaylistId) =>
      sql`SELECT id AS entry_id, track_id, position, pick_kind FROM playlist_tracks
          WHERE playlist_id = ${id} ORDER BY position, id`.pipe(
        Effect.flatMap(decodeRows(EntryRecord)),
        orInternal("PlaylistRepository.entries"),
      )

    /** Ids among these that are not tracks of the library. */
    const missingTracks = (ids: ReadonlyArray<TrackId>) =>
      sql<{ id: string }>`
        SELECT wanted.id FROM unnest(${[...ids]}::uuid[]) AS wanted (id)
        WHERE NOT EXISTS (SELECT 1 FROM tracks t WHERE t.id = wanted.id)`.pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        orInternal("PlaylistRepository.missingTracks"),
      )

    /** Writes the whole ordered list of entries: existing ids keep their row, new ones are inserted. */
    const writeEntries = (
      id: PlaylistId,
      ordered: ReadonlyArray<{
        readonly entry_id?: string
        readonly track_id: string
        readonly pick_kind: PickKind | null
      }>,
      now: Date,
    ) =>
      Effect.gen(function* () {
        const keep = ordered.flatMap((entry) => (entry.entry_id === undefined ? [] : [entry.entry_id]))
        const removed = yield* sql<{ id: string }>`
          DELETE FROM playlist_tracks WHERE playlist_id = ${id} AND NOT (id = ANY(${keep}::uuid[])) RETURNING id`
        const written = yield* sql<{ id: string }>`
          INSERT INTO playlist_tracks (id, playlist_id, track_id, position, pick_kind, added_at)
          SELECT COALESCE(entry.id, gen_random_uuid()), ${id}, entry.track_id, entry.position - 1, entry.pick_kind, ${now}
          FROM unnest(${ordered.map((entry) => entry.entry_id ?? null)}::uuid[],
                      ${ordered.map((entry) => entry.track_id)}::uuid[],
                      ${ordered.map((entry) => entry.pick_kind)}::text[]) WITH ORDINALITY
               AS entry (id, track_id, pick_kind, position)
          ON CONFLICT (id) DO UPDATE SET position = EXCLUDED.position
          RETURNING id`
        return { removed: removed.map((row) => row.id), written: written.map((row) => row.id) }
      }).pipe(orInternal("PlaylistRepository.writeEntries"))

    /** Distinct albums with a cover, in playlist order. */
    const coverAlbums = (id: PlaylistId, limit: number) =>
      sql<{ album_id: string }>`
        SELECT album_id FROM (
          SELECT t.album_id, min(pt.position) AS first FROM playlist_tracks pt
          JOIN tracks t ON t.id = pt.track_id JOIN albums a ON a.id = t.album_id
          WHERE pt.playlist_id = ${id} AND a.cover_art_source IS NOT NULL
          GROUP BY t.album_id
        ) covered ORDER BY first LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map((row) => row.album_id)),
        orInternal("PlaylistRepository.coverAlbums"),
      )

    const rotationState = (userId: UserId, kind: string) =>
      sql<{ played_track_ids: Array<string> }>`
        SELECT played_track_ids FROM rotation_states WHERE user_id = ${userId} AND playlist_kind = ${kind}`.pipe(
        Effect.map((rows) => new Set((rows[0]?.played_track_ids ?? []).map((id) => TrackId.make(id)))),
        orInternal("PlaylistRepository.rotationState"),
      )

    /** A full rotation: the state starts over. */
    const resetRotation = (userId: UserId, kind: string, now: Date) =>
      sql`
        UPDATE rotation_states SET played_track_ids = '{}', rotation_started_at = ${now}, updated_at = ${now}
        WHERE user_id = ${userId} AND playlist_kind = ${kind}`.pipe(
        Effect.asVoid,
        orInternal("PlaylistRepository.resetRotation"),
      )

    const byIds = (ownerId: UserId, ids: ReadonlyArray<string>) =>
      sql`${select} WHERE p.owner_id = ${ownerId} AND p.id = ANY(${[...ids]}::uuid[]) GROUP BY p.id`.pipe(
        Effect.flatMap(decodeRows(PlaylistRecord)),
        orInternal("PlaylistRepository.byIds"),
      )

    const entriesByIds = (ownerId: UserId, ids: ReadonlyArray<string>) =>
      sql<{ entry_id: string; playlist_id: string; track_id: string; position: number; pick_kind: string | null }>`
        SELECT pt.id AS entry_id, pt.playlist_id, pt.track_id, pt.position, pt.pick_kind
        FROM playlist_tracks pt JOIN playlists p ON p.id = pt.playlist_id
        WHERE p.owner_id = ${ownerId} AND pt.id = ANY(${[...ids]}::uuid[])`.pipe(
        orInternal("PlaylistRepository.entriesByIds"),
      )

    return {
      byIds,
      entriesByIds,
      listByOwner,
      find,
      findSystem,
      insert,
      update,
      touch,
      remove,
      entries,
      missingTracks,
      writeEntries,
      coverAlbums,
      rotationState,
      resetRotation,
    } as const
  }),
}) {}
