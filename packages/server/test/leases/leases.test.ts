import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Context, Duration, Effect, Exit, Layer, Option, Ref, Scope } from "effect"
import { Leases } from "../../src/leases/index.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { QuietLogs } from "../support/TestServer.js"

/**
 * Issue 30 item 1: every background duty runs on exactly one replica, under a lease row in PostgreSQL, and moves
 * to another replica within a bounded time when its holder stops or dies. Each "replica" here is a Leases of its
 * own (its own holder id) on the one test database; the scale-out test does the same with processes and SIGKILL.
 */
const TTL_MS = 1_000
const BEAT_MS = TTL_MS / 4
/** Scheduling slack on a busy 2-core machine. */
const SLACK_MS = 700

/** One replica's Leases, living as long as `scope`. */
const replica = (scope: Scope.Scope) =>
  Layer.buildWithScope(Layer.fresh(Leases.Default), scope).pipe(
    Effect.map(Context.get(Leases)),
    Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["TONEARM_LEASE_TTL_MS", String(TTL_MS)]]))),
  )

/** Reads `read` every 20 ms until `done` holds (Some of the value), or None after `ms`. */
const waitUntil = <A, E, R>(read: Effect.Effect<A, E, R>, done: (value: A) => boolean, ms: number) =>
  Effect.gen(function* () {
    while (true) {
      const value = yield* read
      if (done(value)) return value
      yield* Effect.sleep(Duration.millis(20))
    }
  }).pipe(Effect.timeoutOption(Duration.millis(ms)))

/** Records which replicas run a duty: every start, and how many ran at once at most. */
const tracker = Effect.gen(function* () {
  const starts = yield* Ref.make<ReadonlyArray<{ readonly who: string; readonly at: number }>>([])
  const running = yield* Ref.make(0)
  const most = yield* Ref.make(0)
  const duty = (who: string) =>
    Effect.acquireRelease(
      Effect.gen(function* () {
        yield* Ref.update(starts, (all) => [...all, { who, at: Date.now() }])
        const now = yield* Ref.updateAndGet(running, (n) => n + 1)
        yield* Ref.update(most, (m) => Math.max(m, now))
      }),
      () => Ref.update(running, (n) => n - 1),
    )
  /** Waits (up to `ms`) for the `n`th start. */
  const nth = (n: number, ms: number) =>
    waitUntil(Ref.get(starts), (all) => all.length >= n, ms).pipe(Effect.map(Option.map((all) => all[n - 1]!)))
  return { starts, running, most, duty, nth }
})

layer(Layer.mergeAll(TestDatabaseLive, QuietLogs), { excludeTestServices: true })("leases", (it) => {
  it.effect("a duty runs on exactly one replica; when its holder stops, another takes it within ttl / 4", () =>
    Effect.gen(function* () {
      const scopes = { a: yield* Scope.make(), b: yield* Scope.make() }
      const a = yield* replica(scopes.a)
      const b = yield* replica(scopes.b)
      expect(a.holder).not.toBe(b.holder)
      const track = yield* tracker
      yield* a.duty("test-duty", track.duty("a")).pipe(Scope.extend(scopes.a))
      yield* b.duty("test-duty", track.duty("b")).pipe(Scope.extend(scopes.b))
      yield* Effect.sleep(Duration.millis(TTL_MS * 2))
      const [first] = yield* Ref.get(track.starts)
      expect(yield* Ref.get(track.starts)).toHaveLength(1)
      expect(yield* Ref.get(track.running)).toBe(1)

      // The holder stops (SIGTERM): it lets the lease go, the other replica takes the duty on its next ask.
      const stoppedAt = Date.now()
      yield* Scope.close(first!.who === "a" ? scopes.a : scopes.b, Exit.void)
      const second = yield* track.nth(2, TTL_MS * 3)
      expect(Option.isSome(second)).toBe(true)
      const next = Option.getOrThrow(second)
      expect(next.who).not.toBe(first!.who)
      expect(next.at - stoppedAt).toBeLessThan(BEAT_MS + SLACK_MS)
      expect(yield* Ref.get(track.most)).toBe(1)
      yield* Scope.close(first!.who === "a" ? scopes.b : scopes.a, Exit.void)
      expect(yield* Ref.get(track.running)).toBe(0)
    }),
  )

  it.effect("a holder that died (its lease left running) is taken over once it runs out: within ttl + ttl / 4", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      // What a SIGKILLed replica leaves: a lease renewed just now that nobody will renew again.
      yield* sql`
        INSERT INTO leases (name, holder, acquired_at, renewed_at, expires_at)
        VALUES ('dead-duty', 'gone:1:000000', clock_timestamp(), clock_timestamp(),
          clock_timestamp() + ${TTL_MS}::int * interval '1 millisecond')`
      const diedAt = Date.now()
      const scope = yield* Scope.make()
      const survivor = yield* replica(scope)
      const track = yield* tracker
      yield* survivor.duty("dead-duty", track.duty("survivor")).pipe(Scope.extend(scope))
      const taken = Option.getOrThrow(yield* track.nth(1, TTL_MS * 3))
      // Not before the dead holder's lease ran out, and at most one ask after it.
      expect(taken.at - diedAt).toBeGreaterThanOrEqual(TTL_MS - 50)
      expect(taken.at - diedAt).toBeLessThan(TTL_MS + BEAT_MS + SLACK_MS)
      const [row] = (yield* survivor.list).filter((lease) => lease.name === "dead-duty")
      expect(row).toMatchObject({ holder: survivor.holder, generation: 2, live: true })
      yield* Scope.close(scope, Exit.void)
      const [released] = (yield* survivor.list).filter((lease) => lease.name === "dead-duty")
      expect(released!.live).toBe(false)
    }),
  )

  it.effect("a holder whose lease another replica took (it stalled past its expiry) stops its duty", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const scope = yield* Scope.make()
      const stalled = yield* replica(scope)
      const track = yield* tracker
      yield* stalled.duty("stolen-duty", track.duty("stalled")).pipe(Scope.extend(scope))
      yield* track.nth(1, TTL_MS * 2)
      expect(yield* Ref.get(track.running)).toBe(1)
      yield* sql`
        UPDATE leases SET holder = 'other:2:000000', generation = generation + 1,
          expires_at = clock_timestamp() + interval '1 minute'
        WHERE name = 'stolen-duty'`
      const takenAt = Date.now()
      yield* waitUntil(Ref.get(track.running), (n) => n === 0, BEAT_MS + SLACK_MS)
      expect(Date.now() - takenAt).toBeLessThan(BEAT_MS + SLACK_MS)
      // It keeps asking, and does not get it while the other holder's lease runs.
      yield* Effect.sleep(Duration.millis(BEAT_MS * 2))
      expect(yield* Ref.get(track.starts)).toHaveLength(1)
      yield* Scope.close(scope, Exit.void)
    }),
  )

  it.effect("exclusive: of two replicas asking at once, one runs and the other is told it is held", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const [a, b] = [yield* replica(scope), yield* replica(scope)]
      const work = Effect.sleep(Duration.millis(300)).pipe(Effect.as("ran"))
      const answers = yield* Effect.all([a.exclusive("scan-like", work), b.exclusive("scan-like", work)], {
        concurrency: 2,
      })
      expect(answers.filter(Option.isSome)).toHaveLength(1)
      expect(yield* a.held("scan-like")).toBe(false)
      // Released at once: the next ask runs.
      expect(yield* b.exclusive("scan-like", work)).toEqual(Option.some("ran"))
      yield* Scope.close(scope, Exit.void)
    }),
  )
})
