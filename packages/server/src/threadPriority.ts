import { readlinkSync } from "node:fs"
import { setPriority } from "node:os"

/**
 * The nice value of background computing threads (the recommendation engine's worker): under contention the HTTP
 * event loop and PostgreSQL run first, so a nightly rebuild over every user barely shows in browse latency; on an
 * idle machine the worker still gets every spare cycle.
 */
export const BACKGROUND_NICE = 10

/**
 * Lowers the calling thread's CPU priority to `nice`. On Linux each thread is its own scheduling entity, named by
 * its id (`/proc/thread-self`); elsewhere, or when the system refuses, nothing changes. Answers the thread id it
 * lowered, if any. Raising one's own nice value needs no privilege.
 */
export const lowerThisThreadPriority = (nice: number = BACKGROUND_NICE): number | undefined => {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop())
    if (!Number.isInteger(tid) || tid <= 0) return undefined
    setPriority(tid, nice)
    return tid
  } catch {
    return undefined
  }
}
