import { getHeapStatistics } from "node:v8"
import { describe, expect, it } from "vitest"
import { collectGarbageBeyond } from "../../src/idleGc.js"

const MB = 1024 * 1024

/**
 * Allocates ~`megabytes` MB held until the function returns (so it outlives young collections and reaches the
 * old space, as a batch's rows do), then kept by nothing: garbage for the next full collection.
 */
const leaveGarbage = (megabytes: number) => {
  const held: Array<Array<number>> = []
  for (let index = 0; index < megabytes * 16; index++) held.push(new Array(MB / 16 / 8).fill(index + 0.5))
  return held.length
}

describe("a scan's garbage is collected on a budget (issue 30, memory)", () => {
  it("collects once the heap has grown past the budget, and not before", () => {
    collectGarbageBeyond(0) // the baseline: what a collection leaves now
    const baseline = getHeapStatistics().used_heap_size

    leaveGarbage(48)
    const grown = getHeapStatistics().used_heap_size
    expect(grown - baseline).toBeGreaterThan(16 * MB)

    // Under the budget: nothing is collected, the garbage is still counted.
    collectGarbageBeyond(1024 * MB)
    expect(getHeapStatistics().used_heap_size).toBeGreaterThanOrEqual(grown - 8 * MB)

    // Past it: one full collection gives the garbage back.
    collectGarbageBeyond(16 * MB)
    expect(getHeapStatistics().used_heap_size).toBeLessThan(baseline + 8 * MB)
  })
})
