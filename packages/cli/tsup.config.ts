import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { builtinModules, createRequire } from "node:module"
import * as path from "node:path"
import type { Plugin } from "esbuild"
import { defineConfig } from "tsup"

/**
 * Node flags of the `tonearm` command (its shebang; the root `pnpm tonearm` script passes the same, and
 * `scripts/bench-bundle.mjs` reads them from here). Young-generation semi-spaces of at most 8 MB instead of V8's
 * 16 MB: idle RSS after a 20k scan 6–8 MB above 2 MB semi-spaces, while under load the event loop spends far
 * less in scavenges than at 2 MB (albums page at 16 connections: 2.09 → 1.46 ms of server CPU per request, p99
 * 78 → 49 ms). decisions.md, "Idle memory", has the figures.
 */
export const NODE_FLAGS = ["--max-semi-space-size=8"]

/**
 * Set for node by the shebang too: glibc's malloc otherwise keeps one arena per thread that ever allocated
 * (worker threads, libvips' threads) and returns little of it to the system; two arenas keep ~18 MB less
 * resident once the scan's workers are gone, with no measurable cost (sharp's documentation advises the same).
 * A fixed mmap threshold of 128 KB: glibc raises it (up to 32 MB) after the first large block is freed, after
 * which a scan's large buffers come from the arenas and stay resident when freed; fixed, they are mapped and
 * given back (20k scan: RSS 10 s after 181 → 156 MB).
 */
export const NODE_ENV_VARS = ["MALLOC_ARENA_MAX=2", "MALLOC_MMAP_THRESHOLD_=131072"]

/** The Effect packages whose index re-exports every module (`export * as Effect from "./Effect.js"`). */
const BARRELS = ["effect", "@effect/platform", "@effect/platform-node", "@effect/sql", "@effect/sql-pg"]

/**
 * Per barrel: each name it exports → the subpath module that holds it, and whether it is the module itself
 * (`export * as X`) or one of its exports (`export { pipe } from "./Function.js"`).
 */
const barrelMaps = () => {
  const require = createRequire(path.resolve("package.json"))
  const maps = new Map<string, Map<string, { readonly subpath: string; readonly namespace: boolean }>>()
  for (const pkg of BARRELS) {
    const manifest = require(`${pkg}/package.json`) as { exports: Record<string, unknown> }
    const index = readFileSync(require.resolve(pkg).replace(/\/cjs\//, "/esm/"), "utf8")
    const names = new Map<string, { readonly subpath: string; readonly namespace: boolean }>()
    const exported = (subpath: string) => `./${subpath}` in manifest.exports
    for (const [, name, file] of index.matchAll(/export \* as (\w+) from "\.\/([\w/]+)\.js"/g))
      if (exported(file!)) names.set(name!, { subpath: file!, namespace: true })
    for (const [, list, file] of index.matchAll(/export \{([^}]*)\} from "\.\/([\w/]+)\.js"/g))
      if (exported(file!))
        for (const name of list!.replace(/\/\*[\s\S]*?\*\//g, "").split(","))
          if (/^\s*\w+\s*$/.test(name)) names.set(name.trim(), { subpath: file!, namespace: false })
    maps.set(pkg, names)
  }
  return maps
}

/**
 * Rewrites `import { Effect, Layer } from "effect"` in the workspace's sources to `import * as Effect from
 * "effect/Effect"` (and so on): a barrel import makes Node load and keep every module of the package, used or
 * not, and those packages stay external (npm installs them), where no tree shaking happens. The biggest
 * saving is @effect/platform's barrel, which loads HttpApiScalar's 6.5 MB inline script (held twice in the
 * heap, as module source and as the string) although Tonearm serves Swagger UI.
 */
const deepEffectImports = (): Plugin => ({
  name: "tonearm-deep-effect-imports",
  setup(build) {
    const maps = barrelMaps()
    const importPattern = new RegExp(
      `import\\s*\\{([^}]*)\\}\\s*from\\s*"(${BARRELS.map((pkg) => pkg.replace("/", "\\/")).join("|")})"`,
      "g",
    )
    build.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8")
      const contents = source.replace(importPattern, (statement, list: string, pkg: string) => {
        const names = maps.get(pkg)!
        const kept: Array<string> = []
        const deep: Array<string> = []
        for (const raw of list.split(",")) {
          const spec = raw.trim()
          if (spec === "") continue
          const match = spec.match(/^(\w+)(?:\s+as\s+(\w+))?$/)
          const target = match === null ? undefined : names.get(match[1]!)
          if (match === null || target === undefined) {
            kept.push(spec) // type-only specifiers and anything not mapped stay on the barrel
            continue
          }
          const local = match[2] ?? match[1]!
          deep.push(
            target.namespace
              ? `import * as ${local} from "${pkg}/${target.subpath}"`
              : `import { ${match[1]} as ${local} } from "${pkg}/${target.subpath}"`,
          )
        }
        if (deep.length === 0) return statement
        // A kept list of type-only names is erased by esbuild; a kept value name still loads the barrel.
        const rest = kept.length === 0 ? [] : [`import { ${kept.join(", ")} } from "${pkg}"`]
        return [...deep, ...rest].join("; ")
      })
      return { contents, loader: "ts" }
    })
  },
})

/**
 * The one installable package: `tonearm` with the workspace packages (@tonearm/*, unpublished) bundled in and
 * the real npm packages left to npm (they are this package's dependencies, at the workspace's versions).
 *
 *   dist/bin.js           the command (shebang), loads each command's code on use (chunk-*.js)
 *   dist/engineWorker.js  the recommendation engine's process (RecommendationEngineWorker forks it by URL)
 *   dist/importWorker.js  the history import's worker thread (MatchWorker starts it by URL)
 *   dist/navidromeWorker.js  the Navidrome import's reader thread (NavidromeReader starts it by URL)
 *   dist/parseWorker.mjs  the scanner's parse worker, plain JavaScript (ParsePool resolves it by URL)
 *   dist/web/             the web player's built assets (packages/web, built first: it is a devDependency)
 *
 * Migrations need nothing here: they are imported statically (db/Migrations.ts) and ride in the bundle.
 */
/**
 * Every package the bundle still imports (everything but @tonearm/* and Node's own modules) must be a dependency
 * of @tonearm/cli, or `npm install -g` gives a `tonearm` that fails on first use of it: checked after each build.
 */
const checkDependencies = () => {
  const manifest = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string> }
  const missing = new Map<string, string>()
  for (const file of readdirSync("dist").filter((name) => /\.m?js$/.test(name))) {
    const code = readFileSync(path.join("dist", file), "utf8")
    // A module specifier holds no space or comma: `timeOf("from", flags.from)` is not an import.
    for (const [, specifier] of code.matchAll(
      /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"'./\s,][^"'\s,]*)["']/g,
    )) {
      if (specifier!.startsWith("node:") || builtinModules.includes(specifier!)) continue
      const name = specifier!.startsWith("@") ? specifier!.split("/").slice(0, 2).join("/") : specifier!.split("/")[0]!
      if (!(name in manifest.dependencies)) missing.set(name, file)
    }
  }
  if (missing.size > 0)
    throw new Error(
      `the bundle imports packages that are not dependencies of @tonearm/cli (add them to packages/cli/package.json at the workspace's version): ${[...missing].map(([name, file]) => `${name} (${file})`).join(", ")}`,
    )
}

export default defineConfig({
  entry: {
    bin: "src/bin.ts",
    engineWorker: "../server/src/recommendations/engineWorker.ts",
    // History imports parse and match here, off the event loop (MatchWorker resolves it by URL).
    importWorker: "../server/src/history/importWorker.ts",
    navidromeWorker: "../server/src/history/navidrome/navidromeWorker.ts",
  },
  format: ["esm"],
  sourcemap: true,
  clean: true,
  target: "node20",
  platform: "node",
  splitting: true,
  // Only the workspace packages are bundled; every npm package stays an import, installed by npm.
  skipNodeModulesBundle: true,
  noExternal: [/^@tonearm\//],
  esbuildPlugins: [deepEffectImports()],
  onSuccess: async () => {
    // The installed command runs node with the server's memory settings (NODE_ENV_VARS, NODE_FLAGS).
    const bin = readFileSync("dist/bin.js", "utf8").replace(/^#!.*\n/, "")
    writeFileSync("dist/bin.js", `#!/usr/bin/env -S ${[...NODE_ENV_VARS, "node", ...NODE_FLAGS].join(" ")}\n${bin}`, {
      mode: 0o755,
    })
    cpSync("../server/src/library/parseWorker.mjs", "dist/parseWorker.mjs")
    if (existsSync("../web/dist")) cpSync("../web/dist", "dist/web", { recursive: true })
    checkDependencies()
  },
})
