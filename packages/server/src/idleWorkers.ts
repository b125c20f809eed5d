import { Effect, type Scope } from "effect"
import { collectGarbageWhenIdle } from "./idleGc.js"

/** What a pool stops: a worker thread, or a process behind the same method. */
export interface Stoppable {
  readonly terminate: () => Promise<unknown>
}

/** A pool's workers, started with the first job and stopped when idle (see `idleWorkers`). */
export interface IdleWorkers<S extends { readonly worker: Stoppable }> {
  /** The running slots; an owner replaces a crashed worker's slot in place (unless `closed()`). */
  readonly slots: Array<S>
  /** The pool's scope has closed: no worker starts again. */
  readonly closed: () => boolean
  /** A job begins: the idle countdown stops and the workers start if they are down. Answers the slots (none once closed). */
  readonly jobStarted: () => ReadonlyArray<S>
  /** A job has ended: with none left, the countdown to stopping the workers begins. */
  readonly jobEnded: () => void
}

/**
 * The life of a pool of workers a server needs only now and then (the parse worker threads during scans, the
 * recommendation engine's processes during rebuilds): started with the first job, terminated after `idleMs` without one
 * (then one full GC gives the heap back to the system), terminated for good when the scope closes. A worker
 * is taken out of `slots` before it is terminated, so its exit never looks like a crash to be replaced.
 */
export const idleWorkers = <S extends { readonly worker: Stoppable }>(options: {
  readonly count: number
  readonly idleMs: number
  readonly spawn: (index: number) => S
}): Effect.Effect<IdleWorkers<S>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const slots: Array<S> = []
    let closed = false
    let active = 0
    let idleTimer: ReturnType<typeof setTimeout> | undefined
    const stopAll = () => Promise.all(slots.splice(0, slots.length).map((slot) => slot.worker.terminate()))

    yield* Effect.addFinalizer(() =>
      Effect.promise(() => {
        closed = true
        clearTimeout(idleTimer)
        return stopAll()
      }).pipe(Effect.ignore),
    )

    return {
      slots,
      closed: () => closed,
      jobStarted: () => {
        active++
        clearTimeout(idleTimer)
        idleTimer = undefined
        if (slots.length === 0 && !closed) {
          for (let index = 0; index < options.count; index++) slots.push(options.spawn(index))
        }
        return slots
      },
      jobEnded: () => {
        active--
        if (active > 0 || closed || slots.length === 0) return
        clearTimeout(idleTimer)
        idleTimer = setTimeout(() => {
          idleTimer = undefined
          if (active === 0) void stopAll().then(collectGarbageWhenIdle)
        }, options.idleMs)
        idleTimer.unref()
      },
    }
  })
