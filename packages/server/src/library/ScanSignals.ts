import { Effect, PubSub, type Scope } from "effect"

/**
 * "A scan finished": the scanner announces each completed scan here, so work that follows a scan (enrichment of
 * new and changed albums and artists) starts at once instead of at its next poll. Best effort, in-process.
 */
export class ScanSignals extends Effect.Service<ScanSignals>()("@tonearm/server/ScanSignals", {
  effect: Effect.gen(function* () {
    const finished = yield* PubSub.sliding<void>(16)
    return {
      /** Called by the scanner when a scan completed. */
      completed: PubSub.publish(finished, undefined).pipe(Effect.asVoid),
      /** A queue of completed scans for the caller's scope. */
      subscribe: PubSub.subscribe(finished) as Effect.Effect<import("effect").Queue.Dequeue<void>, never, Scope.Scope>,
    } as const
  }),
}) {}
