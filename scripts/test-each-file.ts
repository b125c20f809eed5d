/**
 * Runs every test file alone, one vitest process per file, and lists the files that fail alone (a test that
 * leans on another file's data or on the order of the run). Slow by design (the whole suite file by file): run
 * it once after a change to the test harness, not in CI.
 *
 *   pnpm test:each-file [--jobs 2] [filter…]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const args = process.argv.slice(2)
const jobsAt = args.indexOf("--jobs")
const jobs = jobsAt >= 0 ? Number(args.splice(jobsAt, 2)[1]) : 2
const filters = args

const walk = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : walk(full)
    return entry.name.endsWith(".test.ts") ? [full] : []
  })

const files = fs
  .readdirSync("packages")
  .flatMap((name) => ["test", "src"].map((folder) => path.join("packages", name, folder)))
  .filter((dir) => fs.existsSync(dir))
  .flatMap(walk)
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort()

const runAlone = (file: string) =>
  new Promise<{ file: string; ok: boolean; seconds: number; tail: string }>((resolve) => {
    const started = Date.now()
    const child = spawn("npx", ["vitest", "run", "--minWorkers=1", "--maxWorkers=1", file], { env: process.env })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000)
    })
    child.stderr.on("data", (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000)
    })
    child.on("close", (code) => resolve({ file, ok: code === 0, seconds: (Date.now() - started) / 1000, tail: output }))
  })

const failures: Array<{ file: string; tail: string }> = []
let next = 0
let done = 0
const started = Date.now()
await Promise.all(
  Array.from({ length: Math.max(1, jobs) }, async () => {
    while (next < files.length) {
      const file = files[next++]!
      const result = await runAlone(file)
      done++
      console.log(`[${done}/${files.length}] ${result.ok ? "ok  " : "FAIL"} ${result.seconds.toFixed(1)} s  ${file}`)
      if (!result.ok) failures.push(result)
    }
  }),
)
console.log(
  `\n${files.length} files in ${((Date.now() - started) / 1000).toFixed(0)} s; ${failures.length} failed alone`,
)
for (const failure of failures) console.log(`\n--- ${failure.file}\n${failure.tail.split("\n").slice(-30).join("\n")}`)
process.exit(failures.length === 0 ? 0 : 1)
