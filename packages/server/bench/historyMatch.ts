/**
 * History matcher bench (issue 26 "Matching that people trust"): builds a listening export with ground truth from a
 * generated library (`fixtures/listeningExport.ts`: credit spellings, version suffixes, typos, tracks and artists
 * the library lacks), runs core's matcher over it and prints precision and recall per class of variation; then
 * times the matcher alone: the index build (and the heap it takes) and `--listens` listens matched in this thread.
 *
 *   pnpm bench:history-match [-- --tracks 100000] [--listens 1000000] [--seed 26]
 *   pnpm bench:history-match -- --absent-tracks 0.5 --absent-artists 0.3     a listener who owns less of what they play
 *   pnpm bench:history-match -- --gen-library PATH                           gen-library's library instead
 *   pnpm bench:history-match -- --library DIR                                a library with `.manifest.jsonl`
 *
 * The library is the project's synthetic generator with credits (made once into the temp folder and reused), or an
 * external generator's (`benchLibrary.ts`). Exits 1 when precision is under 99 %.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { parseArgs } from "node:util"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { buildMatchIndex, type MatchQuery, matchListen } from "@tonearm/core"
import {
  evaluateMatcher,
  evaluationReport,
  libraryOfManifest,
  listeningExportOf,
  type ManifestLine,
  precisionOf,
  recallOf,
} from "../fixtures/listeningExport.js"
import { benchLibrary, genLibraryOption } from "./benchLibrary.js"

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    library: { type: "string" },
    tracks: { type: "string", default: "100000" },
    listens: { type: "string", default: "1000000" },
    /** Listens of the precision/recall export (the timed run cycles through them). */
    "eval-listens": { type: "string", default: "100000" },
    seed: { type: "string", default: "26" },
    "absent-tracks": { type: "string", default: "0.08" },
    "absent-artists": { type: "string", default: "0.05" },
    synthetic: { type: "boolean", default: false },
    "gen-library": { type: "string" },
    wrongs: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
  allowPositionals: true,
})

const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`)
const fail = (message: string): never => {
  console.error(`bench:history-match: ${message}`)
  process.exit(2)
}

const libraryDir = async (): Promise<string> => {
  if (values.library !== undefined) return path.resolve(values.library)
  return benchLibrary({
    tracks: Number(values.tracks),
    seed: Number(values.seed),
    genLibrary: values.synthetic ? undefined : genLibraryOption(values["gen-library"]),
    credits: true,
    log,
    fail,
  })
}

// A full collection before each heap reading (node runs without --expose-gc here).
v8.setFlagsFromString("--expose-gc")
const gc = vm.runInNewContext("gc") as () => void
const heapAfterGc = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

const dir = await libraryDir()
const manifest = path.join(dir, ".manifest.jsonl")
if (!fs.existsSync(manifest)) fail(`${manifest} is missing`)
const lines = fs
  .readFileSync(manifest, "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => JSON.parse(line) as ManifestLine)
const seed = Number(values.seed)
const library = libraryOfManifest(lines, seed)
const data = listeningExportOf(library, {
  listens: Number(values["eval-listens"]),
  seed,
  absentTracks: Number(values["absent-tracks"]),
  absentArtists: Number(values["absent-artists"]),
})
log(
  `library: ${library.length} tracks, ${data.candidates.length} in the index (absent: ${values["absent-tracks"]} of the tracks, ${values["absent-artists"]} of the artists); export: ${data.listens.length} listens`,
)

const evaluation = evaluateMatcher(data, Number(values.wrongs))
for (const line of evaluationReport(evaluation)) log(line)

// The matcher alone: index build and heap, then the listens in one thread.
const queries: ReadonlyArray<MatchQuery> = data.listens.map((listen) => listen.query)
const before = heapAfterGc()
let started = performance.now()
const index = buildMatchIndex(data.candidates)
const buildMs = performance.now() - started
const indexBytes = heapAfterGc() - before
const total = Number(values.listens)
let matched = 0
// CPU time too: on a shared machine the wall clock also counts the time other processes held the core.
const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}
const cpuStarted = cpuMs()
started = performance.now()
for (let i = 0; i < total; i++) if (matchListen(index, queries[i % queries.length]!) !== null) matched++
const matchMs = performance.now() - started
const matchCpuMs = cpuMs() - cpuStarted
const perSecond = Math.round(total / (matchMs / 1000))
const perCpuSecond = Math.round(total / (matchCpuMs / 1000))
log(
  `index: ${data.candidates.length} tracks in ${buildMs.toFixed(0)} ms, ${(indexBytes / 1024 / 1024).toFixed(1)} MB of heap (${Math.round(indexBytes / data.candidates.length)} B per track)`,
)
log(
  `match: ${total} listens in ${(matchMs / 1000).toFixed(2)} s, ${perSecond} listens/s; ${perCpuSecond} listens per CPU second (${matched} matched)`,
)
// Keep the index alive through the timing (and the heap reading above).
if (index.byTitle.size === 0) log("empty index")

const precision = precisionOf(evaluation.total)
const recall = recallOf(evaluation.total)
if (values.json) {
  process.stdout.write(
    `${JSON.stringify({
      tracks: library.length,
      indexed: data.candidates.length,
      listens: data.listens.length,
      precision,
      recall,
      classes: Object.fromEntries(
        [...evaluation.classes].map(([key, counts]) => [
          key,
          { ...counts, precision: precisionOf(counts), recall: recallOf(counts) },
        ]),
      ),
      index_build_ms: Math.round(buildMs),
      index_bytes: indexBytes,
      listens_per_second: perSecond,
      listens_per_cpu_second: perCpuSecond,
    })}\n`,
  )
}
log(precision >= 0.99 ? "PASS (precision >= 99 %)" : "FAIL (precision under 99 %)")
process.exit(precision >= 0.99 ? 0 : 1)
