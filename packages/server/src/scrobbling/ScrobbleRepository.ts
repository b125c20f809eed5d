import { SqlClient } from "@effect/sql"
import { ScrobbleKind, type ScrobbleProvider, type UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeFirst } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** A listener's settings for one provider, secret included: never leaves the server. */
const ScrobblerRow = Schema.Struct({
  enabled: Schema.Boolean,
  token: Schema.NullOr(Schema.String),
  account: Schema.NullOr(Schema.String),
  auth_error: Schema.NullOr(Schema.String),
  last_sent_at: Schema.NullOr(Schema.DateFromSelf),
  last_error: Schema.NullOr(Schema.String),
  last_error_at: Schema.NullOr(Schema.DateFromSelf),
})
export type ScrobblerRow = typeof ScrobblerRow.Type

const CountsRow = Schema.Struct({ queued: Schema.Number, sent: Schema.Number })

/** One claimed submission with what the provider is told (the track's facts read when it is sent). */
const ClaimedRow = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  kind: ScrobbleKind,
  attempts: Schema.Number,
  expires_at: Schema.NullOr(Schema.DateFromSelf),
  token: Schema.NullOr(Schema.String),
  started_at: Schema.NullOr(Schema.DateFromSelf),
  skipped: Schema.NullOr(Schema.Boolean),
  client_id: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  artist: Schema.NullOr(Schema.String),
  duration_ms: Schema.NullOr(Schema.Number),
  track_number: Schema.NullOr(Schema.Number),
  recording_mbid: Schema.NullOr(Schema.String),
  album: Schema.NullOr(Schema.String),
  album_artist: Schema.NullOr(Schema.String),
  release_mbid: Schema.NullOr(Schema.String),
})
export type ClaimedRow = typeof ClaimedRow.Type

/** `scrobblers` and `scrobble_queue` (migration 0020): their only writer. */
export class ScrobbleRepository extends Effect.Service<ScrobbleRepository>()("@tonearm/server/ScrobbleRepository", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const settingsOf = (userId: UserId, provider: ScrobbleProvider) =>
      sql`
        SELECT enabled, token, account, auth_error, last_sent_at, last_error, last_error_at
        FROM scrobblers WHERE user_id = ${userId} AND provider = ${provider}`.pipe(
        Effect.flatMap(decodeFirst(ScrobblerRow)),
        orInternal("ScrobbleRepository.settingsOf"),
      )

    const countsOf = (userId: UserId, provider: ScrobbleProvider) =>
      sql`
        SELECT count(*) FILTER (WHERE state = 'pending')::int AS queued,
               count(*) FILTER (WHERE state = 'sent')::int AS sent
        FROM scrobble_queue WHERE user_id = ${userId} AND provider = ${provider} AND kind = 'listen'`.pipe(
        Effect.flatMap(decodeFirst(CountsRow)),
        Effect.map((row) => (row._tag === "Some" ? row.value : { queued: 0, sent: 0 })),
        orInternal("ScrobbleRepository.countsOf"),
      )

    /**
     * Saves what changed. A new token (or its removal) forgets a refusal of the old one, so sending resumes; `account`
     * goes with the token it belongs to.
     */
    const save = (
      userId: UserId,
      provider: ScrobbleProvider,
      change: {
        readonly enabled?: boolean | undefined
        readonly token?: { readonly value: string | null; readonly account: string | null } | undefined
      },
      now: Date,
    ) => {
      const setToken = change.token !== undefined
      const token = change.token?.value ?? null
      const account = change.token?.account ?? null
      return sql`
        INSERT INTO scrobblers (user_id, provider, enabled, token, account, updated_at)
        VALUES (${userId}, ${provider}, ${change.enabled ?? false}, ${token}, ${account}, ${now})
        ON CONFLICT (user_id, provider) DO UPDATE SET
          enabled = CASE WHEN ${change.enabled === undefined} THEN scrobblers.enabled ELSE EXCLUDED.enabled END,
          token = CASE WHEN ${setToken} THEN EXCLUDED.token ELSE scrobblers.token END,
          account = CASE WHEN ${setToken} THEN EXCLUDED.account ELSE scrobblers.account END,
          auth_error = CASE WHEN ${setToken} THEN NULL ELSE scrobblers.auth_error END,
          updated_at = EXCLUDED.updated_at`.pipe(Effect.asVoid, orInternal("ScrobbleRepository.save"))
    }

    /** What is still waiting for this provider is not sent (a listener switched it off). */
    const cancelPending = (userId: UserId, provider: ScrobbleProvider) =>
      sql`
        UPDATE scrobble_queue SET state = 'cancelled'
        WHERE user_id = ${userId} AND provider = ${provider} AND state = 'pending'`.pipe(
        Effect.asVoid,
        orInternal("ScrobbleRepository.cancelPending"),
      )

    /**
     * One row per provider the listener sends to (enabled, with a token), in the caller's transaction; a play already
     * queued for a provider is left as it is (at most one submission per play). Answers how many were queued.
     */
    const enqueue = (userId: UserId, playEventId: string, kind: ScrobbleKind, now: Date, expiresAt: Date | null) =>
      sql<{ n: number }>`
        WITH added AS (
          INSERT INTO scrobble_queue (user_id, provider, kind, play_event_id, state, next_attempt_at, expires_at, created_at)
          SELECT s.user_id, s.provider, ${kind}, ${playEventId}, 'pending', ${now}, ${expiresAt}, ${now}
          FROM scrobblers s WHERE s.user_id = ${userId} AND s.enabled AND s.token IS NOT NULL
          ON CONFLICT (play_event_id, provider, kind) DO NOTHING
          RETURNING 1)
        SELECT count(*)::int AS n FROM added`.pipe(
        Effect.map((rows) => rows[0]?.n ?? 0),
        orInternal("ScrobbleRepository.enqueue"),
      )

    /**
     * Claims the oldest due submission of a provider whose listener still sends there (enabled, a token, not refused)
     * and leases it until `leaseUntil`: another sender (any replica) skips it, and if this process dies mid-send it
     * becomes due again then. Reads the play and the track as they are now (a play since marked skipped, or a track
     * since purged, comes back with those facts so the sender drops it).
     */
    const claim = (provider: ScrobbleProvider, now: Date, leaseUntil: Date) =>
      sql`
        WITH due AS (
          SELECT q.id FROM scrobble_queue q
          JOIN scrobblers s ON s.user_id = q.user_id AND s.provider = q.provider
          WHERE q.provider = ${provider} AND q.state = 'pending' AND q.next_attempt_at <= ${now}
            AND s.enabled AND s.token IS NOT NULL AND s.auth_error IS NULL
          ORDER BY q.next_attempt_at, q.created_at
          LIMIT 1
          FOR UPDATE OF q SKIP LOCKED),
        claimed AS (
          UPDATE scrobble_queue q SET attempts = q.attempts + 1, next_attempt_at = ${leaseUntil}
          FROM due WHERE q.id = due.id
          RETURNING q.id, q.user_id, q.kind, q.attempts, q.expires_at, q.play_event_id)
        SELECT c.id, c.user_id, c.kind, c.attempts, c.expires_at, s.token,
               p.started_at, p.skipped, p.client_id,
               t.title, t.artist_display AS artist, t.duration_ms, t.track_number, t.mbid AS recording_mbid,
               al.title AS album, al.artist_display AS album_artist, al.mbid AS release_mbid
        FROM claimed c
        JOIN scrobblers s ON s.user_id = c.user_id AND s.provider = ${provider}
        LEFT JOIN play_events p ON p.id = c.play_event_id
        LEFT JOIN indexed_tracks t ON t.id = p.track_id
        LEFT JOIN indexed_albums al ON al.id = t.album_id`.pipe(
        Effect.flatMap(decodeFirst(ClaimedRow)),
        orInternal("ScrobbleRepository.claim"),
      )

    /** When the next submission of this provider falls due (null: none waiting for a sender). */
    const nextDue = (provider: ScrobbleProvider) =>
      sql<{ at: Date | null }>`
        SELECT min(q.next_attempt_at) AS at FROM scrobble_queue q
        JOIN scrobblers s ON s.user_id = q.user_id AND s.provider = q.provider
        WHERE q.provider = ${provider} AND q.state = 'pending'
          AND s.enabled AND s.token IS NOT NULL AND s.auth_error IS NULL`.pipe(
        Effect.map((rows) => rows[0]?.at ?? null),
        orInternal("ScrobbleRepository.nextDue"),
      )

    const markSent = (id: string, userId: string, provider: ScrobbleProvider, kind: ScrobbleKind, now: Date) =>
      Effect.all([
        kind === "listen"
          ? sql`UPDATE scrobble_queue SET state = 'sent', sent_at = ${now}, last_error = NULL WHERE id = ${id}`
          : sql`DELETE FROM scrobble_queue WHERE id = ${id}`,
        kind === "listen"
          ? sql`UPDATE scrobblers SET last_sent_at = ${now} WHERE user_id = ${userId} AND provider = ${provider}`
          : Effect.void,
      ]).pipe(Effect.asVoid, orInternal("ScrobbleRepository.markSent"))

    /** A failure to try again at `nextAt`; the listener's status shows it. */
    const markRetry = (
      id: string,
      userId: string,
      provider: ScrobbleProvider,
      error: string,
      nextAt: Date,
      now: Date,
    ) =>
      Effect.all([
        sql`UPDATE scrobble_queue SET next_attempt_at = ${nextAt}, last_error = ${error} WHERE id = ${id}`,
        sql`UPDATE scrobblers SET last_error = ${error}, last_error_at = ${now}
            WHERE user_id = ${userId} AND provider = ${provider}`,
      ]).pipe(Effect.asVoid, orInternal("ScrobbleRepository.markRetry"))

    /** Never to be sent: the provider will not take it, or the play no longer qualifies. */
    const markRejected = (id: string, userId: string, provider: ScrobbleProvider, error: string | null, now: Date) =>
      Effect.all([
        sql`UPDATE scrobble_queue SET state = 'rejected', last_error = ${error} WHERE id = ${id}`,
        error === null
          ? Effect.void
          : sql`UPDATE scrobblers SET last_error = ${error}, last_error_at = ${now}
                WHERE user_id = ${userId} AND provider = ${provider}`,
      ]).pipe(Effect.asVoid, orInternal("ScrobbleRepository.markRejected"))

    /** A now-playing notice not worth sending (expired, failed once): gone. */
    const discard = (id: string) =>
      sql`DELETE FROM scrobble_queue WHERE id = ${id}`.pipe(Effect.asVoid, orInternal("ScrobbleRepository.discard"))

    /**
     * The provider refused the listener's token: stop sending for them (the row waits, due at once, for a new token)
     * and say why on their status.
     */
    const markAuthFailed = (id: string, userId: string, provider: ScrobbleProvider, error: string, now: Date) =>
      Effect.all([
        sql`UPDATE scrobble_queue SET next_attempt_at = ${now}, attempts = attempts - 1, last_error = ${error}
            WHERE id = ${id} AND state = 'pending'`,
        sql`UPDATE scrobblers SET auth_error = ${error}, last_error = ${error}, last_error_at = ${now}
            WHERE user_id = ${userId} AND provider = ${provider}`,
      ]).pipe(Effect.asVoid, orInternal("ScrobbleRepository.markAuthFailed"))

    return {
      settingsOf,
      countsOf,
      save,
      cancelPending,
      enqueue,
      claim,
      nextDue,
      markSent,
      markRetry,
      markRejected,
      discard,
      markAuthFailed,
    } as const
  }),
}) {}
