import type { Internal } from "@tonearm/core"
import { type CoListenRow, learnedSimilarityBytes } from "@tonearm/recommend"
import { Cause, Effect, FiberSet, Queue, Ref } from "effect"
import { currentDate, daysBefore } from "../clock.js"
import { ScanSignals } from "../library/index.js"
import { PlaysService } from "../listening/index.js"
import { RebuildService } from "./RebuildService.js"
import { type CatalogSource, type HeldSimilarity, RecommendationEngine } from "./RecommendationEngine.js"

/** Co-listening counts over this window of plays. */
export const CO_LISTEN_DAYS = 365

/**
 * The nightly run refits when the model is at least this old (one fit per night however many time zones have
 * their 03:00: the first zone's run fits, the others reuse it).
 */
export const LEARNED_NIGHTLY_AGE_MS = 20 * 60 * 60_000
/**
 * A model fitted on fewer artists than this is a small server's: its fit takes milliseconds and each new
 * listener matters, so a read finding it older than LEARNED_SMALL_REFIT_MS refits in the background.
 */
export const LEARNED_SMALL_ARTISTS = 500
export const LEARNED_SMALL_REFIT_MS = 10 * 60_000

/** What one fit needs: the library as the engine scores it and everyone's artist plays. */
export interface SimilarityInputs {
  readonly catalog: CatalogSource
  readonly coListens: ReadonlyArray<CoListenRow>
}

interface Held extends HeldSimilarity {
  readonly fittedAt: number
  readonly artists: number
}

/**
 * The learned artist similarity's life cycle, off every read's path. Reads take the last fitted model
 * (`current`) and never wait for a fit; a server that never fitted answers with the tag cosine (and the
 * providers) and starts its first fit in the background. Fits run in the engine (its own process in
 * production, never the HTTP event loop), one at a time: in the nightly run before the users' rebuilds
 * (`refitIfOlderThan`, RebuildScheduler), after a scan, after an import added plays, and — on a small server
 * only — when a read finds the model older than LEARNED_SMALL_REFIT_MS. The fit is held here (typed arrays:
 * EASE's weights in single precision and the listening pairs) and crosses to an engine process once.
 */
export const makeLearnedSimilarity = (
  engine: RecommendationEngine["Type"],
  inputs: Effect.Effect<SimilarityInputs, Internal>,
) =>
  Effect.gen(function* () {
    const held = yield* Ref.make<Held | undefined>(undefined)
    const lock = yield* Effect.makeSemaphore(1)
    const background = yield* FiberSet.make<void, never>()
    const running = yield* Ref.make(false)
    let fits = 0

    /** One fit (waits for a fit already running, then fits again: its rows may be older than the caller's). */
    const refit = lock.withPermits(1)(
      Effect.gen(function* () {
        const started = performance.now()
        const { catalog, coListens } = yield* inputs
        const now = (yield* currentDate).getTime()
        const key = `${catalog.version}:${now}:${++fits}`
        const fitted = yield* engine.fitSimilarity(catalog, coListens, key)
        const artists = fitted.data.easeKept.length
        yield* Ref.set(held, { key, fitted, fittedAt: now, artists })
        const mb = learnedSimilarityBytes(fitted.data) / 1e6
        yield* Effect.logInfo(
          `learned similarity fitted: ${coListens.length} listener–artist rows, ${artists} EASE artists, ` +
            `${mb.toFixed(1)} MB held, ${Math.round(performance.now() - started)} ms`,
        )
      }),
    )

    /** A fit in the background, unless one is already running or queued. Failures are logged. */
    const refitInBackground = Effect.gen(function* () {
      if (yield* Ref.getAndSet(running, true)) return
      yield* FiberSet.run(
        background,
        refit.pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("learned similarity fit failed", cause),
          ),
          Effect.ensuring(Ref.set(running, false)),
        ),
      )
    })

    /** The model reads use now; starts a background fit when there is none (or a small server's is old). */
    const current = Effect.gen(function* () {
      const model = yield* Ref.get(held)
      if (model === undefined) {
        yield* refitInBackground
        return undefined
      }
      if (
        model.artists < LEARNED_SMALL_ARTISTS &&
        (yield* currentDate).getTime() - model.fittedAt >= LEARNED_SMALL_REFIT_MS
      )
        yield* refitInBackground
      return model as HeldSimilarity
    })

    /** Fits now (waiting for it) when the model is missing or at least `ageMs` old: the nightly run. */
    const refitIfOlderThan = (ageMs: number) =>
      Effect.gen(function* () {
        const model = yield* Ref.get(held)
        if (model !== undefined && (yield* currentDate).getTime() - model.fittedAt < ageMs) return false
        yield* refit
        return true
      })

    return {
      current,
      refit,
      refitInBackground,
      refitIfOlderThan,
      /** When the model in use was fitted (ms), if any. */
      fittedAt: Effect.map(Ref.get(held), (model) => model?.fittedAt),
    } as const
  })

export class LearnedSimilarityService extends Effect.Service<LearnedSimilarityService>()(
  "@tonearm/server/LearnedSimilarityService",
  {
    scoped: Effect.gen(function* () {
      const engine = yield* RecommendationEngine
      const rebuilds = yield* RebuildService
      const plays = yield* PlaysService
      const service = yield* makeLearnedSimilarity(
        engine,
        Effect.gen(function* () {
          const [catalog, coListens] = yield* Effect.all(
            [rebuilds.catalogSource, plays.artistPlaysByListener(daysBefore(yield* currentDate, CO_LISTEN_DAYS))],
            { concurrency: 2 },
          )
          return { catalog, coListens }
        }),
      )
      // A finished scan changes the library's artists: refit in the background.
      const scans = yield* Effect.serviceOption(ScanSignals)
      if (scans._tag === "Some") {
        const finished = yield* scans.value.subscribe
        yield* Queue.take(finished).pipe(Effect.zipRight(service.refitInBackground), Effect.forever, Effect.forkScoped)
      }
      return service
    }),
  },
) {}
