import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { expect, layer } from "@effect/vitest"
import { makeTonearmClient } from "@tonearm/client-sdk"
import type { UserId } from "@tonearm/core"
import { nextRunAt } from "@tonearm/core"
import { Context, Effect, Layer, TestClock, TestContext } from "effect"
import { makeDatabaseLive, pgClientLayer } from "../../src/db/Database.js"
import { ServicesLive } from "../../src/main.js"
import { INTERRUPTED_REBUILD } from "../../src/recommendations/RebuildJobRepository.js"
import { RebuildScheduler, RebuildSchedulerLive } from "../../src/recommendations/RebuildScheduler.js"
import { Admin, AdminLive, aUser } from "../ownData.js"
import { PASSWORD, type SignedIn } from "../support/accounts.js"
import { QuietLogs, TestServerLive, testConfig } from "../support/TestServer.js"

interface JobRow {
  readonly user_id: string
  readonly timezone: string
  readonly next_run_at: Date
  readonly last_started_at: Date | null
  readonly last_finished_at: Date | null
  readonly last_error: string | null
  readonly runs: number
  readonly heartbeat_at: Date | null
}

const jobOf = (user: UserId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<JobRow>`SELECT * FROM rebuild_jobs WHERE user_id = ${user}`, (rows) => rows[0]),
  )

const userZone = (user: UserId) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{
        timezone: string
        timezone_updated_at: Date | null
      }>`SELECT timezone, timezone_updated_at FROM users WHERE id = ${user}`,
      (rows) => rows[0]!,
    ),
  )

/** Runs an effect with the TestClock at `iso` (the server's own fibers keep the real clock). */
const at = (iso: string) => TestClock.setTime(Date.parse(iso))

/** Polls (on the real clock) until `check` holds, for up to `ms`. */
const eventually = <A>(
  probe: Effect.Effect<A, unknown, SqlClient.SqlClient>,
  check: (value: A) => boolean,
  ms = 30_000,
) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    while (true) {
      const value = yield* probe
      if (check(value)) return value
      if (Date.now() > deadline) return value
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    }
  })

let registered = 0

// Open registration: a test registers an account of its own, as the first admin once did.
layer(AdminLive().pipe(Layer.provideMerge(TestServerLive({ openRegistration: true }))), {
  excludeTestServices: true,
  timeout: "180 seconds",
})("daily rebuild scheduler", (it) => {
  it.effect("registration schedules the user's daily rebuild at once, at the next 03:00 in the user's zone", () =>
    Effect.gen(function* () {
      const before = new Date()
      const anonymous = yield* makeTonearmClient()
      const { user } = yield* anonymous.auth.register({
        payload: { username: `registered-${++registered}`, password: PASSWORD },
      })
      const job = yield* jobOf(user.id)
      expect(job).toBeDefined()
      expect(job!.timezone).toBe("UTC")
      expect(job!.next_run_at.getTime()).toBeGreaterThan(before.getTime())
      expect(job!.next_run_at.getTime() - before.getTime()).toBeLessThanOrEqual(86_400_000)
      expect(job!.next_run_at.getUTCHours()).toBe(3)
      expect(job!.next_run_at.getUTCMinutes()).toBe(0)
      expect(job!.runs).toBe(0)
      // An account an admin creates (POST /api/admin/users, also the CLI's `users create`) is scheduled too.
      const bob = yield* aUser("bob")
      expect((yield* jobOf(bob.user.id))?.next_run_at).toEqual(job!.next_run_at)
    }),
  )

  it.effect("PUT /api/me/timezone writes the zone, then reschedules the user's job synchronously", () =>
    Effect.gen(function* () {
      const carol = yield* aUser("carol")
      const answer = yield* carol.client.me.setTimezone({ payload: { timezone: "America/New_York" } })
      expect(answer.timezone).toBe("America/New_York")
      // No waiting: the job has moved by the time the response arrived.
      const job = yield* jobOf(carol.user.id)
      expect(job!.timezone).toBe("America/New_York")
      expect(job!.next_run_at).toEqual(nextRunAt("America/New_York", new Date(job!.next_run_at.getTime() - 86_399_000)))
      const local = new Intl.DateTimeFormat("en-GB", {
        timeZone: "America/New_York",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).format(job!.next_run_at)
      expect(local).toBe("03:00")
    }),
  )

  it.effect("a failing reschedule is logged and does not undo the timezone write", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const dave = yield* aUser("dave")
      const scheduled = yield* jobOf(dave.user.id)
      // Break the job table for the duration of one request.
      yield* sql`ALTER TABLE rebuild_jobs RENAME TO rebuild_jobs_away`
      const answer = yield* dave.client.me
        .setTimezone({ payload: { timezone: "Europe/Paris" } })
        .pipe(Effect.ensuring(sql`ALTER TABLE rebuild_jobs_away RENAME TO rebuild_jobs`.pipe(Effect.orDie)))
      expect(answer.timezone).toBe("Europe/Paris")
      expect((yield* userZone(dave.user.id)).timezone).toBe("Europe/Paris")
      expect((yield* dave.client.me.get()).timezone).toBe("Europe/Paris")
      // The job kept its old zone; the next reconciliation catches it up.
      expect((yield* jobOf(dave.user.id))!.timezone).toBe(scheduled!.timezone)
      const scheduler = yield* RebuildScheduler
      const result = yield* scheduler.reconcile()
      expect(result.rescheduled).toBeGreaterThanOrEqual(1)
      const job = yield* jobOf(dave.user.id)
      expect(job!.timezone).toBe("Europe/Paris")
      expect(job!.next_run_at).toEqual(nextRunAt("Europe/Paris", new Date(job!.next_run_at.getTime() - 86_399_000)))
    }),
  )

  it.effect(
    "hourly reconciliation: a missing user gets a job, a deleted user loses theirs, a job in another zone is rescheduled",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const scheduler = yield* RebuildScheduler
        const admin = yield* Admin
        const erin = yield* aUser("erin")
        const frank = yield* aUser("frank")
        // Start from a reconciled table (other tests leave users without jobs, or jobs in other zones).
        yield* scheduler.reconcile()
        yield* sql`DELETE FROM rebuild_jobs WHERE user_id = ${erin.user.id}`
        yield* sql`UPDATE rebuild_jobs SET timezone = 'Asia/Tokyo' WHERE user_id = ${frank.user.id}`
        const result = yield* scheduler.reconcile()
        expect(result).toMatchObject({ added: 1, rescheduled: 1 })
        expect((yield* jobOf(erin.user.id))!.timezone).toBe("UTC")
        expect((yield* jobOf(frank.user.id))!.timezone).toBe("UTC")
        yield* admin.client.adminUsers.delete({ path: { id: frank.user.id } })
        expect(yield* jobOf(frank.user.id)).toBeUndefined()
        // Nothing left to do: a second pass changes nothing.
        expect(yield* scheduler.reconcile()).toEqual({ added: 0, rescheduled: 0, removed: 0 })
      }),
  )

  it.effect(
    "a run whose heartbeat stopped (its process was killed) is marked interrupted and run again; a live one is left alone",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const scheduler = yield* RebuildScheduler
        const dead = yield* aUser("dead")
        const live = yield* aUser("live")
        const tomorrow = new Date(Date.now() + 86_400_000)
        // Both were claimed (moved on to tomorrow); the dead run's process stopped renewing its heartbeat a minute
        // ago (the TTL is 20 s), the live one renewed it just now (another replica is still rebuilding).
        yield* sql`
          UPDATE rebuild_jobs SET next_run_at = ${tomorrow}, last_started_at = now() - interval '2 minutes', runs = 1,
            heartbeat_at = now() - interval '1 minute'
          WHERE user_id = ${dead.user.id}`
        yield* sql`
          UPDATE rebuild_jobs SET next_run_at = ${tomorrow}, last_started_at = now(), runs = 1, heartbeat_at = now()
          WHERE user_id = ${live.user.id}`
        expect(yield* scheduler.closeInterrupted).toEqual([dead.user.id])
        const marked = (yield* jobOf(dead.user.id))!
        expect(marked.last_error).toBe(INTERRUPTED_REBUILD)
        expect(marked.heartbeat_at).toBeNull()
        expect(marked.next_run_at.getTime()).toBeLessThanOrEqual(Date.now())
        const untouched = (yield* jobOf(live.user.id))!
        expect(untouched.heartbeat_at).not.toBeNull()
        expect(untouched.last_error).toBeNull()
        // The next tick runs the interrupted one over (its mixes were never half written: one transaction).
        const ran = yield* scheduler.runDue()
        expect(ran).toContain(dead.user.id)
        expect(ran).not.toContain(live.user.id)
        const redone = (yield* jobOf(dead.user.id))!
        expect(redone).toMatchObject({ runs: 2, last_error: null, heartbeat_at: null })
        expect(redone.next_run_at.getTime()).toBeGreaterThan(Date.now())
        expect(redone.last_finished_at!.getTime()).toBeGreaterThanOrEqual(marked.last_finished_at!.getTime())
        yield* sql`UPDATE rebuild_jobs SET heartbeat_at = NULL WHERE user_id = ${live.user.id}`
      }),
  )

  it.effect(
    "each user's daily job runs at 03:00 in the user's timezone (Paris, New York, Kolkata), once per day, across both DST changes",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const scheduler = yield* RebuildScheduler
        const zoned: Record<string, SignedIn> = {}
        for (const [name, zone] of [
          ["paris", "Europe/Paris"],
          ["newyork", "America/New_York"],
          ["kolkata", "Asia/Kolkata"],
          ["helsinki", "Europe/Helsinki"],
        ] as const) {
          zoned[name] = yield* aUser(name)
          yield* zoned[name].client.me.setTimezone({ payload: { timezone: zone } })
        }
        const nameOf = new Map(Object.entries(zoned).map(([name, who]) => [who.user.id as string, name]))

        /** Ticks every 10 minutes from `from` to `to` on the TestClock; answers "name@instant" per run. */
        const tickThrough = (from: string, to: string) =>
          Effect.gen(function* () {
            yield* at(from)
            // Every job is scheduled from the clock's "now"; only the four zoned users take part.
            yield* sql`DELETE FROM rebuild_jobs`
            yield* scheduler.reconcile()
            yield* sql`DELETE FROM rebuild_jobs WHERE user_id <> ALL(${[...nameOf.keys()]}::uuid[])`
            const runs: Array<string> = []
            for (let t = Date.parse(from); t <= Date.parse(to); t += 10 * 60_000) {
              yield* TestClock.setTime(t)
              for (const user of yield* scheduler.runDue())
                runs.push(`${nameOf.get(user)}@${new Date(t).toISOString().slice(0, 16)}`)
            }
            return runs.sort()
          }).pipe(Effect.provide(TestContext.TestContext))

        // Spring: New York is on EDT since 8 March; Paris and Helsinki move on 29 March at 01:00 UTC. Helsinki's
        // 03:00 does not exist that day: it runs when the clocks jump (04:00 EEST, 01:00 UTC).
        expect(yield* tickThrough("2026-03-27T12:00:00Z", "2026-03-31T00:00:00Z")).toEqual(
          [
            "paris@2026-03-28T02:00", // 03:00 CET
            "paris@2026-03-29T01:00", // 03:00 CEST, the first day of summer time
            "paris@2026-03-30T01:00",
            "newyork@2026-03-28T07:00",
            "newyork@2026-03-29T07:00",
            "newyork@2026-03-30T07:00",
            "kolkata@2026-03-27T21:30",
            "kolkata@2026-03-28T21:30",
            "kolkata@2026-03-29T21:30",
            "kolkata@2026-03-30T21:30",
            "helsinki@2026-03-28T01:00", // 03:00 EET
            "helsinki@2026-03-29T01:00", // 03:00 is skipped: the first valid instant after it
            "helsinki@2026-03-30T00:00", // 03:00 EEST
            "helsinki@2026-03-31T00:00",
          ].sort(),
        )
        // Autumn: Helsinki's 03:00 happens twice on 25 October (00:00 and 01:00 UTC): it runs once, at the first.
        expect(yield* tickThrough("2026-10-24T12:00:00Z", "2026-10-27T00:00:00Z")).toEqual(
          [
            "paris@2026-10-25T02:00", // 03:00 CET, the first day of winter time
            "paris@2026-10-26T02:00",
            "newyork@2026-10-25T07:00", // still EDT until 1 November
            "newyork@2026-10-26T07:00",
            "kolkata@2026-10-24T21:30",
            "kolkata@2026-10-25T21:30",
            "kolkata@2026-10-26T21:30",
            "helsinki@2026-10-25T00:00",
            "helsinki@2026-10-26T01:00",
          ].sort(),
        )
        // Each run went through RebuildService: the profile was built and the job recorded its success.
        const paris = yield* jobOf(zoned.paris!.user.id)
        expect(paris!.last_error).toBeNull()
        expect(paris!.last_finished_at).not.toBeNull()
        const built = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM taste_profiles WHERE user_id = ${zoned.paris!.user.id}`
        expect(built[0]!.n).toBe(1)
      }),
  )

  it.effect("two servers on one database never run one user's job twice", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const first = yield* RebuildScheduler
      // At least 20 accounts, each with a job (other tests may have left users without one).
      yield* Effect.all(
        Array.from({ length: 20 }, () => aUser("replica")),
        { concurrency: 4 },
      )
      yield* first.reconcile()
      // A second replica: the same services over its own connection pool to the same database.
      const pg = yield* PgClient.PgClient
      const replica = yield* Layer.build(
        ServicesLive.pipe(
          Layer.provide(makeDatabaseLive(pgClientLayer(pg.config.url!))),
          Layer.provide(testConfig()),
          Layer.provide(QuietLogs),
        ),
      )
      const second = Context.get(replica, RebuildScheduler)
      yield* sql`UPDATE rebuild_jobs SET next_run_at = now() - interval '1 hour', runs = 0`
      const due = (yield* sql<{ user_id: string }>`SELECT user_id FROM rebuild_jobs`).map((row) => row.user_id).sort()
      expect(due.length).toBeGreaterThanOrEqual(20)
      const [a, b] = yield* Effect.all([first.runDue(), second.runDue()], { concurrency: 2 })
      // Every due job ran exactly once, on one replica or the other.
      expect([...a, ...b].sort()).toEqual(due)
      expect(a.filter((user) => b.includes(user))).toEqual([])
      const runs = yield* sql<{ runs: number }>`SELECT runs FROM rebuild_jobs`
      expect(runs.every((row) => row.runs === 1)).toBe(true)
      // Claimed jobs moved to their next 03:00: nothing is due any more on either replica.
      expect(yield* Effect.all([first.runDue(), second.runDue()], { concurrency: 2 })).toEqual([[], []])
    }).pipe(Effect.scoped),
  )

  it.effect("catch-up at start: jobs whose 03:00 passed while the server was down run when the scheduler starts", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const missed = yield* aUser("missed")
      const waiting = yield* aUser("waiting")
      yield* sql`UPDATE rebuild_jobs SET runs = 0, next_run_at = now() + interval '6 hours'`
      yield* sql`UPDATE rebuild_jobs SET next_run_at = now() - interval '20 hours' WHERE user_id = ${missed.user.id}`
      // The scheduler as ServerLive starts it.
      yield* Layer.build(RebuildSchedulerLive)
      const job = yield* eventually(jobOf(missed.user.id), (row) => row?.last_finished_at !== null)
      expect(job!.runs).toBe(1)
      expect(job!.last_error).toBeNull()
      expect(job!.next_run_at.getTime()).toBeGreaterThan(Date.now())
      expect(job!.next_run_at).toEqual(nextRunAt("UTC", job!.last_started_at!))
      expect((yield* jobOf(waiting.user.id))!.runs).toBe(0)
      // The rebuild happened: the user's system playlists are listed.
      const playlists = yield* missed.client.playlists.list()
      expect(playlists.some((playlist) => playlist.system_variant === "for_you")).toBe(true)
    }).pipe(Effect.scoped),
  )
})
