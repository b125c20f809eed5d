import { cpSync, existsSync } from "node:fs"
import { defineConfig } from "tsup"

/**
 * The one installable package: `tonearm` with the workspace packages (@tonearm/*, unpublished) bundled in and
 * the real npm packages left to npm (they are this package's dependencies, at the workspace's versions).
 *
 *   dist/bin.js           the command (shebang), loads each command's code on use (chunk-*.js)
 *   dist/engineWorker.js  the recommendation engine's worker thread (RecommendationEngineWorker resolves it by URL)
 *   dist/parseWorker.mjs  the scanner's parse worker, plain JavaScript (ParsePool resolves it by URL)
 *   dist/web/             the web client's built assets, copied when ../web/dist exists (no web package yet)
 *
 * Migrations need nothing here: they are imported statically (db/Migrations.ts) and ride in the bundle.
 */
export default defineConfig({
  entry: {
    bin: "src/bin.ts",
    engineWorker: "../server/src/recommendations/engineWorker.ts",
  },
  format: ["esm"],
  sourcemap: true,
  clean: true,
  target: "node20",
  platform: "node",
  splitting: true,
  noExternal: [/^@tonearm\//],
  onSuccess: async () => {
    cpSync("../server/src/library/parseWorker.mjs", "dist/parseWorker.mjs")
    if (existsSync("../web/dist")) cpSync("../web/dist", "dist/web", { recursive: true })
  },
})
