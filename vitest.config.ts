import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

/** Browser tests: the web player in Chromium against a real server. */
const BROWSER_TESTS = ["packages/web/test/e2e/**"]
/** Tests about a process boundary: the CLI spawned, a real UPnP speaker, the engine's own processes. */
const PROCESS_TESTS = [
  "packages/cli/test/**",
  "packages/server/test/cast/gmediarender.test.ts",
  "packages/server/test/cast/ssdp-discovery.test.ts",
  "packages/server/test/recommendations/engine-worker*.test.ts",
  // Two `tonearm serve` replicas behind HAProxy (and PgBouncer), one SIGKILLed (issue 30).
  "packages/server/test/scale/**",
]
/** `pnpm test:fast` (TONEARM_TEST_LAYERS=fast): the inner loop, without the browser and process layers. */
const fast = process.env.TONEARM_TEST_LAYERS === "fast"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "packages/*/src/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**", ...(fast ? [...BROWSER_TESTS, ...PROCESS_TESTS] : [])],
    globalSetup: ["packages/server/test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // A worker keeps its module cache from file to file: loading the server's modules once per worker instead of
    // once per file took the collect time of six server files from 118 s to 24 s. Each file still builds its own
    // server, database and layers; nothing a test changes lives in a module.
    isolate: false,
    // The e2e files spend most of their time waiting on real-time audio and the browser: one worker more than
    // cores keeps the cores busy (2 cores: 14 min for the suite instead of 24).
    maxWorkers: availableParallelism() + 1,
    // As many from the start: with isolate off, a worker tinypool retires early (fewer than max) rejects with
    // "Terminating worker thread" at teardown and fails the run (vitest#8133).
    minWorkers: availableParallelism() + 1,
    // `pnpm test:coverage`: line and branch coverage of the packages' sources (code run in Node by the tests;
    // the web app's code runs in the browser and is not counted).
    coverage: {
      provider: "v8",
      include: ["packages/*/src/**/*.{ts,tsx}"],
      exclude: ["**/*.test.ts", "**/*.d.ts"],
      reporter: ["text-summary", "json-summary"],
      reportsDirectory: "coverage",
    },
  },
})
