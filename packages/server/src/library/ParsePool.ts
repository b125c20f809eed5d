import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { Context, Data, Effect, Layer } from "effect"

/** What a parse worker reads from one file (see parseWorker.mjs). */
export interface RawTags {
  readonly container: string | null
  readonly codec: string | null
  readonly duration: number | null
  readonly bitrate: number | null
  readonly title: string | null
  readonly artist: string | null
  readonly artists: ReadonlyArray<string>
  readonly albumartist: string | null
  readonly album: string | null
  readonly track: number | null
  readonly disk: number | null
  readonly year: number | null
  readonly date: string | null
  readonly genre: ReadonlyArray<string>
  readonly compilation: boolean
  readonly trackMbid: string | null
  readonly albumMbid: string | null
  readonly artistMbid: string | null
  readonly albumArtistMbid: string | null
  readonly hasPicture: boolean
}

export class TagReadError extends Data.TaggedError("TagReadError")<{
  readonly path: string
  readonly message: string
}> {}

/**
 * Each file's parse is short-lived garbage; V8's default young generation (up to 48 MB per isolate) only
 * lets it pile up. 8 MB keeps a 100k-file scan ~30 MB lower at no measurable cost in speed.
 */
const WORKER_YOUNG_GENERATION_MB = 8

type Reply = { id: number; ok: true; tags: RawTags } | { id: number; ok: false; error: string }
type Pending = { readonly path: string; readonly resume: (effect: Effect.Effect<RawTags, TagReadError>) => void }

/**
 * Tag parsing is CPU-bound, so it runs on worker threads (one per core by default) while the main thread
 * walks folders and writes to the database. Each worker interleaves several files' I/O.
 */
export class ParsePool extends Context.Tag("@tonearm/server/ParsePool")<
  ParsePool,
  { readonly parse: (path: string) => Effect.Effect<RawTags, TagReadError>; readonly workers: number }
>() {
  static readonly make = (workers = Math.max(1, availableParallelism())) =>
    Effect.gen(function* () {
      const script = new URL("./parseWorker.mjs", import.meta.url)
      let nextId = 0
      const slots: Array<{ worker: Worker; pending: Map<number, Pending> }> = []

      const spawn = (index: number) => {
        const worker = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } })
        const pending = new Map<number, Pending>()
        worker.on("message", (reply: Reply) => {
          const job = pending.get(reply.id)
          if (job === undefined) return
          pending.delete(reply.id)
          job.resume(
            reply.ok
              ? Effect.succeed(reply.tags)
              : Effect.fail(new TagReadError({ path: job.path, message: reply.error })),
          )
        })
        // A crashed worker fails its files (they become scan errors) and is replaced.
        worker.on("error", (error) => {
          for (const job of pending.values()) {
            job.resume(Effect.fail(new TagReadError({ path: job.path, message: `parser crashed: ${error.message}` })))
          }
          pending.clear()
          if (slots[index]?.worker === worker) slots[index] = spawn(index)
        })
        return { worker, pending }
      }

      // Workers start with the first file, so commands that never scan (users, migrate) never pay for them.
      let closed = false
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => {
          closed = true
          return Promise.all(slots.map(({ worker }) => worker.terminate()))
        }).pipe(Effect.ignore),
      )
      const started = () => {
        if (slots.length === 0 && !closed) for (let index = 0; index < workers; index++) slots.push(spawn(index))
        return slots
      }

      const parse = (path: string) =>
        Effect.async<RawTags, TagReadError>((resume) => {
          const running = started()
          if (running.length === 0) {
            resume(Effect.fail(new TagReadError({ path, message: "the parser pool is shut down" })))
            return
          }
          const slot = running.reduce((least, candidate) =>
            candidate.pending.size < least.pending.size ? candidate : least,
          )
          const id = nextId++
          slot.pending.set(id, { path, resume })
          slot.worker.postMessage({ id, path, aac: path.toLowerCase().endsWith(".aac") })
          return Effect.sync(() => slot.pending.delete(id))
        })

      return { parse, workers }
    })

  static readonly layer = (workers?: number) => Layer.scoped(ParsePool, ParsePool.make(workers))
}
