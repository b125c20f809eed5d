import { getHeapStatistics, setFlagsFromString } from "node:v8"
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

let usedAfterForcedCollection = 0

/**
 * One full collection when the heap has grown `budgetBytes` past what the last such collection left: for long
 * runs that allocate fast (a scan's batches). Their garbage dies young, but at that rate V8 let the old space
 * grow to ~200 MB of garbage over ~80 MB live before collecting it (100k files), which set the scan's peak RSS;
 * collecting on a budget bounds the heap at live + budget. Reading the heap's size costs well under a microsecond.
 */
export const collectGarbageBeyond = (budgetBytes: number): void => {
  if (getHeapStatistics().used_heap_size - usedAfterForcedCollection < budgetBytes) return
  collectGarbageWhenIdle()
  usedAfterForcedCollection = getHeapStatistics().used_heap_size
}
