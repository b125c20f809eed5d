import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { Effect } from "effect"
import { ImportFailed } from "../ImportSources.js"
import { BadFile, openNavidromeDb } from "./navidromeDb.js"
import type { NavidromeCatalog, NavidromeSnapshot, NavidromeWorkerIn, NavidromeWorkerOut } from "./navidromeProtocol.js"

/**
 * From a build the worker is `navidromeWorker.js` next to the bundle; from the sources (tsx, vitest) it is
 * `navidromeWorker.ts`, loaded after registering tsx's loader in the thread.
 */
const spawn = (): Worker => {
  const here = import.meta.url
  if (!new URL(here).pathname.endsWith(".ts")) return new Worker(new URL("./navidromeWorker.js", here))
  // A test run bundles the worker once (packages/server/test/support/globalSetup.ts), as for the import worker.
  const bundled = process.env.TONEARM_SOURCE_WORKERS
  if (bundled !== undefined && bundled !== "") return new Worker(pathToFileURL(`${bundled}/navidromeWorker.mjs`))
  const tsx = pathToFileURL(
    createRequire(here)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href
  const entry = new URL("./navidromeWorker.ts", here).href
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}) })`,
    { eval: true },
  )
}

/** One question to a worker thread of its own, which is ended with the answer (or with an interruption). */
const ask = (message: NavidromeWorkerIn): Effect.Effect<NavidromeWorkerOut, ImportFailed> =>
  Effect.acquireUseRelease(
    Effect.sync(spawn),
    (worker) =>
      Effect.async<NavidromeWorkerOut, ImportFailed>((resume) => {
        // The first of answer, crash or exit settles it (terminating after the answer also fires `exit`).
        let settled = false
        const settle = (effect: Effect.Effect<NavidromeWorkerOut, ImportFailed>) => {
          if (settled) return
          settled = true
          resume(effect)
        }
        worker.once("message", (answer: NavidromeWorkerOut) => settle(Effect.succeed(answer)))
        worker.once("error", (error) =>
          settle(
            Effect.fail(
              new ImportFailed({ message: `the Navidrome reader crashed: ${error.message}`, badFile: false }),
            ),
          ),
        )
        worker.once("exit", (code) =>
          settle(Effect.fail(new ImportFailed({ message: `the Navidrome reader exited (${code})`, badFile: false }))),
        )
        worker.postMessage(message)
      }),
    (worker) => Effect.promise(() => worker.terminate()),
  )

/**
 * Checks an upload is a Navidrome database (its tables and columns). Only the schema is read, so this runs where
 * it is called (the upload route): no thread to start for a few KiB.
 */
export const checkNavidromeDb = (path: string): Effect.Effect<void, ImportFailed> =>
  Effect.try({
    try: () => openNavidromeDb(path).db.close(),
    catch: (error) =>
      new ImportFailed({
        message: (error as Error).message,
        badFile: error instanceof BadFile || isSqliteError(error),
      }),
  })

const isSqliteError = (error: unknown) => (error as { code?: unknown }).code?.toString().startsWith("SQLITE_") === true

/** Reads a Navidrome database and matches its files to the catalogue by path and MBID, off the event loop. */
export const readNavidromeDb = (
  path: string,
  catalog: NavidromeCatalog,
): Effect.Effect<NavidromeSnapshot, ImportFailed> =>
  Effect.flatMap(ask({ type: "read", path, catalog }), (answer) =>
    answer.type === "read"
      ? Effect.succeed(answer.snapshot)
      : Effect.fail(new ImportFailed({ message: answer.message, badFile: answer.badFile })),
  )
