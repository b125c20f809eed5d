import { isActiveUser, nextRunAt, type UserId } from "@tonearm/core"
import { Cause, Config, Duration, Effect, Layer, Ref, Schedule } from "effect"
import { AccountLifecycle, AccountsService } from "../accounts/index.js"
import { currentDate } from "../clock.js"
import { SmartPlaylistsService } from "../smartPlaylists/index.js"
import { LEARNED_NIGHTLY_AGE_MS, LearnedSimilarityService } from "./LearnedSimilarityService.js"
import { RebuildJobRepository } from "./RebuildJobRepository.js"
import { RebuildService } from "./RebuildService.js"
import { defaultEngineWorkers } from "./RecommendationEngineWorker.js"

/** How often a replica looks for due jobs: a job runs at most this long after its 03:00. */
export const TICK_EVERY = Duration.seconds(30)
/** Spec "Limits": the job set is reconciled hourly. */
export const RECONCILE_EVERY = Duration.hours(1)
/**
 * Rebuilds a replica runs at once: one per engine worker, plus one loading the next user's rows (and writing
 * the last one's snapshot) on the main thread, so no worker waits for the main thread. More would only queue
 * on the workers and hold claimed jobs other replicas could run.
 */
export const RUN_CONCURRENCY = defaultEngineWorkers() + 1

/**
 * How long a running rebuild's heartbeat may be silent before its run counts as interrupted (its process died):
 * the replicas' lease time (`TONEARM_LEASE_TTL_MS`, default 20 s, as for the background duties' leases). The
 * runner renews it every quarter of that.
 */
export const REBUILD_HEARTBEAT_TTL_MS = Config.integer("TONEARM_LEASE_TTL_MS").pipe(
  Config.validate({ message: "must be 500 milliseconds or more", validation: (ms) => ms >= 500 }),
  Config.withDefault(20_000),
)

/** Puts a user's job at their next 03:00: registration, a timezone change (through `AccountLifecycle`). */
export class RebuildSchedule extends Effect.Service<RebuildSchedule>()("@tonearm/server/RebuildSchedule", {
  effect: Effect.gen(function* () {
    const jobs = yield* RebuildJobRepository
    const schedule = Effect.fn("RebuildSchedule.schedule")(function* (user: UserId, timeZone: string) {
      yield* jobs.upsert({ user, timeZone, nextRunAt: nextRunAt(timeZone, yield* currentDate) })
    })
    return { schedule } as const
  }),
  dependencies: [RebuildJobRepository.Default],
}) {}

/** The scheduler's side of the accounts port: a new user or a new zone is (re)scheduled at once. */
export const AccountLifecycleLive = Layer.effect(
  AccountLifecycle,
  Effect.map(RebuildSchedule, ({ schedule }) => ({ userCreated: schedule, timezoneChanged: schedule })),
).pipe(Layer.provide(RebuildSchedule.Default))

/**
 * The daily rebuild (spec "System snapshot", "Limits: Scheduler"): runs every due job through
 * `RebuildService.rebuild`, and keeps one job per user in the user's zone.
 */
export class RebuildScheduler extends Effect.Service<RebuildScheduler>()("@tonearm/server/RebuildScheduler", {
  effect: Effect.gen(function* () {
    const jobs = yield* RebuildJobRepository
    const rebuilds = yield* RebuildService
    const accounts = yield* AccountsService
    const smartPlaylists = yield* SmartPlaylistsService
    const learned = yield* LearnedSimilarityService
    const ttlMs = yield* Effect.orDie(REBUILD_HEARTBEAT_TTL_MS)
    const beat = Duration.millis(Math.max(100, Math.floor(ttlMs / 4)))

    /**
     * Runs a killed process left claimed (heartbeat silent for the TTL) are marked interrupted and due again, so
     * this run does them over (issue 29 item 4). At start this is the catch-up of a crash; on any replica's tick
     * it is the takeover of a dead replica's runs. The dead run wrote nothing: a rebuild commits in one transaction.
     */
    const closeInterrupted = Effect.gen(function* () {
      const now = yield* currentDate
      const users = yield* jobs.closeInterrupted(now, new Date(now.getTime() - ttlMs))
      if (users.length > 0)
        yield* Effect.logWarning(`${users.length} daily rebuild(s) were interrupted by a stop: running them again`)
      return users
    })

    /** While a claimed run goes on, its heartbeat says this replica is alive. */
    const withHeartbeat = <A, E, R>(user: UserId, run: Effect.Effect<A, E, R>) =>
      Effect.scoped(
        Effect.gen(function* () {
          yield* Effect.flatMap(currentDate, (at) => jobs.heartbeat(user, at)).pipe(
            Effect.catchAllCause(() => Effect.void),
            Effect.repeat(Schedule.spaced(beat)),
            Effect.delay(beat),
            Effect.forkScoped,
          )
          return yield* run
        }),
      )

    /** Claims one due job (moving it to its next 03:00 in the same statement), or none. */
    const claimOne = Effect.gen(function* () {
      const now = yield* currentDate
      const zones = yield* jobs.dueZones(now)
      if (zones.length === 0) return undefined
      const next = zones.map((timeZone) => ({ timeZone, at: nextRunAt(timeZone, now) }))
      return (yield* jobs.claimDue(now, next, 1))[0]
    })

    /** One user's rebuild; a failure is logged and recorded on the job, and the run goes on. */
    const rebuildOne = (user: UserId) =>
      rebuilds.rebuild(user).pipe(
        Effect.zipRight(Effect.flatMap(currentDate, (at) => jobs.finish(user, at, null))),
        Effect.catchAllCause((cause) =>
          Effect.gen(function* () {
            if (Cause.isInterruptedOnly(cause)) return yield* Effect.interrupt
            yield* Effect.logError(`daily rebuild of user ${user} failed`, cause)
            yield* jobs.finish(user, yield* currentDate, Cause.pretty(cause).split("\n")[0] ?? "failed")
          }).pipe(Effect.catchAll(() => Effect.void)),
        ),
      )

    /**
     * The daily run of one user: an inactive user
     * (`isActiveUser`: nothing for `ACTIVE_USER_DAYS`) is skipped and marked, and rebuilt on their next visit.
     */
    const runOne = (user: UserId) =>
      Effect.gen(function* () {
        // The user's smart playlists follow the library and their plays every night, active or not (issue 28).
        yield* smartPlaylists
          .refreshOwned(user)
          .pipe(Effect.catchAll((error) => Effect.logError(`smart playlists of user ${user} failed`, error)))
        const now = yield* currentDate
        const last = yield* jobs.lastActivity(user)
        if (isActiveUser(last === null ? null : last.getTime(), now.getTime())) return true
        yield* jobs.skipInactive(user, now)
        return false
      }).pipe(
        Effect.catchAll(() => Effect.succeed(true)),
        Effect.flatMap((active) => (active ? rebuildOne(user) : Effect.void)),
      )

    /**
     * Runs every job due now (at start this is the catch-up of 03:00s passed while the server was down),
     * `RUN_CONCURRENCY` at a time, each lane claiming its next job when it is free. Answers the users run.
     */
    const runDue = Effect.fn("RebuildScheduler.runDue")(function* () {
      // The night's learned-similarity fit, in the engine, before the run's first rebuild (the first due zone of
      // the night fits, later zones reuse it): the next Discover read finds it ready and never waits for a fit.
      // Every lane waits for it once, and only when it claimed a user: a tick with nothing due costs nothing.
      const fitFirst = yield* Effect.cached(
        learned
          .refitIfOlderThan(LEARNED_NIGHTLY_AGE_MS)
          .pipe(
            Effect.catchAllCause((cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.interrupt
                : Effect.logError("nightly learned similarity fit failed", cause),
            ),
          ),
      )
      yield* closeInterrupted.pipe(logged("closing interrupted rebuilds"))
      const ran = yield* Ref.make<ReadonlyArray<UserId>>([])
      const lane = Effect.gen(function* () {
        while (true) {
          const user = yield* claimOne
          if (user === undefined) return
          yield* fitFirst
          yield* Ref.update(ran, (users) => [...users, user])
          yield* withHeartbeat(user, runOne(user))
          // Between users, requests waiting on the event loop go first.
          yield* Effect.yieldNow()
        }
      })
      yield* Effect.all(
        Array.from({ length: RUN_CONCURRENCY }, () => lane),
        { concurrency: "unbounded" },
      )
      return yield* Ref.get(ran)
    })

    /** Missing users get a job, deleted users lose theirs, a job in a stale zone is rescheduled. */
    const reconcile = Effect.fn("RebuildScheduler.reconcile")(function* () {
      const now = yield* currentDate
      const users = yield* accounts.listUsers()
      const result = yield* jobs.reconcile(
        users.map((user) => ({ user: user.id, timeZone: user.timezone, nextRunAt: nextRunAt(user.timezone, now) })),
      )
      if (result.added + result.rescheduled + result.removed > 0)
        yield* Effect.logInfo(
          `rebuild jobs reconciled: ${result.added} added, ${result.rescheduled} rescheduled, ${result.removed} removed`,
        )
      return result
    })

    return { runDue, reconcile, closeInterrupted } as const
  }),
  dependencies: [RebuildJobRepository.Default],
}) {}

const logged =
  (what: string) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.catchAllCause(effect, (cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.logError(`${what} failed`, cause),
    )

/**
 * The scheduler running in the background for as long as the server does (style 2.8): at start the job set
 * is reconciled and every job already due runs (catch-up); then due jobs are looked for every `TICK_EVERY`
 * and the job set is reconciled every `RECONCILE_EVERY`. Both follow Effect's Clock.
 */
export const RebuildSchedulerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const scheduler = yield* RebuildScheduler
    yield* scheduler
      .reconcile()
      .pipe(
        logged("rebuild job reconciliation"),
        Effect.zipRight(
          scheduler.runDue().pipe(logged("daily rebuild tick"), Effect.repeat(Schedule.spaced(TICK_EVERY))),
        ),
        Effect.forkScoped,
      )
    yield* Effect.sleep(RECONCILE_EVERY).pipe(
      Effect.zipRight(scheduler.reconcile().pipe(logged("rebuild job reconciliation"))),
      Effect.forever,
      Effect.forkScoped,
    )
  }),
)
