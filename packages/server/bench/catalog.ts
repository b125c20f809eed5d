/**
 * Catalog check (issue 31 "Done means"): scans a generated library and compares the catalog with the generator's
 * ground truth (`fixtures/catalogCheck.ts`): per track the album artist and the credited artists in order, and the
 * number of albums and of Various Artists albums. Prints the percentages and the first mismatches; exits 1 under
 * 99.5 % or when the album counts differ.
 *
 *   pnpm bench:catalog [-- --tracks 20000] [--seed 7]      the project's own generator with credits (made once, cached)
 *   pnpm bench:catalog -- --gen-library PATH                an external generator script's output (gen-library)
 *   pnpm bench:catalog -- --library DIR                     a library with `.manifest.jsonl` + `.manifest-summary.json`
 *
 * The external generator (`--gen-library PATH` or TONEARM_GEN_LIBRARY; `--synthetic` ignores the variable) is run
 * with `/usr/bin/python3` and Debian's python3-mutagen (`benchLibrary.ts`). The scan runs in this process on a
 * fresh database: on TONEARM_BENCH_DATABASE_URL (a superuser URL) when set, else on a temporary embedded PostgreSQL.
 */
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
import { TonearmConfig } from "../src/config/TonearmConfig.js"
import { makeDatabaseLive, pgClientLayer } from "../src/db/Database.js"
import { ParsePool, Scanner } from "../src/library/index.js"
import { benchLibrary, genLibraryOption } from "./benchLibrary.js"
import { benchDatabase, benchSettings } from "./benchSupport.js"

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    library: { type: "string" },
    tracks: { type: "string", default: "20000" },
    seed: { type: "string", default: "7" },
    /** The synthetic generator even when TONEARM_GEN_LIBRARY is set (it is the default otherwise). */
    synthetic: { type: "boolean", default: false },
    "gen-library": { type: "string" },
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

/** The library: given, or generated once into the temp folder (synthetic with credits, or the external generator's). */
const libraryDir = async (): Promise<string> => {
  if (values.library !== undefined) return path.resolve(values.library)
  const tracks = Number(values.tracks)
  const seed = Number(values.seed)
  if (!Number.isInteger(tracks) || tracks <= 0 || !Number.isInteger(seed)) fail("--tracks and --seed are integers")
  const genLibrary =
    values.synthetic && values["gen-library"] === undefined ? undefined : genLibraryOption(values["gen-library"])
  return benchLibrary({ tracks, seed, genLibrary, credits: true, log, fail })
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
