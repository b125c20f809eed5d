import { SqlClient } from "@effect/sql"
import { UserId } from "@tonearm/core"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rows.js"
import { orInternal } from "../db/sqlErrors.js"

/** A job to (re)schedule: the user, the zone it runs in and its next 03:00 there. */
export interface ScheduledJob {
  readonly user: UserId
  readonly timeZone: string
  readonly nextRunAt: Date
}

/** `last_error` of a daily run skipped because the user was inactive (issue 28, `ACTIVE_USER_DAYS`). */
export const SKIPPED_INACTIVE = "skipped: inactive"

/** `last_error` of a run its process did not finish (killed mid-way); the job is then due again at once. */
export const INTERRUPTED_REBUILD = "interrupted: the server stopped during this rebuild; run again"

const Claimed = Schema.Struct({ user_id: UserId, timezone: Schema.String })

/** `rebuild_jobs`: one row per user, the daily rebuild's schedule. */
export class RebuildJobRepository extends Effect.Service<RebuildJobRepository>()(
  "@tonearm/server/RebuildJobRepository",
  {
    effect: Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      /** Creates or moves one user's job (registration, a timezone change). */
      const upsert = (job: ScheduledJob) =>
        sql`
          INSERT INTO rebuild_jobs (user_id, timezone, next_run_at)
          VALUES (${job.user}, ${job.timeZone}, ${job.nextRunAt})
          ON CONFLICT (user_id) DO UPDATE SET timezone = EXCLUDED.timezone, next_run_at = EXCLUDED.next_run_at`.pipe(
          Effect.asVoid,
          orInternal("RebuildJobRepository.upsert"),
        )

      /** The zones of the jobs due at `now` (the caller computes each zone's next 03:00 for the claim). */
      const dueZones = (now: Date) =>
        sql<{ timezone: string }>`SELECT DISTINCT timezone FROM rebuild_jobs WHERE next_run_at <= ${now}`.pipe(
          Effect.map((rows) => rows.map((row) => row.timezone)),
          orInternal("RebuildJobRepository.dueZones"),
        )

      /**
       * Claims up to `limit` due jobs and moves each to its zone's next run in the same statement. Rows another
       * replica holds are skipped, and a row it already moved is no longer due when re-checked under the lock,
       * so every due job is claimed by exactly one caller. A job whose zone is not in `next` stays due.
       */
      const claimDue = (
        now: Date,
        next: ReadonlyArray<{ readonly timeZone: string; readonly at: Date }>,
        limit: number,
      ) =>
        sql`
          WITH due AS (
            SELECT user_id FROM rebuild_jobs
            WHERE next_run_at <= ${now} AND timezone = ANY(${next.map((zone) => zone.timeZone)}::text[])
            ORDER BY next_run_at, user_id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )
          UPDATE rebuild_jobs AS job
          SET next_run_at = zone.next_at, last_started_at = ${now}, runs = job.runs + 1, heartbeat_at = ${now}
          FROM due, unnest(${next.map((zone) => zone.timeZone)}::text[], ${next.map((zone) => zone.at)}::timestamptz[])
            AS zone (timezone, next_at)
          WHERE job.user_id = due.user_id AND zone.timezone = job.timezone
          RETURNING job.user_id, job.timezone`.pipe(
          Effect.flatMap(decodeRows(Claimed)),
          Effect.map((rows) => rows.map((row) => row.user_id)),
          orInternal("RebuildJobRepository.claimDue"),
        )

      /** Records how a claimed run ended (`error` null on success). */
      const finish = (user: UserId, at: Date, error: string | null) =>
        sql`
          UPDATE rebuild_jobs SET last_finished_at = ${at}, last_error = ${error}, heartbeat_at = NULL
          WHERE user_id = ${user}`.pipe(Effect.asVoid, orInternal("RebuildJobRepository.finish"))

      /**
       * Brings the job set in line with the users: a missing job is created, a job in another zone than its
       * user's is rescheduled, the job of a deleted user goes. `jobs` holds every user with their zone as read
       * just before; a row is only written while the user still exists with that zone, so a registration or a
       * timezone change racing with this never gets overwritten with stale data.
       */
      const reconcile = (jobs: ReadonlyArray<ScheduledJob>) =>
        Effect.gen(function* () {
          const removed = yield* sql`
            DELETE FROM rebuild_jobs AS job
            WHERE NOT EXISTS (SELECT 1 FROM users WHERE users.id = job.user_id)
            RETURNING job.user_id`
          const written = yield* sql<{ inserted: boolean }>`
            INSERT INTO rebuild_jobs (user_id, timezone, next_run_at)
            SELECT wanted.user_id, wanted.timezone, wanted.next_run_at
            FROM unnest(${jobs.map((job) => job.user)}::uuid[], ${jobs.map((job) => job.timeZone)}::text[],
                        ${jobs.map((job) => job.nextRunAt)}::timestamptz[]) AS wanted (user_id, timezone, next_run_at)
            JOIN users ON users.id = wanted.user_id AND users.timezone = wanted.timezone
            ON CONFLICT (user_id) DO UPDATE SET timezone = EXCLUDED.timezone, next_run_at = EXCLUDED.next_run_at
              WHERE rebuild_jobs.timezone IS DISTINCT FROM EXCLUDED.timezone
            RETURNING (xmax = 0) AS inserted`
          const added = written.filter((row) => row.inserted).length
          return { added, rescheduled: written.length - added, removed: removed.length }
        }).pipe(orInternal("RebuildJobRepository.reconcile"))

      /**
       * The user's latest activity for the active-user rule: their latest play, the latest use of any of their
       * sessions (a sign-in or an API call) or the account's creation; null for an unknown user.
       */
      const lastActivity = (user: UserId) =>
        sql<{ at: Date | null }>`
          SELECT greatest(
            u.created_at,
            (SELECT max(s.last_seen_at) FROM sessions s WHERE s.user_id = u.id),
            (SELECT max(p.started_at) FROM play_events p WHERE p.user_id = u.id)
          ) AS at
          FROM users u WHERE u.id = ${user}`.pipe(
          Effect.map((rows) => rows[0]?.at ?? null),
          orInternal("RebuildJobRepository.lastActivity"),
        )

      /** Records a run skipped because the user was inactive: their next visit rebuilds them. */
      const skipInactive = (user: UserId, at: Date) =>
        sql`
          UPDATE rebuild_jobs SET last_finished_at = ${at}, last_error = ${SKIPPED_INACTIVE}, heartbeat_at = NULL
          WHERE user_id = ${user}`.pipe(Effect.asVoid, orInternal("RebuildJobRepository.skipInactive"))

      /** Clears the "skipped as inactive" mark; true when it was set (the caller then rebuilds the user). */
      const wake = (user: UserId) =>
        sql<{ user_id: string }>`
          UPDATE rebuild_jobs SET last_error = NULL
          WHERE user_id = ${user} AND last_error = ${SKIPPED_INACTIVE}
          RETURNING user_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          orInternal("RebuildJobRepository.wake"),
        )

      /** Renews the heartbeat of a run this replica is doing (a no-op once the run was finished or taken back). */
      const heartbeat = (user: UserId, at: Date) =>
        sql`UPDATE rebuild_jobs SET heartbeat_at = ${at} WHERE user_id = ${user} AND heartbeat_at IS NOT NULL`.pipe(
          Effect.asVoid,
          orInternal("RebuildJobRepository.heartbeat"),
        )

      /**
       * Runs whose heartbeat stopped before `staleBefore` (their process died): finished as interrupted at `now`
       * and due again at once. Answers their users.
       */
      const closeInterrupted = (now: Date, staleBefore: Date) =>
        sql<{ user_id: string }>`
          UPDATE rebuild_jobs SET heartbeat_at = NULL, last_finished_at = ${now}, last_error = ${INTERRUPTED_REBUILD},
            next_run_at = least(next_run_at, ${now})
          WHERE heartbeat_at IS NOT NULL AND heartbeat_at < ${staleBefore}
          RETURNING user_id`.pipe(
          Effect.map((rows) => rows.map((row) => row.user_id)),
          orInternal("RebuildJobRepository.closeInterrupted"),
        )

      return {
        upsert,
        dueZones,
        claimDue,
        finish,
        reconcile,
        lastActivity,
        skipInactive,
        wake,
        heartbeat,
        closeInterrupted,
      } as const
    }),
  },
) {}
