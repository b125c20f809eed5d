/**
 * Catalog check (issue 31 "Done means"): scans a generated library and compares the catalog with the generator's
 * ground truth (`fixtures/catalogCheck.ts`): per track the album artist and the credited artists in order, and the
 * number of albums and of Various Artists albums. Prints the percentages and the first mismatches; exits 1 under
 * 99.5 % or when the album counts differ.
 *
 *   pnpm bench:catalog [-- --tracks 20000] [--seed 7]      gen-library output (made once, cached like bench:http's)
 *   pnpm bench:catalog -- --library DIR                     a library with `.manifest.jsonl` + `.manifest-summary.json`
 *   pnpm bench:catalog -- --synthetic --tracks 2000          the project's own generator (`credits`), no Python needed
 *
 * gen-library is `../shared/tools/gen-library/gen_library.py` (TONEARM_GEN_LIBRARY to point elsewhere), run with
 * `/usr/bin/python3` and Debian's python3-mutagen. The scan runs in this process on a fresh database: on
 * TONEARM_BENCH_DATABASE_URL (a superuser URL) when set, else on a temporary embedded PostgreSQL.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import {
  type CheckedCredit,
  catalogCheckPasses,
  catalogCheckReport,
  checkCatalog,
  type GroundTruthSummary,
  type GroundTruthTrack,
  VARIOUS_ARTISTS,
} from "../fixtures/catalogCheck.js"
import { generateSyntheticLibrary } from "../fixtures/synthetic.js"
import { TonearmConfig } from "../src/config/TonearmConfig.js"
import { makeDatabaseLive, pgClientLayer } from "../src/db/Database.js"
import { ParsePool, Scanner } from "../src/library/index.js"
import { benchDatabase, benchSettings } from "./benchSupport.js"

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    library: { type: "string" },
    tracks: { type: "string", default: "20000" },
    seed: { type: "string", default: "7" },
    synthetic: { type: "boolean", default: false },
    mismatches: { type: "string", default: "8" },
    json: { type: "boolean", default: false },
  },
  allowPositionals: true,
})

const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`)
const fail = (message: string): never => {
  console.error(`bench:catalog: ${message}`)
  process.exit(2)
}

/** The library: given, or generated once into the temp folder (gen-library's like bench:http's, or synthetic). */
const libraryDir = async (): Promise<string> => {
  if (values.library !== undefined) return path.resolve(values.library)
  const tracks = Number(values.tracks)
  const seed = Number(values.seed)
  if (!Number.isInteger(tracks) || tracks <= 0 || !Number.isInteger(seed)) fail("--tracks and --seed are integers")
  const kind = values.synthetic ? "synthetic-credits" : "genlib"
  const dir = path.join(os.tmpdir(), `tonearm-bench-${kind}-${tracks}-${seed}`)
  const done = path.join(dir, ".complete")
  if (fs.existsSync(done)) {
    log(`library: reusing ${dir}`)
    return dir
  }
  const started = performance.now()
  if (values.synthetic) {
    fs.rmSync(dir, { recursive: true, force: true })
    await generateSyntheticLibrary({ out: dir, tracks, seed, credits: true })
  } else {
    const script =
      process.env.TONEARM_GEN_LIBRARY ?? path.resolve("..", "shared", "tools", "gen-library", "gen_library.py")
    if (!fs.existsSync(script)) fail(`the library generator ${script} is missing (set TONEARM_GEN_LIBRARY)`)
    // Debian's python3 sees python3-mutagen; a pyenv python3 on PATH would not.
    const python = fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3"
    const run = spawnSync(
      python,
      [script, "--out", dir, "--tracks", String(tracks), "--seed", String(seed), "--force"],
      { stdio: ["ignore", "ignore", "inherit"] },
    )
    if (run.status !== 0) fail(`${script} failed (it needs Debian's python3-mutagen: apt-get install python3-mutagen)`)
  }
  fs.writeFileSync(done, `${tracks}\n`)
  log(`library: generated ${tracks} tracks in ${((performance.now() - started) / 1000).toFixed(1)} s into ${dir}`)
  return dir
}

const readManifest = (root: string) => {
  const manifestPath = path.join(root, ".manifest.jsonl")
  const summaryPath = path.join(root, ".manifest-summary.json")
  if (!fs.existsSync(manifestPath) || !fs.existsSync(summaryPath)) {
    fail(`${root} has no .manifest.jsonl and .manifest-summary.json (a gen-library or --synthetic library has)`)
  }
  const manifest = fs
    .readFileSync(manifestPath, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as GroundTruthTrack)
  if (manifest.some((line) => line.artists_expected === undefined)) {
    fail(`${manifestPath} has no artists_expected (a synthetic library must be generated with credits)`)
  }
  return { manifest, summary: JSON.parse(fs.readFileSync(summaryPath, "utf8")) as GroundTruthSummary }
}

/** What the catalog holds after the scan: each present track's album artist and credits, and the album counts. */
const readCatalog = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tracks = yield* sql<{ path: string; album_id: string; album_artist: string; credits: Array<[string, string]> }>`
    SELECT t.path, t.album_id, al.artist_display AS album_artist,
           (SELECT json_agg(json_build_array(x.name, ta.role) ORDER BY ta.position)
            FROM track_artists ta JOIN indexed_artists x ON x.id = ta.artist_id WHERE ta.track_id = t.id) AS credits
    FROM tracks t JOIN albums al ON al.id = t.album_id`
  const [albums] = yield* sql<{ albums: number; various: number }>`
    SELECT count(*)::int AS albums, (count(*) FILTER (WHERE artist_display = ${VARIOUS_ARTISTS}))::int AS various
    FROM albums`
  return {
    scanned: tracks.map((track) => ({
      path: track.path,
      albumId: track.album_id,
      albumArtist: track.album_artist,
      credits: (track.credits ?? []).map(
        ([name, role]): CheckedCredit => ({ name, role: role as CheckedCredit["role"] }),
      ),
    })),
    albums: albums ?? { albums: 0, various: 0 },
  }
})

const main = Effect.gen(function* () {
  const root = yield* Effect.promise(libraryDir)
  const { manifest, summary } = readManifest(root)
  const databaseUrl = yield* benchDatabase
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-data-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true })))
  const database = makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl)))
  const ScannerLive = Scanner.Default.pipe(
    Layer.provideMerge(database),
    Layer.provide(ParsePool.layer(os.availableParallelism())),
    Layer.provide(Layer.succeed(TonearmConfig, benchSettings(dataDir, root))),
  )
  const { scan, catalog } = yield* Effect.gen(function* () {
    const scanner = yield* Scanner
    const scan = Option.getOrThrow(yield* scanner.scan({ full: false }))
    return { scan, catalog: yield* readCatalog }
  }).pipe(Effect.provide(ScannerLive))
  log(`library: ${root}`)
  log(
    `scan:          ${scan.filesSeen} files in ${scan.seconds.toFixed(1)} s (${scan.added} added, ${scan.errors} errors)`,
  )
  const check = checkCatalog({ manifest, summary, ...catalog })
  for (const line of catalogCheckReport(check, Number(values.mismatches))) log(line)
  if (values.json) {
    console.log(
      JSON.stringify({
        tracks: check.tracks,
        album_artist_ok: check.albumArtistOk / check.tracks,
        credits_ok: check.creditsOk / check.tracks,
        albums: check.albums,
        various: check.various,
        merged: check.merged,
        split: check.split,
        pass: catalogCheckPasses(check),
      }),
    )
  }
  return catalogCheckPasses(check)
})

Effect.runPromise(main.pipe(Effect.scoped, Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))).then(
  (pass) => process.exit(pass ? 0 : 1),
  (error) => {
    process.stderr.write(`bench:catalog failed: ${error}\n`)
    process.exit(2)
  },
)
