import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import type { FileFormat, Listen, MatchCandidate } from "@tonearm/core"
import { Data, Effect, Queue, type Scope } from "effect"
import type { WorkerIn, WorkerItem, WorkerOut } from "./importProtocol.js"

/** Why an import stopped: `badFile` when the upload is not what its source says (never a server fault). */
export class ImportFailed extends Data.TaggedError("ImportFailed")<{
  readonly message: string
  readonly badFile: boolean
}> {}

/** V8's young generation per worker: parsing makes short-lived garbage; a small nursery keeps RSS flat. */
const WORKER_YOUNG_GENERATION_MB = 8

/**
 * From a build the worker is `importWorker.js` next to the bundle; from the sources (tsx, vitest) it is
 * `importWorker.ts`, which a worker thread loads only after registering tsx's loader in it.
 */
const spawn = (): Worker => {
  const here = import.meta.url
  if (!new URL(here).pathname.endsWith(".ts"))
    return new Worker(new URL("./importWorker.js", here), {
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    })
  // A test run bundles the worker once (packages/server/test/support/globalSetup.ts): starting it through tsx
  // compiles its sources again in every thread (~4 s of CPU per import instead of ~0.1 s).
  const bundled = process.env.TONEARM_SOURCE_WORKERS
  if (bundled !== undefined && bundled !== "")
    return new Worker(pathToFileURL(`${bundled}/importWorker.mjs`), {
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    })
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href
  const entry = new URL("./importWorker.ts", here).href
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}) })`,
    { eval: true, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } },
  )
}

export interface MatchWorker {
  /** Adds library tracks to what the worker matches against (sent in slices before the first listen). */
  readonly loadCatalog: (candidates: ReadonlyArray<MatchCandidate>) => Effect.Effect<void>
  /**
   * Reads an uploaded file from record `skip` on; each batch is handed to `onBatch` (which writes it) before the
   * worker reads further. Answers how many records the file holds.
   */
  readonly readFile: <E, R>(
    path: string,
    format: FileFormat,
    skip: number,
    batchSize: number,
    onBatch: (items: ReadonlyArray<WorkerItem>, position: number) => Effect.Effect<void, E, R>,
  ) => Effect.Effect<{ readonly position: number; readonly invalid: number }, ImportFailed | E, R>
  /** Matches listens pulled from elsewhere (a Last.fm page); positions continue from `firstPosition`. */
  readonly match: (
    firstPosition: number,
    listens: ReadonlyArray<Listen>,
  ) => Effect.Effect<ReadonlyArray<WorkerItem>, ImportFailed>
}

/** One worker thread for one import, terminated with the scope (an interrupted import leaves none behind). */
export const makeMatchWorker: Effect.Effect<MatchWorker, never, Scope.Scope> = Effect.gen(function* () {
  const inbox = yield* Queue.unbounded<WorkerOut>()
  const worker = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const thread = spawn()
      thread.on("message", (message: WorkerOut) => Queue.unsafeOffer(inbox, message))
      thread.on("error", (error) =>
        Queue.unsafeOffer(inbox, {
          type: "error",
          message: `the import worker crashed: ${error.message}`,
          badFile: false,
        }),
      )
      thread.on("exit", (code) =>
        Queue.unsafeOffer(inbox, { type: "error", message: `the import worker exited (${code})`, badFile: false }),
      )
      return thread
    }),
    (thread) => Effect.promise(() => thread.terminate()),
  )
  const post = (message: WorkerIn) => Effect.sync(() => worker.postMessage(message))
  let nextId = 0

  const readFile: MatchWorker["readFile"] = (path, format, skip, batchSize, onBatch) =>
    Effect.gen(function* () {
      yield* post({ type: "file", path, format, skip, batchSize })
      while (true) {
        const message = yield* Queue.take(inbox)
        switch (message.type) {
          case "batch":
            yield* onBatch(message.items, message.position)
            yield* post({ type: "ack" })
            break
          case "end":
            return { position: message.position, invalid: message.invalid }
          case "error":
            return yield* new ImportFailed({ message: message.message, badFile: message.badFile })
          case "matched":
            break
        }
      }
    })

  const match: MatchWorker["match"] = (firstPosition, listens) =>
    Effect.gen(function* () {
      const id = nextId++
      yield* post({ type: "match", id, firstPosition, listens })
      while (true) {
        const message = yield* Queue.take(inbox)
        if (message.type === "matched" && message.id === id) return message.items
        if (message.type === "error")
          return yield* new ImportFailed({ message: message.message, badFile: message.badFile })
      }
    })

  return {
    loadCatalog: (candidates) => post({ type: "catalog", candidates }),
    readFile,
    match,
  }
})
