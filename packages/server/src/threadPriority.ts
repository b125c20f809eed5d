import { readdirSync } from "node:fs"
import { setPriority } from "node:os"

/**
 * How much background work (the engine's rebuilds) yields to the HTTP event loop when both want a core: a nice
 * value. At 10 the scheduler weighs it at about a tenth of the event loop, so a nightly run only takes what
 * requests leave idle; with nobody browsing it still gets a whole core.
 */
export const BACKGROUND_NICE = 10

/**
 * Lowers every thread of this process to `nice`, for a process that only does background work (the engine's).
 * Linux keeps nice per thread: `/proc/self/task` lists them, and a thread started later inherits its creator's.
 * Raising nice needs no privilege; elsewhere (or if the system refuses) the process keeps its priority.
 */
export const lowerThisProcessPriority = (nice: number = BACKGROUND_NICE): void => {
  let threads: Array<string>
  try {
    threads = readdirSync("/proc/self/task")
  } catch {
    return // not Linux
  }
  for (const thread of threads) {
    try {
      setPriority(Number(thread), nice)
    } catch {
      // The thread ended, or the system refused: it keeps its priority.
    }
  }
}
