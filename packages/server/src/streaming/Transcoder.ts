import { type ChildProcess, execFile, spawn } from "node:child_process"
import { availableParallelism } from "node:os"
import { NodeStream } from "@effect/platform-node"
import { ffmpegArguments, type StreamDecision } from "@tonearm/core"
import { Config, Data, Deferred, Duration, Effect, Exit, Option, Stream } from "effect"

/** Every transcoder is busy and none freed up within the wait: the route answers 503 with Retry-After. */
export class TranscodersBusy extends Data.TaggedError("TranscodersBusy")<{
  readonly message: string
  readonly retryAfterSeconds: number
}> {}

/** ffmpeg died or could not start: before the first byte the caller serves the original instead. */
export class TranscodeFailed extends Data.TaggedError("TranscodeFailed")<{ readonly message: string }> {}

export const TRANSCODE_RETRY_AFTER_SECONDS = 5

export interface TranscoderSettings {
  /** The ffmpeg binary (`TONEARM_FFMPEG`, default `ffmpeg` on PATH). */
  readonly ffmpeg: string
  /** Transcodes running at once (`TONEARM_TRANSCODE_CONCURRENCY`, default 2 per core). */
  readonly concurrency: number
  /** How long a request waits for a free transcoder before 503 (`TONEARM_TRANSCODE_WAIT_MS`, default 2000). */
  readonly waitMs: number
  /**
   * Transcodes one listener may run at once (`TONEARM_TRANSCODES_PER_USER`, default 8: the playing track, the
   * next one prefetched for gapless play, and a speaker, which opens several range requests per track); a new one past it stops that listener's oldest.
   */
  readonly perUser: number
}

export const transcoderSettings = Config.all({
  ffmpeg: Config.string("TONEARM_FFMPEG").pipe(Config.withDefault("ffmpeg")),
  concurrency: Config.integer("TONEARM_TRANSCODE_CONCURRENCY").pipe(
    Config.validate({ message: "must be a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(2 * Math.max(1, availableParallelism())),
  ),
  waitMs: Config.integer("TONEARM_TRANSCODE_WAIT_MS").pipe(
    Config.validate({ message: "must be zero or more milliseconds", validation: (n) => n >= 0 }),
    Config.withDefault(2000),
  ),
  perUser: Config.integer("TONEARM_TRANSCODES_PER_USER").pipe(
    Config.validate({ message: "must be a positive integer", validation: (n) => n >= 1 }),
    Config.withDefault(8),
  ),
})

const REQUIRED_ENCODERS = ["libmp3lame", "libopus"] as const

/** `ffmpeg -encoders`, once at start: transcoding is on when both encoders are there. */
const detect = (ffmpeg: string) =>
  Effect.async<{ readonly available: boolean; readonly reason: string }>((resume) => {
    execFile(
      ffmpeg,
      ["-hide_banner", "-encoders"],
      { timeout: 10_000, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout) => {
        if (error !== null) {
          const missing = (error as NodeJS.ErrnoException).code === "ENOENT"
          return resume(
            Effect.succeed({
              available: false,
              reason: missing
                ? `${ffmpeg} not found (Debian: apt-get install -y ffmpeg)`
                : `${ffmpeg} failed: ${error.message}`,
            }),
          )
        }
        const missing = REQUIRED_ENCODERS.filter((encoder) => !new RegExp(`\\s${encoder}\\s`).test(stdout))
        resume(
          Effect.succeed(
            missing.length === 0
              ? { available: true, reason: `${ffmpeg} with ${REQUIRED_ENCODERS.join(" and ")}` }
              : { available: false, reason: `${ffmpeg} lacks the ${missing.join(" and ")} encoder` },
          ),
        )
      },
    )
  })

interface Running {
  readonly child: ChildProcess
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  readonly stderr: () => string
}

/** Kills ffmpeg if it still runs and waits until it has exited (and Node has reaped it): no orphan, no zombie. */
const stop = (running: Running) =>
  Effect.promise(() => {
    const { child } = running
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    return running.exited
  })

const start = (ffmpeg: string, args: ReadonlyArray<string>) =>
  Effect.async<Running, TranscodeFailed>((resume) => {
    const child = spawn(ffmpeg, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8")
    })
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    )
    const running: Running = { child, exited, stderr: () => stderr.trim() }
    child.once("spawn", () => resume(Effect.succeed(running)))
    child.once("error", (cause) =>
      resume(Effect.fail(new TranscodeFailed({ message: `cannot run ${ffmpeg}: ${cause}` }))),
    )
  })

/**
 * ffmpeg in child processes (never on the event loop), at most `concurrency` at once. `transcode` lives in the
 * caller's scope (the HTTP request's): when the response ends or the client goes away, ffmpeg is killed and
 * its slot freed.
 */
export class Transcoder extends Effect.Service<Transcoder>()("@tonearm/server/Transcoder", {
  scoped: Effect.gen(function* () {
    const settings = yield* transcoderSettings
    const detected = yield* detect(settings.ffmpeg)
    if (detected.available) {
      yield* Effect.logInfo(
        `transcoding available: ${detected.reason}, ${settings.concurrency} at once (TONEARM_TRANSCODE_CONCURRENCY)`,
      )
    } else {
      yield* Effect.logWarning(`transcoding off, originals are served: ${detected.reason}`)
    }
    const slots = yield* Effect.makeSemaphore(settings.concurrency)

    /** A slot for this scope, waiting at most `waitMs`. */
    const acquireSlot = Effect.uninterruptibleMask((restore) =>
      restore(slots.take(1).pipe(Effect.timeoutOption(Duration.millis(settings.waitMs)))).pipe(
        Effect.flatMap(
          Option.match({
            onNone: () =>
              Effect.fail(
                new TranscodersBusy({
                  message: `all ${settings.concurrency} transcoders are busy; retry shortly`,
                  retryAfterSeconds: TRANSCODE_RETRY_AFTER_SECONDS,
                }),
              ),
            onSome: () => Effect.addFinalizer(() => slots.release(1)),
          }),
        ),
      ),
    )

    /** Each listener's running transcodes, oldest first: how to stop each. */
    const byOwner = new Map<string, Array<{ readonly stop: () => void }>>()

    /**
     * Joins `owner`'s running transcodes for the caller's scope; past `perUser`, their oldest is stopped (its
     * ffmpeg killed, its response ended) rather than this request refused: a player that skips or seeks has
     * usually abandoned the older stream without closing it (issue 29 item 6). Answers when this one is stopped.
     */
    const register = (owner: string) =>
      Effect.acquireRelease(
        Effect.gen(function* () {
          const stopped = yield* Deferred.make<void>()
          const entry = {
            child: undefined as ChildProcess | undefined,
            stop: () => {
              Deferred.unsafeDone(stopped, Exit.void)
              entry.child?.kill("SIGKILL")
            },
          }
          const theirs = byOwner.get(owner) ?? []
          for (const oldest of theirs.splice(0, Math.max(0, theirs.length - settings.perUser + 1))) oldest.stop()
          theirs.push(entry)
          byOwner.set(owner, theirs)
          return { entry, stopped }
        }),
        ({ entry }) =>
          Effect.sync(() => {
            const theirs = byOwner.get(owner)?.filter((other) => other !== entry) ?? []
            if (theirs.length === 0) byOwner.delete(owner)
            else byOwner.set(owner, theirs)
          }),
      )

    /**
     * The encoded bytes as ffmpeg writes them; the stream fails if ffmpeg ends with an error, and ends when a newer
     * transcode of the same owner stops this one.
     */
    const transcode = Effect.fn("Transcoder.transcode")(function* (
      input: string,
      decision: Extract<StreamDecision, { readonly _tag: "Transcode" }>,
      owner: string,
    ) {
      const { entry, stopped } = yield* register(owner)
      yield* acquireSlot
      const running = yield* Effect.acquireRelease(start(settings.ffmpeg, ffmpegArguments(input, decision)), stop)
      entry.child = running.child
      const outcome = Effect.promise(() => running.exited).pipe(
        Effect.flatMap(({ code, signal }) =>
          code === 0
            ? Effect.void
            : Effect.fail(
                new TranscodeFailed({
                  message: `ffmpeg ended with ${code ?? signal} on ${input}: ${running.stderr() || "no message"}`,
                }),
              ),
        ),
      )
      return NodeStream.fromReadable<TranscodeFailed>(
        () => running.child.stdout!,
        (cause) => new TranscodeFailed({ message: `reading ffmpeg's output failed: ${cause}` }),
      ).pipe(
        // One buffer (at most 64 KiB) per write: the response then waits for a drain after each, so a slow reader
        // drains its connection every 64 KiB it takes (the idle-write timeout counts from the last drain), instead
        // of after the megabyte a read-ahead chunk could hold.
        Stream.rechunk(1),
        Stream.concat(Stream.drain(Stream.fromEffect(outcome))),
        Stream.interruptWhen(Deferred.await(stopped)),
      )
    })

    return { available: detected.available, settings, transcode } as const
  }),
}) {}
