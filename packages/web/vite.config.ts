import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { defineConfig, type Logger, type Plugin } from "vite"

/** The initial JavaScript budget (issue 25 item 9): the entry chunk and its static imports, gzipped. */
const INITIAL_JS_BUDGET_BYTES = 150 * 1024

/**
 * Prints the initial JavaScript (the entry chunk and every chunk it imports statically, gzipped at level 9 as
 * the web bench measures it) and fails the build above the budget.
 */
const initialJsBudget = (): Plugin => {
  let logger: Logger | undefined
  return {
    name: "tonearm-initial-js-budget",
    apply: "build",
    enforce: "post",
    configResolved(config) {
      logger = config.logger
    },
    generateBundle(_options, bundle) {
      const entry = Object.values(bundle).find(
        (output) => output.type === "chunk" && output.isEntry && output.fileName !== "sw.js",
      )
      if (entry === undefined || entry.type !== "chunk") return
      const files = new Set<string>()
      const walk = (fileName: string) => {
        const chunk = bundle[fileName]
        if (files.has(fileName) || chunk === undefined || chunk.type !== "chunk") return
        files.add(fileName)
        for (const imported of chunk.imports) walk(imported)
      }
      walk(entry.fileName)
      let gzip = 0
      let raw = 0
      for (const fileName of files) {
        const chunk = bundle[fileName]
        if (chunk?.type !== "chunk") continue
        raw += Buffer.byteLength(chunk.code)
        gzip += gzipSync(chunk.code, { level: 9 }).length
      }
      const line = `initial JS: ${(gzip / 1024).toFixed(1)} KB gzipped (${(raw / 1024).toFixed(1)} KB raw) in ${files.size} file(s); budget ${INITIAL_JS_BUDGET_BYTES / 1024} KB`
      if (gzip > INITIAL_JS_BUDGET_BYTES) this.error(`${line}: over budget`)
      logger?.info(line)
    },
  }
}

/**
 * The service worker (src/sw/sw.ts) as `/sw.js`: its own chunk at the root (a worker controls the pages under
 * its own path), with the build's file list and a version made from it written in, so each build installs anew
 * and precaches exactly what it emitted.
 */
const serviceWorker = (): Plugin => {
  const publicDir = fileURLToPath(new URL("public", import.meta.url))
  return {
    name: "tonearm-service-worker",
    apply: "build",
    enforce: "post",
    buildStart() {
      this.emitFile({ type: "chunk", id: fileURLToPath(new URL("src/sw/sw.ts", import.meta.url)), fileName: "sw.js" })
    },
    generateBundle(_options, bundle) {
      const worker = bundle["sw.js"]
      if (worker?.type !== "chunk") return this.error("sw.js was not built")
      // A classic worker cannot import: a module shared with the app would turn into an import here.
      if (worker.imports.length > 0) return this.error(`sw.js imports ${worker.imports.join(", ")}: share nothing`)
      const fromPublic = fs.existsSync(publicDir) ? fs.readdirSync(publicDir) : []
      const files = [...Object.keys(bundle).filter((name) => name !== "sw.js" && !name.endsWith(".map")), ...fromPublic]
        .map((name) => `/${name}`)
        .sort()
      const hash = createHash("sha256")
      for (const name of files) {
        const output = bundle[name.slice(1)]
        hash.update(name)
        if (output?.type === "asset") hash.update(output.source)
        if (output?.type === "chunk") hash.update(output.code)
        if (output === undefined) hash.update(fs.readFileSync(`${publicDir}/${name.slice(1)}`))
      }
      const version = hash.digest("hex").slice(0, 12)
      const placeholders = [/(["'`])__TONEARM_VERSION__\1/, /(["'`])__TONEARM_PRECACHE__\1/]
      if (!placeholders.every((placeholder) => placeholder.test(worker.code)))
        return this.error("sw.js lost its build placeholders")
      worker.code = worker.code
        .replace(placeholders[0]!, JSON.stringify(version))
        .replace(placeholders[1]!, JSON.stringify(JSON.stringify(files)))
    },
  }
}

/**
 * Preact through esbuild's automatic JSX runtime (no Babel step). Every page module is a dynamic import in
 * src/shell/routes.tsx, so each page is its own chunk and the initial JavaScript is the shell alone.
 */
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  resolve: {
    alias: {
      react: "preact/compat",
      "react-dom": "preact/compat",
      "node:crypto": fileURLToPath(new URL("src/shims/node-crypto.ts", import.meta.url)),
    },
  },
  plugins: [serviceWorker(), initialJsBudget()],
  build: {
    target: "es2022",
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    modulePreload: { polyfill: false },
  },
  server: {
    // `pnpm --filter @tonearm/web dev` next to a running server: the API stays on the server.
    proxy: { "/api": "http://localhost:4533" },
  },
})
