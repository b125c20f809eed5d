// The recommendation engine's process (RecommendationEngineWorker.ts forks it): keeps the prepared catalog of one
// library version and computes rebuilds, radios and similar artists off the HTTP event loop, at a lower priority.
// Time and chance come from the caller: each job carries the caller's `now` and a seed drawn from its Random.
import type { TrackId } from "@tonearm/core"
import { buildCatalog, type Catalog, fitSimilarityData, radio, rebuildUser, summarizeHistory } from "@tonearm/recommend"
import { Cause, Clock, Effect, Exit, Option, Random } from "effect"
import { libraryTracksOf } from "../library/catalogColumns.js"
import { lowerThisProcessPriority } from "../threadPriority.js"
import {
  ENGINE_PROCESS_ENV,
  PATCHED_SIGNALS,
  type SignalPatch,
  type WorkerJob,
  type WorkerReply,
} from "./engineProtocol.js"
import { learnedSimilarityCache } from "./learnedSimilarityCache.js"
import {
  patchedSharedDerivation,
  playRowsOf,
  type SharedDerivation,
  type SharedPlayCounts,
  sharedDerivation,
  sharedSignals,
  toResult,
} from "./RecommendationEngine.js"

/** A Clock stopped at the caller's instant: the engine reads `now` from it, and never sleeps. */
export const fixedClock = (now: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => now,
  currentTimeMillis: Effect.succeed(now),
  unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(now) * 1_000_000n),
  sleep: () => Effect.void,
})

/** The learned artist similarity this process holds between similar-artist jobs (the server holds the fit). */
const learned = learnedSimilarityCache()

/** Runs one job against `catalog` exactly as the in-process engine would, at `now` with Random(seed). */
export const runJob = (
  catalog: Catalog,
  job: Exclude<WorkerJob, { readonly type: "catalog" }>,
  derive: SharedDerivation = sharedDerivation(),
) => {
  const compute = (): Effect.Effect<unknown, unknown> => {
    switch (job.type) {
      case "rebuild": {
        const plays = playRowsOf(job.input.plays)
        return Effect.map(
          rebuildUser({
            catalog,
            plays,
            likes: job.input.likes,
            timeZone: job.input.timeZone,
            tuning: job.input.tuning,
            signals: { ...sharedSignals(job.input.signals, plays, derive), jitterSalt: job.input.user },
          }),
          toResult,
        )
      }
      case "radio": {
        const plays = playRowsOf(job.input.plays)
        const history = summarizeHistory({
          catalog,
          plays,
          likes: job.input.likes,
          timeZone: job.input.timeZone,
        })
        return radio(
          {
            ...sharedSignals(job.input.signals, plays, derive),
            profile: job.profile,
            candidates: catalog,
            history,
            tuning: job.input.tuning,
            jitterSalt: job.input.user,
          },
          job.seed,
          job.options,
        )
      }
      case "similar":
        return Effect.sync(() => learned.similar(catalog, job.query, job.model))
      case "fitSimilarity":
        return Effect.sync(() => {
          const fitted = fitSimilarityData(catalog, job.coListens)
          learned.keep(job.key, fitted)
          return fitted
        })
    }
  }
  // Suspended: a malformed input that throws while decoding answers a defect instead of crashing the worker.
  return Effect.suspend(compute).pipe(
    Effect.withClock(fixedClock(job.now)),
    Effect.withRandom(Random.make(job.randomSeed)),
  )
}

/** Applies a patch to the map this worker holds for that signal; answers the map to use. */
export const applyPatch = (
  held: Map<string, number> | undefined,
  patch: SignalPatch,
): Map<string, number> | undefined => {
  switch (patch.kind) {
    case "none":
      return undefined
    case "full":
      return patch.map as Map<string, number>
    case "patch": {
      const map = held ?? new Map<string, number>()
      for (const key of patch.removed) map.delete(key)
      for (const [key, value] of patch.set) map.set(key, value)
      return map
    }
  }
}

const send = process.send?.bind(process)
// Only as the engine's process: tests import this module for its functions.
if (send !== undefined && process.env[ENGINE_PROCESS_ENV] === "1") {
  // A nightly run keeps this process busy for minutes: requests on the server's event loop come first.
  lowerThisProcessPriority()
  // The server went away (or closed the channel): nothing is left to answer.
  process.on("disconnect", () => process.exit(0))
  let current: { readonly version: string; readonly catalog: Catalog } | undefined
  const held = new Map<string, Map<string, number> | undefined>()
  /** The server-wide play counts last sent (one per counting window), and their popularity. */
  let shared: SharedPlayCounts | undefined
  const derive = patchedSharedDerivation()
  process.on("message", (job: WorkerJob) => {
    if (job.type === "catalog") {
      // The main thread sends a version at most once; the rows are dropped once prepared.
      current = undefined
      current = { version: job.version, catalog: buildCatalog(libraryTracksOf(job.tracks)) }
      return
    }
    const reply = (message: WorkerReply) => send(message)
    if (current === undefined || current.version !== job.version) {
      reply({ id: job.id, ok: false, error: { tag: "Defect", message: `catalog ${job.version} was never sent` } })
      return
    }
    if (job.type !== "similar" && job.type !== "fitSimilarity") {
      // The patches follow each other in posting order, so they always apply to what the sender last sent.
      const signals: Record<string, unknown> = { ...job.input.signals }
      for (const name of PATCHED_SIGNALS) {
        const map = applyPatch(held.get(name), job.patched[name])
        held.set(name, map)
        signals[name] = map
      }
      if (job.shared !== undefined) {
        if (job.shared.counts !== undefined)
          shared = {
            version: job.shared.version,
            sinceMs: job.shared.sinceMs,
            counts: job.shared.counts as ReadonlyMap<TrackId, number>,
          }
        if (shared?.version !== job.shared.version) {
          const message = `play counts ${job.shared.version} were never sent`
          reply({ id: job.id, ok: false, error: { tag: "Defect", message } })
          return
        }
        signals.sharedPlays = shared
      }
      ;(job as { input: unknown }).input = { ...job.input, signals }
    }
    const exit = Effect.runSyncExit(runJob(current.catalog, job, derive))
    if (Exit.isSuccess(exit)) {
      reply({ id: job.id, ok: true, value: exit.value })
      return
    }
    const failure = Option.getOrUndefined(Cause.failureOption(exit.cause)) as
      | { readonly _tag?: string; readonly seed?: unknown }
      | undefined
    reply(
      failure?._tag === "RadioSeedNotFound"
        ? { id: job.id, ok: false, error: { tag: "RadioSeedNotFound", seed: failure.seed } }
        : { id: job.id, ok: false, error: { tag: "Defect", message: String(exit.cause) } },
    )
  })
}
