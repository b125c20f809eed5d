import { type ChildProcess, fork } from "node:child_process"
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Internal } from "@tonearm/core"
import type { FittedSimilarity, SeedSimilarities } from "@tonearm/recommend"
import { type Pick, type RadioSeed, RadioSeedNotFound } from "@tonearm/recommend"
import { Clock, Effect, Layer, Random } from "effect"
import { collectGarbageWhenIdle } from "../idleGc.js"
import { idleWorkers } from "../idleWorkers.js"
import {
  ENGINE_PROCESS_ENV,
  PATCHED_SIGNALS,
  type PatchedSignals,
  type SharedPlaysRef,
  type SignalPatch,
  type WorkerJob,
  type WorkerReply,
} from "./engineProtocol.js"
import {
  type CatalogSource,
  type EngineInput,
  type RebuildResult,
  RecommendationEngine,
} from "./RecommendationEngine.js"

/**
 * The seed a job's Random starts from, drawn from the caller's Random: the worker answers what the
 * in-process engine answers under `Effect.withRandom(Random.make(seed))` at the same `now`.
 */
export const engineSeed: Effect.Effect<number> = Random.nextIntBetween(0, 2 ** 31 - 1)

/** One worker per spare core (the HTTP event loop keeps one), at least one. */
export const defaultEngineWorkers = () => Math.max(1, availableParallelism() - 1)

/**
 * The old-generation heap of one engine process. The prepared catalog of a 100k-track library and one rebuild's
 * working set live in well under half of it; without a limit V8 sizes the heap from the machine's memory and lets
 * each rebuild's garbage (library-sized score arrays) pile up between major collections: ~870 MB of RSS at peak
 * instead of ~610 MB in the bench's shape, at no measurable cost per user.
 */
export const ENGINE_WORKER_HEAP_MB = 512

/**
 * Engine processes are stopped after this long without a job and started again with the next one (which sends
 * them the catalog again): an idle one holds its V8 heap and the prepared catalog (50–100 MB for a 20k-track
 * library), which a server between rebuilds and radios should not keep. A nightly rebuild or a burst of radios
 * keeps them busy well within it; a restart costs a spawn and one catalog load.
 */
export const ENGINE_WORKERS_IDLE_MS = 30_000

const live = new Set<ChildProcess>()
/** Engine processes alive for this server (for tests and the idle-memory bench). */
export const liveEngineWorkers = (): number => live.size
/** Their process ids (the benches add their memory to the server's). */
export const engineProcessIds = (): ReadonlyArray<number> =>
  [...live].flatMap((child) => (child.pid === undefined ? [] : [child.pid]))

/**
 * The engine runs in its own node process, not a worker thread: V8 collects every isolate's garbage on one
 * process-wide set of helper threads, at normal priority, so the engine's collections (a heap holding the
 * prepared catalog, marked again and again through a nightly run) took the cores the HTTP event loop needed.
 * The process collects on its own thread (`--single-threaded-gc`) and runs every thread at nice 10
 * (`engineWorker.ts`). Messages use V8's serialisation, as `postMessage` did (maps, buffers).
 * From a build the entry is `engineWorker.js` next to the bundle (tsup and the bench bundle emit it); from the
 * sources (tsx, vitest) it is `engineWorker.ts`, loaded through tsx's loader.
 */
class EngineProcess {
  readonly child: ChildProcess
  constructor() {
    const here = import.meta.url
    const fromSources = new URL(here).pathname.endsWith(".ts")
    const entry = fileURLToPath(new URL(fromSources ? "./engineWorker.ts" : "./engineWorker.js", here))
    const loader = fromSources ? ["--import", pathToFileURL(createRequire(here).resolve("tsx")).href] : []
    this.child = fork(entry, [], {
      serialization: "advanced",
      execArgv: [
        ...loader,
        `--max-old-space-size=${ENGINE_WORKER_HEAP_MB}`,
        "--max-semi-space-size=8",
        "--single-threaded-gc",
      ],
      env: { ...process.env, [ENGINE_PROCESS_ENV]: "1", MALLOC_ARENA_MAX: "2" },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    })
    live.add(this.child)
    this.child.once("exit", () => live.delete(this.child))
    // A send to a process that just died reports here, and as its exit: the exit handler fails its jobs.
    this.child.on("error", () => {})
  }
  postMessage(message: WorkerJob): void {
    if (this.child.connected) this.child.send(message)
  }
  terminate(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve()
    return new Promise((resolve) => {
      this.child.once("exit", () => resolve())
      this.child.kill()
    })
  }
}

/**
 * The patch that turns `previous` (what the worker holds) into `next`; the whole map when that is about as
 * small, or when there is nothing to patch.
 */
export const signalPatch = (
  previous: ReadonlyMap<string, number> | undefined,
  next: ReadonlyMap<string, number> | undefined,
): SignalPatch => {
  if (next === undefined) return { kind: "none" }
  if (previous === undefined || previous === next)
    return previous === next ? { kind: "patch", set: [], removed: [] } : { kind: "full", map: next }
  const limit = next.size / 4
  const set: Array<readonly [string, number]> = []
  const removed: Array<string> = []
  for (const [key, value] of next) {
    if (previous.get(key) !== value) set.push([key, value])
    if (set.length > limit) return { kind: "full", map: next }
  }
  for (const key of previous.keys()) {
    if (!next.has(key)) removed.push(key)
    if (set.length + removed.length > limit) return { kind: "full", map: next }
  }
  return { kind: "patch", set, removed }
}

type Resume = (reply: WorkerReply) => void
interface Slot {
  readonly worker: EngineProcess
  readonly pending: Map<number, Resume>
  /** The catalog version this worker holds (posted once per version). */
  sent: string | undefined
  /** The per-track signal maps this worker holds (what the next patches apply to). */
  readonly signals: Map<string, ReadonlyMap<string, number> | undefined>
  /** The version of the server-wide play counts this worker holds (posted once per version). */
  sharedSent: string | undefined
  /** The key of the learned similarity this worker holds (posted once per fit, or fitted there). */
  modelSent: string | undefined
}

const defect = (message: string) => new Internal({ message: `recommendation engine: ${message}` })

/**
 * The engine in worker processes, started with the first job and stopped when the layer's scope closes.
 * Each worker keeps the prepared catalog of the library version it was last sent; the main thread loads the
 * rows only when a worker lacks the current version, and keeps none of them.
 */
export const RecommendationEngineWorker = (workers = defaultEngineWorkers(), idleMs = ENGINE_WORKERS_IDLE_MS) =>
  Layer.scoped(
    RecommendationEngine,
    Effect.gen(function* () {
      let nextId = 0
      const catalogLock = yield* Effect.makeSemaphore(1)

      const spawn = (index: number): Slot => {
        const worker = new EngineProcess()
        const slot: Slot = {
          worker,
          pending: new Map(),
          sent: undefined,
          signals: new Map(),
          sharedSent: undefined,
          modelSent: undefined,
        }
        worker.child.on("message", (reply: WorkerReply) => {
          const resume = slot.pending.get(reply.id)
          if (resume === undefined) return
          slot.pending.delete(reply.id)
          resume(reply)
        })
        // A crashed worker fails its jobs and is replaced by a fresh one (which gets the catalog again).
        const replace = (message: string) => {
          for (const [id, resume] of slot.pending) resume({ id, ok: false, error: { tag: "Defect", message } })
          slot.pending.clear()
          if (!pool.closed() && pool.slots[index] === slot) pool.slots[index] = spawn(index)
        }
        worker.child.on("exit", (code, signal) => replace(`engine process exited (${code ?? signal})`))
        return slot
      }

      const pool = yield* idleWorkers({ count: workers, idleMs, spawn })
      /** The least busy worker (the workers run while a job holds the pool: see `run`). */
      const pick = Effect.sync(() =>
        pool.slots.reduce((least, slot) => (slot.pending.size < least.pending.size ? slot : least), pool.slots[0]!),
      )

      /** Makes sure the worker holds the current catalog: one load and one post per version and worker. */
      const ensureCatalog = (slot: Slot, source: CatalogSource) =>
        slot.sent === source.version
          ? Effect.succeed(false)
          : catalogLock.withPermits(1)(
              Effect.gen(function* () {
                if (slot.sent === source.version) return false
                const tracks = yield* source.load
                slot.worker.postMessage({ type: "catalog", version: source.version, tracks } satisfies WorkerJob)
                slot.sent = source.version
                return true
              }),
            )

      type Job = WorkerJob extends infer J ? (J extends { readonly id: number } ? Omit<J, "id"> : never) : never

      /** The patched signals of `input` for this worker, its held maps moved on (call right before posting). */
      const patchedFor = (slot: Slot, input: EngineInput): PatchedSignals => {
        const patches = {} as Record<(typeof PATCHED_SIGNALS)[number], SignalPatch>
        for (const name of PATCHED_SIGNALS) {
          const next = input.signals[name] as ReadonlyMap<string, number> | undefined
          const patch = signalPatch(slot.signals.get(name), next)
          patches[name] = patch
          slot.signals.set(name, patch.kind === "none" ? undefined : next)
        }
        return patches
      }
      /** The server-wide counts of `input` for this worker: whole the first time, then by version only. */
      const sharedFor = (slot: Slot, input: EngineInput): SharedPlaysRef | undefined => {
        const shared = input.signals.sharedPlays
        if (shared === undefined) return undefined
        if (slot.sharedSent === shared.version) return { version: shared.version, sinceMs: shared.sinceMs }
        slot.sharedSent = shared.version
        return shared
      }
      const withoutPatched = (input: EngineInput): EngineInput => ({
        ...input,
        signals: { ...input.signals, crossUser: undefined, popularity: undefined, sharedPlays: undefined },
      })
      /** One user's signals as this worker takes them: only what it lacks of the big shared maps. */
      const signalsFor = (slot: Slot, input: EngineInput) => ({
        patched: patchedFor(slot, input),
        shared: sharedFor(slot, input),
        input: withoutPatched(input),
      })

      /** Posts a job (with the caller's now and a seed from its Random) and waits for its answer. */
      const run = <A>(source: CatalogSource, make: (now: number, randomSeed: number, slot: Slot) => Job) =>
        Effect.acquireUseRelease(
          Effect.sync(() => pool.jobStarted()),
          () => runJob<A>(source, make),
          () => Effect.sync(() => pool.jobEnded()),
        )
      const runJob = <A>(source: CatalogSource, make: (now: number, randomSeed: number, slot: Slot) => Job) =>
        Effect.gen(function* () {
          if (pool.closed()) return yield* Effect.fail(defect("shut down"))
          const slot = yield* pick
          const catalogPosted = yield* ensureCatalog(slot, source)
          const now = yield* Clock.currentTimeMillis
          const randomSeed = yield* engineSeed
          const reply = yield* Effect.async<WorkerReply>((resume) => {
            // Built and posted in one step: patches must reach the worker in the order they were computed.
            const id = nextId++
            const job = { ...make(now, randomSeed, slot), id } as WorkerJob
            slot.pending.set(id, (answer) => resume(Effect.succeed(answer)))
            slot.worker.postMessage(job)
            return Effect.sync(() => slot.pending.delete(id))
          })
          // The catalog's aggregate (tens of MB of text at 100k tracks) is garbage once posted, but a major GC
          // during the load may find it alive, and V8 sets the next threshold at a multiple of what its last major
          // GC kept, for the rest of a nightly run (when the catalog came as decoded rows: heap peak 405 → 255 MB
          // over 300 users). One full GC (once per load) resets it, after this first answer: right after the post,
          // the load's buffers were still reachable.
          if (catalogPosted) setImmediate(collectGarbageWhenIdle)
          if (reply.ok) return reply.value as A
          if (reply.error.tag === "RadioSeedNotFound")
            return yield* Effect.fail(new RadioSeedNotFound({ seed: reply.error.seed as RadioSeed }))
          yield* Effect.logError(`recommendation engine job failed: ${reply.error.message}`)
          return yield* Effect.fail(defect(reply.error.message))
        })

      /** Only radio can miss its seed. */
      const noSeed = <A>(effect: Effect.Effect<A, Internal | RadioSeedNotFound>) =>
        Effect.catchTag(effect, "RadioSeedNotFound", () => Effect.fail(defect("unexpected missing seed")))

      return {
        rebuild: (source, input) =>
          noSeed(
            run<RebuildResult>(source, (now, randomSeed, slot) => ({
              type: "rebuild",
              version: source.version,
              now,
              randomSeed,
              ...signalsFor(slot, input),
            })),
          ),
        radio: (source, input, profile, seed, options) =>
          run<ReadonlyArray<Pick>>(source, (now, randomSeed, slot) => ({
            type: "radio",
            version: source.version,
            now,
            randomSeed,
            ...signalsFor(slot, input),
            profile,
            seed,
            options,
          })),
        similarArtists: (source, query, model) =>
          noSeed(
            run<ReadonlyArray<SeedSimilarities>>(source, (now, randomSeed, slot) => {
              // The fit crosses to a worker once (tens of MB); later reads name it by key.
              const ref =
                model === undefined
                  ? undefined
                  : slot.modelSent === model.key
                    ? { key: model.key }
                    : { key: model.key, fitted: model.fitted }
              if (model !== undefined) slot.modelSent = model.key
              return { type: "similar", version: source.version, now, randomSeed, query, model: ref }
            }),
          ),
        fitSimilarity: (source, coListens, key) =>
          noSeed(
            run<FittedSimilarity>(source, (now, randomSeed, slot) => {
              slot.modelSent = key
              return { type: "fitSimilarity", version: source.version, now, randomSeed, key, coListens }
            }),
          ),
      }
    }),
  )
