import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ANALYZE_MIN_CHANGES, statisticsStale } from "../../src/library/scan/tidy.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(ANALYZE_MIN_CHANGES + 100, 17)

/** Manual ANALYZE runs on the track table (autovacuum's own runs count apart, in autoanalyze_count). */
const manualAnalyzes = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`SELECT pg_stat_clear_snapshot()`
  const [row] = yield* sql<{ n: string }>`
    SELECT analyze_count::text AS n FROM pg_stat_user_tables WHERE relname = 'indexed_tracks'`
  return Number(row?.n ?? 0)
})

describe("planner statistics after a scan", () => {
  it("a scan that changed at least 1,000 tracks and a tenth of the index refreshes the planner statistics", () => {
    expect(statisticsStale(ANALYZE_MIN_CHANGES, 0)).toBe(true)
    expect(statisticsStale(ANALYZE_MIN_CHANGES - 1, 0)).toBe(false)
    expect(statisticsStale(10_000, 100_000)).toBe(true)
    expect(statisticsStale(9_999, 100_000)).toBe(false)
  })
})

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "180 seconds" })(
  "planner statistics after a scan",
  (it) => {
    it.effect("a first scan of a big library analyzes the catalog tables; a small rescan leaves it to autovacuum", () =>
      Effect.gen(function* () {
        const before = yield* manualAnalyzes
        const first = yield* scanNow()
        expect(first.added).toBe(ANALYZE_MIN_CHANGES + 100)
        const afterFirst = yield* manualAnalyzes
        expect(afterFirst).toBe(before + 1)

        // One file rewritten: far below the threshold, no ANALYZE.
        const sql = yield* SqlClient.SqlClient
        const [{ path: one }] = (yield* sql<{ path: string }>`SELECT path FROM tracks ORDER BY path LIMIT 1`) as [
          { path: string },
        ]
        const file = path.join(root, one)
        const later = new Date(fs.statSync(file).mtimeMs + 60_000)
        fs.utimesSync(file, later, later)
        const second = yield* scanNow()
        expect(second.updated).toBe(1)
        expect(yield* manualAnalyzes).toBe(afterFirst)
      }),
    )
  },
)
