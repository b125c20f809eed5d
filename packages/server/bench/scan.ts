/**
 * Scanner benchmark (issue 3): cold scan rate against the parse-only floor (music-metadata alone over the
 * same files, same worker pool, same concurrency), rescan time of the unchanged library, and peak RSS.
 *
 *   pnpm bench:scan -- --library DIR [--json]
 *   pnpm bench:scan -- --generate 20000 --out DIR [--seed 1] [--json]
 *
 * A fresh database is made for the run: on TONEARM_BENCH_DATABASE_URL (a superuser URL) when set, else on a
 * temporary embedded PostgreSQL. Ratios are against the floor measured in the same run; nothing is timed in CI.
 *
 * The floor and the scans each run in their own child process (`--phase floor|scan`), so the peak RSS is the
 * scanner's own, as a server would hold it, not what warming the page cache or the floor run left behind.
 */

import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { Array as Arr, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { generateSyntheticLibrary } from "../fixtures/synthetic.js"
import { TonearmConfig } from "../src/config/TonearmConfig.js"
import { makeDatabaseLive, pgClientLayer } from "../src/db/Database.js"
import { ParsePool, Scanner } from "../src/library/index.js"
import { walkLibrary } from "../src/library/walk.js"
import { benchDatabase, benchSettings } from "./benchSupport.js"

const { values } = parseArgs({
  options: {
    library: { type: "string" },
    generate: { type: "string" },
    out: { type: "string" },
    seed: { type: "string", default: "1" },
    json: { type: "boolean", default: false },
    phase: { type: "string" },
    "database-url": { type: "string" },
  },
  allowPositionals: true,
})

const log = (line: string) => {
  if (!values.json) console.log(line)
  else process.stderr.write(`${line}\n`)
}

/** Peak and sampled memory of this process, for the scan phase's report. */
const memorySampler = () => {
  let heapAtPeak = 0
  let peakRss = 0
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage()
    if (rss > peakRss) {
      peakRss = rss
      heapAtPeak = heapUsed
    }
  }
  const timer = setInterval(sample, 200)
  return {
    stop: () => {
      clearInterval(timer)
      sample()
      return {
        peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
        heapAtPeakMb: Math.round(heapAtPeak / 2 ** 20),
      }
    },
  }
}

const audioFilesOf = (root: string) =>
  walkLibrary(root).pipe(
    Effect.map(({ folders }) =>
      [...folders.values()].flatMap((folder) => folder.files.map((file) => path.join(root, file.path))),
    ),
  )

/** Child phase: music-metadata alone, on the scanner's pool with the scanner's concurrency. */
const floorPhase = (root: string, workers: number) =>
  Effect.gen(function* () {
    const files = yield* audioFilesOf(root)
    const parser = yield* ParsePool
    const started = performance.now()
    // Each answer is dropped at once (forEach keeps every job's exit until the end, even when discarding).
    yield* Effect.forEach(Arr.chunksOf(files, parser.filesPerJob), (job) => Effect.asVoid(parser.parseMany(job)), {
      concurrency: parser.jobsInFlight,
      discard: true,
    })
    const seconds = (performance.now() - started) / 1000
    return { files: files.length, seconds, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024) }
  }).pipe(Effect.provide(ParsePool.layer(workers)))

/** Child phase: a cold scan then a rescan of the unchanged library, on a fresh database. */
const scanPhase = (root: string, workers: number, databaseUrl: string) =>
  Effect.gen(function* () {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-data-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true })))
    const config = Layer.succeed(TonearmConfig, benchSettings(dataDir, root))
    const ScannerLive = Scanner.Default.pipe(
      Layer.provide(makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl)))),
      Layer.provide(ParsePool.layer(workers)),
      Layer.provide(config),
    )
    const memory = memorySampler()
    const { cold, rescan } = yield* Effect.gen(function* () {
      const scanner = yield* Scanner
      const cold = Option.getOrThrow(yield* scanner.scan({ full: false }))
      const rescan = Option.getOrThrow(yield* scanner.scan({ full: false }))
      return { cold, rescan }
    }).pipe(Effect.provide(ScannerLive))
    return { cold, rescan, ...memory.stop() }
  })

/** Runs this script again as a child for one phase; answers the JSON its last line printed. */
const child = <A>(args: ReadonlyArray<string>) =>
  Effect.async<A, Error>((resume) => {
    const proc = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    })
    let out = ""
    proc.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    proc.on("close", (code) => {
      const last = out.trim().split("\n").at(-1) ?? ""
      if (code === 0) resume(Effect.try({ try: () => JSON.parse(last) as A, catch: (e) => new Error(String(e)) }))
      else resume(Effect.fail(new Error(`phase ${args.join(" ")} exited with ${code}`)))
    })
    return Effect.sync(() => proc.kill())
  })

type ScanPhaseResult = Effect.Effect.Success<ReturnType<typeof scanPhase>>

const main = Effect.gen(function* () {
  const workers = os.availableParallelism()
  if (values.phase === "floor") {
    console.log(JSON.stringify(yield* floorPhase(values.library!, workers)))
    return
  }
  if (values.phase === "scan") {
    console.log(JSON.stringify(yield* scanPhase(values.library!, workers, values["database-url"]!)))
    return
  }

  let library = values.library
  if (values.generate !== undefined) {
    const out = values.out ?? fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-lib-"))
    const started = performance.now()
    const generated = yield* Effect.promise(() =>
      generateSyntheticLibrary({ out, tracks: Number(values.generate), seed: Number(values.seed) }),
    )
    log(
      `generated ${generated.files} files (${(generated.bytes / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s into ${out}`,
    )
    library = out
  }
  if (library === undefined) {
    return yield* Effect.fail(new Error("give --library DIR, or --generate N [--out DIR]"))
  }
  const root = path.resolve(library)
  const databaseUrl = yield* benchDatabase

  // Warm the page cache once so neither measurement pays for the disk first.
  const files = yield* audioFilesOf(root)
  yield* Effect.forEach(files, (file) => Effect.promise(() => fs.promises.readFile(file)), {
    concurrency: 64,
    discard: true,
  })
  log(`library: ${files.length} audio files; ${workers} parse workers`)

  // The floor is measured before and after the cold scan, and averaged, so a machine that speeds up or
  // slows down mid-run does not tilt the ratio.
  const floorBefore = yield* child<{ seconds: number; peakRssMb: number }>(["--phase", "floor", "--library", root])
  const { cold, rescan, peakRssMb, heapAtPeakMb } = yield* child<ScanPhaseResult>([
    "--phase",
    "scan",
    "--library",
    root,
    "--database-url",
    databaseUrl,
  ])
  const floorAfter = yield* child<{ seconds: number }>(["--phase", "floor", "--library", root])
  const floorSeconds = (floorBefore.seconds + floorAfter.seconds) / 2
  log(
    `parse floor before/after the cold scan: ${floorBefore.seconds.toFixed(2)} s / ${floorAfter.seconds.toFixed(2)} s`,
  )
  const filesPerSecond = cold.filesSeen / cold.seconds
  const floorPerSecond = files.length / floorSeconds
  const result = {
    files: cold.filesSeen,
    cold_s: Number(cold.seconds.toFixed(3)),
    files_per_s: Math.round(filesPerSecond),
    floor_files_per_s: Math.round(floorPerSecond),
    ratio_to_floor: Number((filesPerSecond / floorPerSecond).toFixed(3)),
    rescan_s: Number(rescan.seconds.toFixed(3)),
    peak_rss_mb: peakRssMb,
  }
  log(`cold scan:   ${result.cold_s} s, ${result.files_per_s} files/s (${cold.added} added, ${cold.errors} errors)`)
  log(`parse floor: ${floorSeconds.toFixed(3)} s, ${result.floor_files_per_s} files/s`)
  log(`ratio:       ${result.ratio_to_floor}× the parse-only floor`)
  log(`rescan:      ${result.rescan_s} s for the unchanged library (${rescan.added + rescan.updated} re-read)`)
  log(`peak RSS:    ${result.peak_rss_mb} MB for the scanning process (heap ${heapAtPeakMb} MB at the peak)`)
  log(`             ${floorBefore.peakRssMb} MB for music-metadata alone on the same pool`)
  if (values.json) console.log(JSON.stringify(result))
})

Effect.runPromise(main.pipe(Effect.scoped, Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))).catch((error) => {
  process.stderr.write(`bench:scan failed: ${error}\n`)
  process.exit(1)
})
