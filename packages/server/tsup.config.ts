import { copyFileSync } from "node:fs"
import { build } from "esbuild"
import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  onSuccess: async () => {
    // The scanner's parse workers load this plain module next to the bundle (ParsePool resolves it by URL).
    copyFileSync("src/library/parseWorker.mjs", "dist/parseWorker.mjs")
    // The history import's worker thread, self-contained (MatchWorker starts it by URL).
    await build({
      entryPoints: ["src/history/importWorker.ts"],
      outfile: "dist/importWorker.js",
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      sourcemap: true,
      logLevel: "warning",
    })
    // The Navidrome import's reader thread (NavidromeReader starts it by URL); better-sqlite3 is native: left to npm.
    await build({
      entryPoints: ["src/history/navidrome/navidromeWorker.ts"],
      outfile: "dist/navidromeWorker.js",
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      sourcemap: true,
      external: ["better-sqlite3"],
      logLevel: "warning",
    })
    // The recommendation engine's process entry, self-contained (RecommendationEngineWorker forks it by URL).
    await build({
      entryPoints: ["src/recommendations/engineWorker.ts"],
      outfile: "dist/engineWorker.js",
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      sourcemap: true,
      logLevel: "warning",
    })
  },
})
