import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

let collect: (() => void) | undefined | null = null

/**
 * One full garbage collection, called when the server has just gone idle after heavy work (the parse workers
 * or the recommendation engine stopping after their idle period). A scan leaves a heap of garbage behind
 * (100–200 MB after 20k files) that V8 collects only with its next allocation-driven major GC, or when its
 * memory reducer decides the mutator is idle, which took from 15 s to minutes in the idle bench; meanwhile
 * the process keeps that memory. Collecting once at this moment costs a pause of ~100 ms when nothing is
 * waiting. `gc` comes from `--expose-gc` when given, else from V8 itself (the flag set at run time is seen by
 * contexts made afterwards); where neither works, nothing happens.
 */
export const collectGarbageWhenIdle = (): void => {
  if (collect === null) {
    const exposed = (globalThis as { gc?: () => void }).gc
    if (typeof exposed === "function") collect = exposed
    else {
      try {
        setFlagsFromString("--expose-gc")
        const fromContext = runInNewContext("gc") as unknown
        collect = typeof fromContext === "function" ? (fromContext as () => void) : undefined
      } catch {
        collect = undefined
      }
    }
  }
  collect?.()
}
