import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "packages/*/src/**/*.test.ts"],
    globalSetup: ["packages/server/test/support/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The e2e files spend most of their time waiting on real-time audio and the browser: one worker more than
    // cores keeps the cores busy (2 cores: 14 min for the suite instead of 24).
    maxWorkers: availableParallelism() + 1,
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
