import { copyFileSync } from "node:fs"
import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  // The scanner's parse workers load this plain module next to the bundle (ParsePool resolves it by URL).
  onSuccess: async () => copyFileSync("src/library/parseWorker.mjs", "dist/parseWorker.mjs"),
})
