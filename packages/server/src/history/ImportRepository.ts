import { SqlClient } from "@effect/sql"
import { ImportId, ImportSource, ImportState, type MatchCandidate, UnmatchedReason, type UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeFirst, decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** An import job as stored. */
export const ImportRow = Schema.Struct({
  id: ImportId,
  user_id: Schema.NullOr(Schema.String),
  requested_by: Schema.String,
  source: ImportSource,
  state: ImportState,
  total: Schema.Int,
  matched: Schema.Int,
  unmatched: Schema.Int,
  duplicates: Schema.Int,
  added: Schema.Int,
  file_path: Schema.NullOr(Schema.String),
  file_name: Schema.NullOr(Schema.String),
  params: Schema.Unknown,
  cursor: Schema.Unknown,
  message: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf,
  started_at: Schema.NullOr(Schema.DateFromSelf),
  finished_at: Schema.NullOr(Schema.DateFromSelf),
})
export type ImportRow = typeof ImportRow.Type

/** The counters an import keeps, committed with each batch. */
export interface ImportCounters {
  readonly total: number
  readonly matched: number
  readonly unmatched: number
  readonly duplicates: number
  readonly added: number
}

export const UnmatchedRow = Schema.Struct({
  position: Schema.Int,
  artist: Schema.String,
  title: Schema.String,
  album: Schema.NullOr(Schema.String),
  listened_at: Schema.DateFromSelf,
  reason: UnmatchedReason,
})
export type UnmatchedRow = typeof UnmatchedRow.Type

const CandidateRow = Schema.Struct({
  track_id: Schema.String,
  title: Schema.String,
  artists: Schema.Array(Schema.String),
  album_artist: Schema.NullOr(Schema.String),
  album: Schema.NullOr(Schema.String),
  mbid: Schema.NullOr(Schema.String),
  duration_ms: Schema.Number,
})

export class ImportRepository extends Effect.Service<ImportRepository>()("@tonearm/server/ImportRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const create = (job: {
      readonly userId: UserId | null
      readonly requestedBy: UserId
      readonly source: ImportSource
      readonly filePath: string | null
      readonly fileName: string | null
      readonly params: Record<string, unknown>
      readonly now: Date
    }) =>
      sql`
        INSERT INTO imports (user_id, requested_by, source, state, file_path, file_name, params, created_at)
        VALUES (${job.userId}, ${job.requestedBy}, ${job.source}, 'queued', ${job.filePath}, ${job.fileName},
                ${JSON.stringify(job.params)}::jsonb, ${job.now})
        RETURNING *`.pipe(
        Effect.flatMap((rows) => Schema.decodeUnknown(ImportRow)(rows[0])),
        orInternal("ImportRepository.create"),
      )

    const find = (id: ImportId) =>
      sql`SELECT * FROM imports WHERE id = ${id}`.pipe(
        Effect.flatMap(decodeFirst(ImportRow)),
        orInternal("ImportRepository.find"),
      )

    /** The user's imports, newest first, keyset-paged on (created_at, id). */
    const listForUser = (userId: UserId, before: { createdAt: Date; id: string } | null, limit: number) =>
      (before === null
        ? sql`SELECT * FROM imports WHERE user_id = ${userId} ORDER BY created_at DESC, id DESC LIMIT ${limit}`
        : sql`SELECT * FROM imports WHERE user_id = ${userId} AND (created_at, id) < (${before.createdAt}, ${before.id}::uuid)
              ORDER BY created_at DESC, id DESC LIMIT ${limit}`
      ).pipe(Effect.flatMap(decodeRows(ImportRow)), orInternal("ImportRepository.listForUser"))

    /**
     * Claims the oldest job to run: a queued one, or a running one whose runner stopped beating (a crashed process,
     * on any replica). `FOR UPDATE SKIP LOCKED`: two runners never claim the same job.
     */
    const claimNext = (now: Date, staleBefore: Date) =>
      sql`
        UPDATE imports SET state = 'running', heartbeat_at = ${now}, started_at = coalesce(started_at, ${now})
        WHERE id = (
          SELECT id FROM imports
          WHERE state = 'queued' OR (state = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < ${staleBefore}))
          ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *`.pipe(Effect.flatMap(decodeFirst(ImportRow)), orInternal("ImportRepository.claimNext"))

    const heartbeat = (id: ImportId, now: Date) =>
      sql`UPDATE imports SET heartbeat_at = ${now} WHERE id = ${id} AND state = 'running'`.pipe(
        Effect.asVoid,
        orInternal("ImportRepository.heartbeat"),
      )

    /** The counters and resume cursor after a batch, in the batch's transaction. */
    const advance = (id: ImportId, counters: ImportCounters, cursor: unknown, now: Date) =>
      sql`
        UPDATE imports SET total = ${counters.total}, matched = ${counters.matched}, unmatched = ${counters.unmatched},
          duplicates = ${counters.duplicates}, added = ${counters.added}, cursor = ${JSON.stringify(cursor)}::jsonb,
          heartbeat_at = ${now}
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("ImportRepository.advance"))

    const insertUnmatched = (
      id: ImportId,
      rows: ReadonlyArray<{
        readonly position: number
        readonly artist: string
        readonly title: string
        readonly album: string | null
        readonly listenedAtMs: number
        readonly reason: UnmatchedReason
      }>,
    ) =>
      rows.length === 0
        ? Effect.void
        : sql`
        INSERT INTO import_unmatched (import_id, position, artist, title, album, listened_at, reason)
        SELECT ${id}, x.position, x.artist, x.title, x.album, x.listened_at, x.reason
        FROM unnest(${rows.map((row) => row.position)}::int[], ${rows.map((row) => row.artist)}::text[],
                    ${rows.map((row) => row.title)}::text[], ${rows.map((row) => row.album)}::text[],
                    ${rows.map((row) => new Date(row.listenedAtMs).toISOString())}::timestamptz[],
                    ${rows.map((row) => row.reason)}::text[])
             AS x (position, artist, title, album, listened_at, reason)
        ON CONFLICT DO NOTHING`.pipe(Effect.asVoid, orInternal("ImportRepository.insertUnmatched"))

    const unmatchedPage = (id: ImportId, afterPosition: number, limit: number) =>
      sql`
        SELECT position, artist, title, album, listened_at, reason FROM import_unmatched
        WHERE import_id = ${id} AND position > ${afterPosition} ORDER BY position LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(UnmatchedRow)),
        orInternal("ImportRepository.unmatchedPage"),
      )

    /** The end of a job: done or failed, with its message; the uploaded file is no longer needed. */
    const finish = (id: ImportId, state: "done" | "failed", message: string | null, now: Date) =>
      sql`
        UPDATE imports SET state = ${state}, message = ${message}, finished_at = ${now}, heartbeat_at = NULL,
          file_path = NULL
        WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("ImportRepository.finish"))

    /** A runner stopping (shutdown) hands its job back: queued again, resumed from its cursor by the next one. */
    const release = (id: ImportId) =>
      sql`UPDATE imports SET state = 'queued', heartbeat_at = NULL WHERE id = ${id} AND state = 'running'`.pipe(
        Effect.asVoid,
        orInternal("ImportRepository.release"),
      )

    /** Library tracks as the matcher sees them, in id order after `afterId` (the catalogue, a slice at a time). */
    const candidates = (afterId: string | null, limit: number) =>
      sql`
        SELECT t.id AS track_id, t.title, t.mbid, t.duration_ms, al.title AS album, aa.name AS album_artist,
               coalesce((SELECT array_agg(a.name ORDER BY ta.position) FROM track_artists ta
                         JOIN indexed_artists a ON a.id = ta.artist_id WHERE ta.track_id = t.id),
                        ARRAY[ar.name]) AS artists
        FROM tracks t JOIN indexed_albums al ON al.id = t.album_id JOIN indexed_artists aa ON aa.id = al.artist_id
        JOIN indexed_artists ar ON ar.id = t.artist_id
        WHERE t.id > ${afterId ?? "00000000-0000-0000-0000-000000000000"}::uuid
        ORDER BY t.id LIMIT ${limit}`.pipe(
        Effect.flatMap(decodeRows(CandidateRow)),
        Effect.map((rows): ReadonlyArray<MatchCandidate> => rows),
        orInternal("ImportRepository.candidates"),
      )

    return {
      create,
      find,
      listForUser,
      claimNext,
      heartbeat,
      advance,
      insertUnmatched,
      unmatchedPage,
      finish,
      release,
      candidates,
    } as const
  }),
}) {}
