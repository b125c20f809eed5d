import {
  NotFound,
  type RebuildRequest,
  RebuildRun,
  type RebuildRunId,
  RebuildRunId as RebuildRunIdSchema,
  RebuildStarted,
  type UserId,
} from "@tonearm/core"
import { Cause, DateTime, Effect, Ref } from "effect"
import { AccountsService } from "../accounts/index.js"
import { RUN_CONCURRENCY } from "./RebuildScheduler.js"
import { RebuildService } from "./RebuildService.js"

/** Finished runs kept for their status route; the oldest go first. */
const KEPT_RUNS = 100

/**
 * Rebuilds an admin asks for outside the 03:00 schedule (`tonearm rebuild`): they run in the background on
 * this server, off the request, and their progress is kept in memory (a restart forgets it; another replica
 * does not know it).
 */
export class RebuildRunsService extends Effect.Service<RebuildRunsService>()("@tonearm/server/RebuildRunsService", {
  scoped: Effect.gen(function* () {
    const rebuilds = yield* RebuildService
    const accounts = yield* AccountsService
    const scope = yield* Effect.scope
    const runs = yield* Ref.make<ReadonlyMap<RebuildRunId, RebuildRun>>(new Map())

    const update = (id: RebuildRunId, change: (run: RebuildRun) => RebuildRun) =>
      Ref.update(runs, (all) => {
        const run = all.get(id)
        if (run === undefined) return all
        const next = new Map(all)
        next.set(id, change(run))
        return next
      })

    /** Which users a request names: one by name (404 when unknown) or everyone. */
    const usersOf = (request: RebuildRequest) =>
      Effect.gen(function* () {
        const users = yield* accounts.listUsers()
        if (request.username === undefined) return users.map((user) => user.id)
        const wanted = request.username.toLowerCase()
        const found = users.find((user) => user.username.toLowerCase() === wanted)
        if (found === undefined)
          return yield* new NotFound({ message: `no user named ${request.username}`, resource: "user" })
        return [found.id]
      })

    const start = Effect.fn("RebuildRunsService.start")(function* (request: RebuildRequest) {
      const users = yield* usersOf(request)
      const id = RebuildRunIdSchema.make(crypto.randomUUID())
      const run = new RebuildRun({
        id,
        state: "running",
        total: users.length,
        done: 0,
        failed: 0,
        started_at: yield* DateTime.now,
        finished_at: null,
      })
      yield* Ref.update(runs, (all) => {
        const next = new Map(all)
        next.set(id, run)
        for (const old of next.keys()) if (next.size > KEPT_RUNS) next.delete(old)
        return next
      })
      const one = (user: UserId) =>
        rebuilds.rebuild(user).pipe(
          Effect.matchCauseEffect({
            onSuccess: () => update(id, (r) => new RebuildRun({ ...r, done: r.done + 1 })),
            onFailure: (cause) =>
              Cause.isInterruptedOnly(cause)
                ? Effect.interrupt
                : Effect.logError(`rebuild of user ${user} failed`, cause).pipe(
                    Effect.zipRight(update(id, (r) => new RebuildRun({ ...r, failed: r.failed + 1 }))),
                  ),
          }),
        )
      yield* Effect.forEach(users, one, { concurrency: RUN_CONCURRENCY, discard: true }).pipe(
        Effect.zipRight(
          Effect.flatMap(DateTime.now, (now) =>
            update(id, (r) => new RebuildRun({ ...r, state: r.failed > 0 ? "failed" : "done", finished_at: now })),
          ),
        ),
        Effect.forkIn(scope),
      )
      return new RebuildStarted({ id, total: users.length })
    })

    const status = Effect.fn("RebuildRunsService.status")(function* (id: RebuildRunId) {
      const run = (yield* Ref.get(runs)).get(id)
      if (run === undefined)
        return yield* new NotFound({ message: "no such rebuild run on this server", resource: "rebuild_run" })
      return run
    })

    return { start, status } as const
  }),
}) {}
