import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import type { EmbeddedLyricsTag } from "@tonearm/core"
import { Context, Effect, Layer } from "effect"
import { idleWorkers } from "../idleWorkers.js"

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
  /** Native tags the common fields leave out, by one name per tag across formats (parseWorker.mjs WANTED). */
  readonly native?: Readonly<Record<string, ReadonlyArray<string>>>
}

/** One file's answer: its tags, or why they could not be read (the file then becomes a scan error). */
export type ParsedFile = { readonly ok: true; readonly tags: RawTags } | { readonly ok: false; readonly error: string }

/** One file's lyrics tags (parseWorker.mjs `lyricsOf`), or why the file could not be read. */
export type ParsedLyrics =
  | { readonly ok: true; readonly tags: ReadonlyArray<EmbeddedLyricsTag> }
  | { readonly ok: false; readonly error: string }

/**
 * Each file's parse is short-lived garbage; V8's default young generation (up to 48 MB per isolate) only
 * lets it pile up. 8 MB keeps a 100k-file scan ~30 MB lower at no measurable cost in speed.
 */
const WORKER_YOUNG_GENERATION_MB = 8

/**
 * Files go to the workers in jobs of up to this many, answered in one message: one round trip and one
 * fiber per job rather than per file, which keeps the main thread's work and garbage small.
 */
const FILES_PER_JOB = 16

/** Jobs queued on each worker, so that it keeps parsing while the main thread is busy committing a batch. */
const JOBS_IN_FLIGHT_PER_WORKER = 3

/**
 * Workers are terminated after this long without a job, and started again with the next one: a parse worker
 * holds 30–40 MB (its own V8 heap and music-metadata), which a server idling between scans should not keep.
 * Restarting one costs ~50 ms, against seconds to minutes of a scan; gaps inside a scan are far shorter.
 */
export const PARSE_WORKERS_IDLE_MS = 10_000

/** A worker's answer: a job's `results`, or (a `lyrics` message) one file's `lyrics`. */
type Reply = { readonly id: number; readonly results?: ReadonlyArray<ParsedFile>; readonly lyrics?: ParsedLyrics }
type Pending = { readonly answer: (reply: Reply) => void; readonly fail: (error: string) => void }
type ParseSlot = { readonly worker: Worker; readonly pending: Map<number, Pending> }

const failedAll = (size: number, error: string): ReadonlyArray<ParsedFile> =>
  Array.from({ length: size }, () => ({ ok: false, error }))

/**
 * Tag parsing is CPU-bound, so it runs on worker threads (one per core by default) while the main thread
 * walks folders and writes to the database. Each worker interleaves several files' I/O.
 */
export class ParsePool extends Context.Tag("@tonearm/server/ParsePool")<
  ParsePool,
  {
    /** Reads the files' tags, answering in the same order; never fails (a file's failure is its answer). */
    readonly parseMany: (paths: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ParsedFile>>
    /** Reads one file's lyrics tags (SYLT, USLT, LYRICS, ©lyr, …) off the event loop; never fails. */
    readonly readLyrics: (path: string) => Effect.Effect<ParsedLyrics>
    readonly workers: number
    /** The most files to put in one parseMany call. */
    readonly filesPerJob: number
    /** How many parseMany calls to keep running at once so that no worker ever waits for its next job. */
    readonly jobsInFlight: number
    /** Worker threads alive now: 0 before the first job and again after an idle period (absent in test fakes). */
    readonly liveWorkers?: Effect.Effect<number>
  }
>() {
  static readonly make = (workers = Math.max(1, availableParallelism()), idleMs = PARSE_WORKERS_IDLE_MS) =>
    Effect.gen(function* () {
      const script = new URL("./parseWorker.mjs", import.meta.url)
      let nextId = 0

      const spawn = (index: number): ParseSlot => {
        const worker = new Worker(script, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } })
        const pending = new Map<number, Pending>()
        worker.on("message", (reply: Reply) => {
          const job = pending.get(reply.id)
          if (job === undefined) return
          pending.delete(reply.id)
          job.answer(reply)
        })
        // A crashed worker fails its files (they become scan errors) and is replaced.
        worker.on("error", (error) => {
          for (const job of pending.values()) job.fail(`parser crashed: ${error.message}`)
          pending.clear()
          if (pool.slots[index]?.worker === worker) pool.slots[index] = spawn(index)
        })
        return { worker, pending }
      }
      // Workers start with the first file, so commands that never scan (users, migrate) never pay for them,
      // and stop after `idleMs` without a job (the next job starts them again).
      const pool = yield* idleWorkers({ count: workers, idleMs, spawn })

      /**
       * Sends one message to the least busy worker and answers what it replies (`read`), or `failed(error)` when
       * the pool is shut down or the worker crashes.
       */
      const ask = <A>(
        message: Record<string, unknown>,
        read: (reply: Reply) => A,
        failed: (error: string) => A,
      ): Effect.Effect<A> =>
        Effect.async<A>((resume) => {
          const running = pool.jobStarted()
          if (running.length === 0) {
            pool.jobEnded()
            resume(Effect.succeed(failed("the parser pool is shut down")))
            return
          }
          const slot = running.reduce((least, candidate) =>
            candidate.pending.size < least.pending.size ? candidate : least,
          )
          const id = nextId++
          let done = false
          const finish = () => {
            if (done) return
            done = true
            pool.jobEnded()
          }
          slot.pending.set(id, {
            answer: (reply) => {
              finish()
              resume(Effect.succeed(read(reply)))
            },
            fail: (error) => {
              finish()
              resume(Effect.succeed(failed(error)))
            },
          })
          slot.worker.postMessage({ ...message, id })
          return Effect.sync(() => {
            slot.pending.delete(id)
            finish()
          })
        })

      const parseMany = (paths: ReadonlyArray<string>) =>
        ask(
          { paths },
          (reply) => reply.results ?? failedAll(paths.length, "the parser answered no results"),
          (error) => failedAll(paths.length, error),
        )

      const readLyrics = (path: string) =>
        ask<ParsedLyrics>(
          { kind: "lyrics", path },
          (reply) => reply.lyrics ?? { ok: false, error: "the parser answered no lyrics" },
          (error) => ({ ok: false, error }),
        )

      return {
        parseMany,
        readLyrics,
        workers,
        filesPerJob: FILES_PER_JOB,
        jobsInFlight: workers * JOBS_IN_FLIGHT_PER_WORKER,
        liveWorkers: Effect.sync(() => pool.slots.length),
      }
    })

  static readonly layer = (workers?: number, idleMs?: number) =>
    Layer.scoped(ParsePool, ParsePool.make(workers, idleMs))
}
