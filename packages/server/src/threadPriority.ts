import { execFileSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { setPriority } from "node:os"

/**
 * How much background work (the engine's rebuilds) yields to the HTTP event loop when both want a core, where
 * the idle scheduling class is unavailable: a nice value. At 10 the scheduler weighs it at about a tenth of the
 * event loop, so a nightly run only takes what requests leave idle; with nobody browsing it still gets a whole
 * core.
 */
export const BACKGROUND_NICE = 10

/** Linux's SCHED_IDLE, as `/proc/<pid>/task/<tid>/stat` reports a thread's policy (field 41). */
export const SCHED_IDLE = 5

/**
 * Lowers every thread of this process, for a process that only does background work (the engine's): nice
 * `nice` first, then the idle scheduling class (`chrt --idle`, util-linux) when the system has it. Nice alone
 * still lets the engine preempt a woken event loop or PostgreSQL backend for a few milliseconds; a core that
 * runs only idle-class threads counts as free, so the scheduler puts a waking request's thread there at once
 * (measured: the browse p99 during a nightly run fell from ~3.2× to ~2.7× idle at 150 users).
 * Linux keeps both per thread: `/proc/self/task` lists them, and a thread started later inherits its creator's.
 * Neither needs a privilege; elsewhere (or if the system refuses) the process keeps what it got.
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
  try {
    execFileSync("chrt", ["--idle", "--all-tasks", "--pid", "0", String(process.pid)], { stdio: "ignore" })
  } catch {
    // No chrt, or the class is refused: nice alone.
  }
}
