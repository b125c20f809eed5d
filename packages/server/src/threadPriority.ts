import { readlinkSync } from "node:fs"
import { setPriority } from "node:os"
import { basename } from "node:path"

/**
 * How much background threads (the engine's rebuilds) yield to the HTTP event loop when both want a core: a nice
 * value, per thread on Linux. At 10 the scheduler weighs them at about a tenth of the event loop, so a nightly run
 * only takes what requests leave idle; with nobody browsing it still gets a whole core.
 */
export const BACKGROUND_NICE = 10

/**
 * Lowers the calling thread's CPU priority to `nice`. Linux keeps nice per thread, and `/proc/thread-self` names the
 * caller's thread id; elsewhere (or if the system refuses) the thread keeps its priority. Raising nice needs no
 * privilege, and a thread started later by the main thread inherits the main thread's, not this one's.
 */
export const lowerThisThreadsPriority = (nice: number = BACKGROUND_NICE): void => {
  try {
    const threadId = Number(basename(readlinkSync("/proc/thread-self")))
    if (Number.isInteger(threadId)) setPriority(threadId, nice)
  } catch {
    // Not Linux, or refused: the thread keeps its priority.
  }
}
