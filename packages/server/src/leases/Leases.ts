import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import { Cause, Clock, Config, Deferred, Duration, Effect, Exit, Layer, Option, type Scope } from "effect"
import { LeaseRepository } from "./LeaseRepository.js"

/**
 * How long a lease lasts without a heartbeat (`TONEARM_LEASE_TTL_MS`, default 20 s). Its holder renews it every
 * quarter of that, and the others ask for it as often, so a duty whose replica died (SIGKILL, power, a network
 * split) runs again on another within `ttl + ttl / 4` (25 s by default) of its last heartbeat; one whose replica
 * stopped cleanly (SIGTERM) lets it go, and another takes it within `ttl / 4`.
 */
export const LEASE_TTL_MS = Config.integer("TONEARM_LEASE_TTL_MS").pipe(
  Config.validate({ message: "must be 500 milliseconds or more", validation: (ms) => ms >= 500 }),
  Config.withDefault(20_000),
)

/** A library's scans, one at a time across every replica (API, watcher, timer, boot, `tonearm scan`). */
export const scanLeaseOf = (libraryId: number): string => `scan:${libraryId}`

/** A lease this process holds: its generation, and `lost` which completes if it stops being ours. */
export interface HeldLease {
  readonly name: string
  readonly generation: number
  /** Who held it before (a dead replica's id after a takeover), if anyone. */
  readonly previous: string | null
  /** Completes when a heartbeat finds the lease taken over, or cannot renew it before it runs out. */
  readonly lost: Effect.Effect<void>
}

/**
 * Background duties that must run exactly once across replicas, each under a named lease in PostgreSQL (a row
 * with its holder, an expiry and a heartbeat; see migration 0026). `hold` takes one for a scope (a scan);
 * `duty` keeps a duty running on whichever replica holds its lease, moving it when that replica dies.
 */
export class Leases extends Effect.Service<Leases>()("@tonearm/server/Leases", {
  effect: Effect.gen(function* () {
    const repository = yield* LeaseRepository
    const ttlMs = yield* Effect.orDie(LEASE_TTL_MS)
    const beatMs = Math.max(100, Math.floor(ttlMs / 4))
    // One id per instance: host, pid and a random tag (a pid is reused after a restart; tests build several
    // instances in one process). Not Effect's Random: a test's seeded Random would give two instances one id.
    const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`

    /**
     * Tries once to take `name` for the calling scope: None when another process holds it. While held, a heartbeat
     * renews it every `ttl / 4`; the scope's end lets it go. `lost` completes if a renewal finds it taken (this
     * process was stalled past its expiry) or no renewal succeeded for a whole `ttl` (the database is away): the
     * holder must stop, another replica may be running the duty already.
     */
    const hold = (name: string): Effect.Effect<Option.Option<HeldLease>, never, Scope.Scope> =>
      Effect.gen(function* () {
        const taken = yield* repository.acquire(name, holder, ttlMs)
        if (Option.isNone(taken)) return Option.none<HeldLease>()
        const { generation, previous } = taken.value
        const lost = yield* Deferred.make<void>()
        yield* Effect.addFinalizer(() =>
          Effect.flatMap(Deferred.isDone(lost), (gone) =>
            gone ? Effect.void : repository.release(name, holder, generation).pipe(Effect.ignore),
          ),
        )
        const renewedAt = yield* Clock.currentTimeMillis
        let lastRenewal = renewedAt
        yield* Effect.gen(function* () {
          yield* Effect.sleep(Duration.millis(beatMs))
          const kept = yield* Effect.either(repository.renew(name, holder, generation, ttlMs))
          const now = yield* Clock.currentTimeMillis
          if (kept._tag === "Right" && kept.right) {
            lastRenewal = now
            return true
          }
          if (kept._tag === "Right" || now - lastRenewal >= ttlMs) {
            yield* Effect.logWarning(
              `lease ${name}: lost by ${holder} (${kept._tag === "Right" ? "taken over" : "could not renew it"})`,
            )
            yield* Deferred.succeed(lost, undefined)
            return false
          }
          return true
        }).pipe(Effect.repeat({ while: (going) => going }), Effect.forkScoped)
        return Option.some<HeldLease>({ name, generation, previous, lost: Deferred.await(lost) })
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logWarning(`lease ${name}: could not ask for it`, cause).pipe(Effect.as(Option.none<HeldLease>())),
        ),
      )

    /** Runs `effect` holding `name`, stopped if the lease is lost; None at once when another process holds it. */
    const exclusive = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
      Effect.scoped(
        Effect.gen(function* () {
          const held = yield* hold(name)
          if (Option.isNone(held)) return Option.none<A>()
          return Option.some(
            yield* Effect.raceFirst(
              effect,
              Effect.zipRight(held.value.lost, Effect.dieMessage(`lease ${name} was lost while it ran`)),
            ),
          )
        }),
      )

    /**
     * Keeps `run` going on exactly one replica: forked into the caller's scope, it asks for `name` every `ttl / 4`;
     * the replica that gets it logs so and runs `run` (a loop, or a setup whose scope lives as long as the lease),
     * until the lease is lost or the scope ends (then the lease is let go for the next replica). A `run` that fails
     * is logged and started again after `ttl / 4`. `dutyWith` gives `run` the lease it holds (its generation fences
     * what the run claims: a later holder knows an older generation's claims are orphans).
     */
    const dutyWith = <E, R>(name: string, run: (held: HeldLease) => Effect.Effect<unknown, E, R>) =>
      Effect.gen(function* () {
        const once = Effect.scoped(
          Effect.gen(function* () {
            const held = yield* hold(name)
            if (Option.isNone(held)) return
            const { generation, previous } = held.value
            yield* Effect.logInfo(
              `lease ${name}: held by ${holder} (generation ${generation}` +
                (previous !== null && previous !== holder ? `, taken from ${previous})` : ")"),
            )
            // `run` ends only by failing; the lease's loss ends the race and interrupts it.
            const exit = yield* Effect.raceFirst(
              Effect.scoped(Effect.zipRight(run(held.value), Effect.never)),
              held.value.lost,
            ).pipe(Effect.exit)
            if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause))
              yield* Effect.logError(`lease ${name}: the duty failed; it starts again`, exit.cause)
          }),
        )
        yield* once.pipe(Effect.zipRight(Effect.sleep(Duration.millis(beatMs))), Effect.forever, Effect.forkScoped)
      })

    const duty = <E, R>(name: string, run: Effect.Effect<unknown, E, R>) => dutyWith(name, () => run)

    return {
      holder,
      ttlMs,
      hold,
      exclusive,
      duty,
      dutyWith,
      /** Whether any process holds `name` now. */
      held: repository.held,
      /** Every lease as stored (tests, operators). */
      list: repository.list,
    } as const
  }),
  dependencies: [LeaseRepository.Default],
}) {}

/**
 * A background layer (a watcher, a sweep loop) built on exactly one replica: on the one holding `name`, torn down
 * when that lease is lost, built again on the replica that takes it over.
 */
export const dutyLayer = <E, R>(name: string, layer: Layer.Layer<never, E, R>) =>
  Layer.scopedDiscard(Effect.flatMap(Leases, (leases) => leases.duty(name, Layer.build(layer))))
