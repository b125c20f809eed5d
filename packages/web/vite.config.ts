import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

/**
 * Preact through esbuild's automatic JSX runtime (no Babel step). Every page module is a dynamic import in
 * src/app/routes.tsx, so each page is its own chunk and the initial JavaScript is the shell alone.
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
