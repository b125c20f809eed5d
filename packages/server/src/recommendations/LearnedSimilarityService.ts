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
 * A server whose listeners played fewer artists than this is small: its rows are few, a fit takes milliseconds
 * and each new listener matters, so a read refits at once (and waits) when the rows or the library changed.
 */
export const LEARNED_SMALL_ARTISTS = 500

/** A cheap fingerprint of one fit's inputs: the library version, the rows' count and an order-free hash. */
const fingerprintOf = ({ catalog, coListens }: SimilarityInputs): string => {
  let sum = 0
  let xor = 0
  for (const row of coListens) {
    let h = 2166136261
    const text = `${row.user_id}|${row.artist_id}|${row.plays}`
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
    sum = (sum + (h >>> 0)) % 4294967296
    xor ^= h
  }
  return `${catalog.version}:${coListens.length}:${sum}:${xor >>> 0}`
}

const playedArtists = (rows: ReadonlyArray<CoListenRow>) => new Set(rows.map((row) => row.artist_id)).size

/** What one fit needs: the library as the engine scores it and everyone's artist plays. */
export interface SimilarityInputs {
  readonly catalog: CatalogSource
  readonly coListens: ReadonlyArray<CoListenRow>
}

interface Held extends HeldSimilarity {
  readonly fittedAt: number
  readonly artists: number
  readonly fingerprint: string
}

/**
 * The learned artist similarity's life cycle, off every read's path. Reads take the last fitted model
 * (`current`) and never wait for a fit; a server that never fitted answers with the tag cosine (and the
 * providers) and starts its first fit in the background. Fits run in the engine (its own process in
 * production, never the HTTP event loop), one at a time: in the nightly run before the users' rebuilds
 * (`refitIfOlderThan`, RebuildScheduler), after a scan, after an import added plays, and — on a small server
 * only (LEARNED_SMALL_ARTISTS) — on a read whose rows or library changed since the fit. The fit is held here (typed arrays:
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

    /** One fit of the given rows (after a fit already running). */
    const fitOf = (given: SimilarityInputs) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const started = performance.now()
          const { catalog, coListens } = given
          const now = (yield* currentDate).getTime()
          const key = `${catalog.version}:${now}:${++fits}`
          const fitted = yield* engine.fitSimilarity(catalog, coListens, key)
          const artists = playedArtists(coListens)
          yield* Ref.set(held, { key, fitted, fittedAt: now, artists, fingerprint: fingerprintOf(given) })
          const mb = learnedSimilarityBytes(fitted.data) / 1e6
          yield* Effect.logInfo(
            `learned similarity fitted: ${coListens.length} listener–artist rows, ${fitted.data.easeKept.length} ` +
              `EASE artists, ${mb.toFixed(1)} MB held, ${Math.round(performance.now() - started)} ms`,
          )
        }),
      )

    /** One fit of the rows as they are now (read after a fit already running: its rows may be older). */
    const refit = Effect.flatMap(inputs, fitOf)

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

    /**
     * The model reads use now. A large server's reads never wait: the last fit, or none (a fit then starts in
     * the background). A small server's read refits first when the rows or the library changed since the fit.
     */
    const current = Effect.gen(function* () {
      const model = yield* Ref.get(held)
      if (model !== undefined && model.artists >= LEARNED_SMALL_ARTISTS) return model as HeldSimilarity
      if (model === undefined && (yield* Ref.get(running))) return undefined
      const given = yield* inputs
      if (model !== undefined && model.fingerprint === fingerprintOf(given)) return model as HeldSimilarity
      if (playedArtists(given.coListens) >= LEARNED_SMALL_ARTISTS) {
        yield* refitInBackground
        return model as HeldSimilarity | undefined
      }
      yield* fitOf(given)
      return (yield* Ref.get(held)) as HeldSimilarity | undefined
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
