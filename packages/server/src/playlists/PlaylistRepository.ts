import { SqlClient } from "@effect/sql"
import {
  type AlbumId,
  PickKind,
  type PickReason,
  PlaylistDetail,
  PlaylistEntry,
  type PlaylistEntryId,
  PlaylistId,
  PlaylistRowFields,
  type SystemVariant,
  TrackId,
  UserId,
} from "@tonearm/core"
import { Effect, Schema, Struct } from "effect"
import { type Catalogue, catalogueIn } from "../db/libraryScope.js"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"
import { LibraryAccess } from "../library/LibraryAccess.js"

/** A playlist row: the wire row view (less the derived `refreshable`) with its owner and description. */
export const PlaylistRecord = Schema.Struct({
  ...Struct.omit(PlaylistRowFields, "refreshable", "locked"),
  owner_id: UserId,
  description: PlaylistDetail.fields.description,
  updated_at: Schema.DateTimeUtcFromDate,
})
export type PlaylistRecord = typeof PlaylistRecord.Type

/** An entry row: the wire entry with the track's id where the wire has the track. */
export const EntryRecord = Schema.Struct({ ...Struct.omit(PlaylistEntry.fields, "track"), track_id: TrackId })
export type EntryRecord = typeof EntryRecord.Type

/** One system playlist as a rebuild writes it; a withheld mix has a `lockedReason` and no picks. */
export interface SystemSnapshot {
  readonly variant: SystemVariant
  readonly name: string
  readonly lockedReason: string | null
  /** The playlist's description: the starter-mix label before the cold-start gate (issue 28), else none. */
  readonly description?: string | null | undefined
  readonly picks: ReadonlyArray<{
    readonly track_id: TrackId
    readonly pick_kind: PickKind | null
    readonly reason?: PickReason | null | undefined
  }>
}

/** Counts only entries whose track is still in the library and one of the caller's libraries. */
const SELECT_PLAYLIST = `
  SELECT p.id, p.owner_id, p.name, p.description, p.system_variant, p.locked_reason, p.updated_at,
         EXISTS (SELECT 1 FROM smart_playlists sp WHERE sp.playlist_id = p.id) AS smart,
         count(t.id)::int AS track_count, COALESCE(sum(t.duration_ms), 0)::float8 AS duration_ms
  FROM playlists p
  LEFT JOIN playlist_tracks pt ON pt.playlist_id = p.id
  LEFT JOIN`

export class PlaylistRepository extends Effect.Service<PlaylistRepository>()("@tonearm/server/PlaylistRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const access = yield* LibraryAccess
    /**
     * Runs a read over the caller's catalogue (issue 27): an entry of a track of a library the caller does not hear
     * is not counted, not in the collage, and cannot be added; it stays stored (hidden, not removed).
     */
    const inScope = <A, E, R>(read: (c: Catalogue) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(access.current, (scope) => read(catalogueIn(sql, scope)))
    const head = sql.literal(SELECT_PLAYLIST)
    const selectIn = (c: Catalogue) => sql`${head} ${c.tracks} t ON t.id = pt.track_id`

    const listByOwner = (ownerId: UserId) =>
      inScope(
        (c) => sql`${selectIn(c)} WHERE p.owner_id = ${ownerId} GROUP BY p.id
          ORDER BY (p.system_variant IS NOT NULL), p.updated_at DESC, p.id`,
      ).pipe(Effect.flatMap(decodeRows(PlaylistRecord)), orInternal("PlaylistRepository.listByOwner"))

    const find = (id: PlaylistId) =>
      inScope((c) => sql`${selectIn(c)} WHERE p.id = ${id} GROUP BY p.id`).pipe(
        Effect.flatMap(decodeFirst(PlaylistRecord)),
        orInternal("PlaylistRepository.find"),
      )

    const findSystem = (ownerId: UserId, variant: SystemVariant) =>
      inScope(
        (c) => sql`${selectIn(c)} WHERE p.owner_id = ${ownerId} AND p.system_variant = ${variant} GROUP BY p.id`,
      ).pipe(Effect.flatMap(decodeFirst(PlaylistRecord)), orInternal("PlaylistRepository.findSystem"))

    const insert = (input: {
      readonly ownerId: UserId
      readonly name: string
      readonly description: string | null
      readonly systemVariant: SystemVariant | null
      readonly now: Date
    }) =>
      sql<{ id: string }>`
        INSERT INTO playlists (owner_id, name, description, system_variant, created_at, updated_at)
        VALUES (${input.ownerId}, ${input.name}, ${input.description}, ${input.systemVariant}, ${input.now}, ${input.now})
        ON CONFLICT DO NOTHING
        RETURNING id`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(Schema.UndefinedOr(PlaylistId))(rows[0]?.id)),
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

    /**
     * The playlist's row lock, taken first in every edit's transaction (issue 29 item 2): edits of one playlist then
     * run one after another, each reading the entries the previous one wrote, so none is lost or undone, positions
     * stay contiguous and no two edits deadlock. False when the playlist is gone.
     */
    const lockForEdit = (id: PlaylistId) =>
      sql<{ id: string }>`SELECT id FROM playlists WHERE id = ${id} FOR UPDATE`.pipe(
        Effect.map((rows) => rows.length > 0),
        orInternal("PlaylistRepository.lockForEdit"),
      )

    /** Entry ids of the playlist, then the playlist itself. */
    const remove = (id: PlaylistId) =>
      Effect.gen(function* () {
        const entries = yield* sql<{ id: string }>`SELECT id FROM playlist_tracks WHERE playlist_id = ${id}`
        yield* sql`DELETE FROM playlists WHERE id = ${id}`
        return entries.map((row) => row.id)
      }).pipe(orInternal("PlaylistRepository.remove"))

    const entries = (id: PlaylistId) =>
      sql`SELECT id AS entry_id, track_id, position, pick_kind, reason FROM playlist_tracks
          WHERE playlist_id = ${id} ORDER BY position, id`.pipe(
        Effect.flatMap(decodeRows(EntryRecord)),
        orInternal("PlaylistRepository.entries"),
      )

    /** Ids among these that are not tracks of the caller's libraries. */
    const missingTracks = (ids: ReadonlyArray<TrackId>) =>
      inScope(
        (c) => sql<{ id: string }>`
        SELECT wanted.id FROM unnest(${[...ids]}::uuid[]) AS wanted (id)
        WHERE NOT EXISTS (SELECT 1 FROM ${c.tracks} t WHERE t.id = wanted.id)`,
      ).pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        orInternal("PlaylistRepository.missingTracks"),
      )

    /** Writes the whole ordered list of entries: existing ids keep their row, new ones are inserted. */
    const writeEntries = (
      id: PlaylistId,
      ordered: ReadonlyArray<{
        readonly entry_id?: PlaylistEntryId
        readonly track_id: TrackId
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
      inScope(
        (c) => sql<{ album_id: AlbumId }>`
        SELECT album_id FROM (
          SELECT t.album_id, min(pt.position) AS first FROM playlist_tracks pt
          JOIN ${c.tracks} t ON t.id = pt.track_id JOIN ${c.albums} a ON a.id = t.album_id
          WHERE pt.playlist_id = ${id} AND a.cover_art_source IS NOT NULL
          GROUP BY t.album_id
        ) covered ORDER BY first LIMIT ${limit}`,
      ).pipe(
        Effect.map((rows) => rows.map((row) => row.album_id)),
        orInternal("PlaylistRepository.coverAlbums"),
      )

    /** The pick kind of a track in the user's current snapshot of a system playlist; None when absent. */
    const snapshotPickKind = (userId: UserId, variant: SystemVariant, trackId: TrackId) =>
      sql<{ pick_kind: string | null }>`
        SELECT pt.pick_kind FROM playlists p JOIN playlist_tracks pt ON pt.playlist_id = p.id
        WHERE p.owner_id = ${userId} AND p.system_variant = ${variant} AND pt.track_id = ${trackId}
        ORDER BY pt.position LIMIT 1`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(Schema.NullOr(PickKind))(rows[0]?.pick_kind ?? null)),
        orInternal("PlaylistRepository.snapshotPickKind"),
      )

    /** The rotation state's set stays unique. */
    const appendRotation = (userId: UserId, kind: SystemVariant, trackId: TrackId, now: Date) =>
      sql`
        INSERT INTO rotation_states (user_id, playlist_kind, played_track_ids, rotation_started_at, updated_at)
        VALUES (${userId}, ${kind}, ARRAY[${trackId}]::uuid[], ${now}, ${now})
        ON CONFLICT (user_id, playlist_kind) DO UPDATE SET
          played_track_ids = CASE WHEN ${trackId}::uuid = ANY(rotation_states.played_track_ids)
                                  THEN rotation_states.played_track_ids
                                  ELSE rotation_states.played_track_ids || ${trackId}::uuid END,
          updated_at = EXCLUDED.updated_at`.pipe(Effect.asVoid, orInternal("PlaylistRepository.appendRotation"))

    const rotationState = (userId: UserId, kind: SystemVariant) =>
      sql<{ played_track_ids: Array<string> }>`
        SELECT played_track_ids FROM rotation_states WHERE user_id = ${userId} AND playlist_kind = ${kind}`.pipe(
        Effect.map((rows) => new Set((rows[0]?.played_track_ids ?? []).map((id) => TrackId.make(id)))),
        orInternal("PlaylistRepository.rotationState"),
      )

    /** A full rotation: the state starts over. */
    const resetRotation = (userId: UserId, kind: SystemVariant, now: Date) =>
      sql`
        UPDATE rotation_states SET played_track_ids = '{}', rotation_started_at = ${now}, updated_at = ${now}
        WHERE user_id = ${userId} AND playlist_kind = ${kind}`.pipe(
        Effect.asVoid,
        orInternal("PlaylistRepository.resetRotation"),
      )

    /**
     * A version 7 UUID (RFC 9562: the milliseconds since the epoch, then random bits) for a new snapshot entry:
     * one rebuild's entries sit side by side at the end of the primary key's index, where random ids put every
     * entry on a page of its own (each one a full-page image in the write-ahead log after a checkpoint). The random
     * bits come from gen_random_uuid(), whose hex digits 1–12 and 18–32 are all random.
     */
    const timeOrderedId = sql.literal(`(
      lpad(to_hex((extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0') || '7'
      || substr(replace(gen_random_uuid()::text, '-', ''), 1, 3) || to_hex(8 + floor(random() * 4)::int)
      || substr(replace(gen_random_uuid()::text, '-', ''), 18, 15))::uuid`)

    /**
     * Replaces the owner's system playlists with `snapshots` (inside the caller's transaction): each kind's
     * row is upserted, its entries rewritten in place (entry i keeps the id entry i had, so a daily rebuild
     * adds no rows to the sync log), and system playlists of kinds this rebuild no longer makes are deleted.
     */
    const replaceSystem = (ownerId: UserId, snapshots: ReadonlyArray<SystemSnapshot>, now: Date) =>
      Effect.gen(function* () {
        const before = yield* sql<{
          id: PlaylistId
          system_variant: string
          entry_id: string | null
          position: number | null
        }>`
          SELECT p.id, p.system_variant, pt.id AS entry_id, pt.position
          FROM playlists p LEFT JOIN playlist_tracks pt ON pt.playlist_id = p.id
          WHERE p.owner_id = ${ownerId} AND p.system_variant IS NOT NULL
          ORDER BY p.id, pt.position, pt.id`
        const oldEntries = new Map<string, Array<string>>()
        for (const row of before) {
          const list = oldEntries.get(row.system_variant) ?? []
          if (row.entry_id !== null) list.push(row.entry_id)
          oldEntries.set(row.system_variant, list)
        }
        const written = yield* sql<{ id: PlaylistId; system_variant: string }>`
          INSERT INTO playlists (owner_id, name, description, system_variant, locked_reason, created_at, updated_at)
          SELECT ${ownerId}, s.name, s.description, s.variant, s.locked_reason, ${now}, ${now}
          FROM unnest(${snapshots.map((s) => s.variant)}::text[], ${snapshots.map((s) => s.name)}::text[],
                      ${snapshots.map((s) => s.lockedReason)}::text[],
                      ${snapshots.map((s) => s.description ?? null)}::text[]) AS s (variant, name, locked_reason, description)
          ON CONFLICT (owner_id, system_variant) WHERE system_variant IS NOT NULL DO UPDATE SET
            name = EXCLUDED.name, locked_reason = EXCLUDED.locked_reason, description = EXCLUDED.description,
            updated_at = EXCLUDED.updated_at
          RETURNING id, system_variant`
        const idOf = new Map(written.map((row) => [row.system_variant, row.id]))
        // The entries travel as one JSON text (a nightly rebuild writes ~1,000 per user): serialised natively,
        // where array parameters are escaped element by element on the event loop.
        const newEntries: Array<{
          readonly id: string | null
          readonly playlist_id: string
          readonly track_id: string
          readonly position: number
          readonly pick_kind: string | null
          readonly reason: PickReason | null
        }> = []
        const removedEntries: Array<string> = []
        for (const snapshot of snapshots) {
          const reuse = oldEntries.get(snapshot.variant) ?? []
          const playlist = idOf.get(snapshot.variant)!
          snapshot.picks.forEach((pick, position) => {
            newEntries.push({
              id: reuse[position] ?? null,
              playlist_id: playlist,
              track_id: pick.track_id,
              position,
              pick_kind: pick.pick_kind,
              reason: pick.reason ?? null,
            })
          })
          removedEntries.push(...reuse.slice(snapshot.picks.length))
        }
        const kept = new Set<string>(snapshots.map((s) => s.variant))
        const stale = [...new Set(before.filter((row) => !kept.has(row.system_variant)).map((row) => row.id))]
        for (const row of before)
          if (!kept.has(row.system_variant) && row.entry_id !== null) removedEntries.push(row.entry_id)
        if (removedEntries.length > 0) yield* sql`DELETE FROM playlist_tracks WHERE id = ANY(${removedEntries}::uuid[])`
        if (stale.length > 0) yield* sql`DELETE FROM playlists WHERE id = ANY(${stale}::uuid[])`
        // Entries reusing a row are updated in place and new ones inserted plainly: an upsert probes the primary
        // key once more per entry (a fifth of a first build's time in PostgreSQL).
        const reused = newEntries.filter((entry) => entry.id !== null)
        const updated =
          reused.length === 0
            ? []
            : yield* sql<{ id: string }>`
                UPDATE playlist_tracks AS pt
                SET track_id = e.track_id, position = e.position, pick_kind = e.pick_kind, reason = e.reason,
                    added_at = ${now}
                FROM json_to_recordset(${JSON.stringify(reused)}::json)
                     AS e (id uuid, track_id uuid, position int, pick_kind text, reason jsonb)
                WHERE pt.id = e.id
                RETURNING pt.id`
        // A reused row removed meanwhile is written anew under its id, as the upsert this replaces did.
        const stillThere = new Set(updated.map((row) => row.id))
        const added = newEntries.filter((entry) => entry.id === null || !stillThere.has(entry.id))
        const inserted =
          added.length === 0
            ? []
            : yield* sql<{ id: string }>`
                INSERT INTO playlist_tracks (id, playlist_id, track_id, position, pick_kind, reason, added_at)
                SELECT COALESCE(e.id, ${timeOrderedId}), e.playlist_id, e.track_id, e.position, e.pick_kind, e.reason,
                       ${now}
                FROM json_to_recordset(${JSON.stringify(added)}::json)
                     AS e (id uuid, playlist_id uuid, track_id uuid, position int, pick_kind text, reason jsonb)
                RETURNING id`
        const entries = [...updated, ...inserted]
        return {
          playlists: written.map((row) => row.id),
          deletedPlaylists: stale,
          entries: entries.map((row) => row.id),
          deletedEntries: removedEntries,
        }
      }).pipe(orInternal("PlaylistRepository.replaceSystem"))

    const byIds = (ownerId: UserId, ids: ReadonlyArray<string>) =>
      inScope(
        (c) => sql`${selectIn(c)} WHERE p.owner_id = ${ownerId} AND p.id = ANY(${[...ids]}::uuid[]) GROUP BY p.id`,
      ).pipe(Effect.flatMap(decodeRows(PlaylistRecord)), orInternal("PlaylistRepository.byIds"))

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
      lockForEdit,
      remove,
      entries,
      missingTracks,
      writeEntries,
      coverAlbums,
      replaceSystem,
      snapshotPickKind,
      appendRotation,
      rotationState,
      resetRotation,
    } as const
  }),
  dependencies: [LibraryAccess.Default],
}) {}
