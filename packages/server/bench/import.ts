/**
 * History import benchmark (issue 26): imports a ListenBrainz export of 1,000,000 listens against a 100k-track
 * library over HTTP, while a child process browses `GET /api/library/albums`.
 *
 *   pnpm bench:import [--listens 1000000] [--tracks 100000] [--probe-seconds 10] [--json]
 *
 * The library is synthetic rows inserted straight into a fresh database (no audio files), on
 * TONEARM_BENCH_DATABASE_URL (a superuser URL) when set, else a temporary embedded PostgreSQL. The export is JSON
 * lines: 95 % of the listens name a library track (artist, title, album), 5 % name nothing in it, one listen every
 * 37 s over the years before the run.
 *
 * Printed: listens per second (import start to done, as the job's own times say), the server process's peak RSS
 * during the import (its worker thread included; PostgreSQL is another process) against its RSS before, and the
 * browse p50/p99 of sequential album-page requests over one keep-alive connection, idle first (the baseline of the
 * same run) and then during the import, with their ratio.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { TonearmConfig } from "../src/config/TonearmConfig.js"
import { makeDatabaseLive, pgClientLayer } from "../src/db/Database.js"
import { HttpAppLive } from "../src/main.js"
import { benchDatabase, benchSettings } from "./benchSupport.js"

const { values } = parseArgs({
  options: {
    listens: { type: "string", default: "1000000" },
    tracks: { type: "string", default: "100000" },
    "probe-seconds": { type: "string", default: "10" },
    json: { type: "boolean", default: false },
    phase: { type: "string" },
    url: { type: "string" },
    token: { type: "string" },
    file: { type: "string" },
  },
  allowPositionals: true,
})

const log = (line: string) => (values.json ? process.stderr.write(`${line}\n`) : console.log(line))

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

interface ProbeResult {
  readonly requests: number
  readonly failures: number
  readonly p50_ms: number
  readonly p99_ms: number
}

/** Child phase: album pages one after the other until stdin closes or `--probe-seconds` pass (0: no limit). */
const probePhase = async () => {
  const url = `${values.url}/api/library/albums`
  const headers = { authorization: `Bearer ${values.token}` }
  const seconds = Number(values["probe-seconds"])
  let stop = false
  process.stdin.on("end", () => {
    stop = true
  })
  process.stdin.resume()
  const deadline = seconds > 0 ? performance.now() + seconds * 1000 : Number.POSITIVE_INFINITY
  const latencies: Array<number> = []
  let failures = 0
  while (!stop && performance.now() < deadline) {
    const started = performance.now()
    const response = await fetch(url, { headers })
    await response.arrayBuffer()
    if (!response.ok) failures++
    latencies.push(performance.now() - started)
  }
  latencies.sort((a, b) => a - b)
  const result: ProbeResult = {
    requests: latencies.length,
    failures,
    p50_ms: Number(percentile(latencies, 50).toFixed(2)),
    p99_ms: Number(percentile(latencies, 99).toFixed(2)),
  }
  console.log(JSON.stringify(result))
  process.exit(0)
}

const startProbe = (url: string, token: string, seconds: number) => {
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      process.argv[1]!,
      "--phase",
      "probe",
      "--url",
      url,
      "--token",
      token,
      "--probe-seconds",
      String(seconds),
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  )
  let out = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString()
  })
  const done = new Promise<ProbeResult>((resolve, reject) =>
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as ProbeResult)
        : reject(new Error(`probe ${code}`)),
    ),
  )
  return {
    done,
    stop: () => {
      child.stdin!.end()
      return done
    },
  }
}

/** Child phase: uploads the export as multipart, streamed from the file, and prints the answer. */
const uploadPhase = async () => {
  const form = new FormData()
  form.set("source", "listenbrainz_export")
  form.set("file", await fs.openAsBlob(values.file!), "listens.jsonl")
  const response = await fetch(`${values.url}/api/me/imports`, {
    method: "POST",
    headers: { authorization: `Bearer ${values.token}` },
    body: form,
  })
  console.log(await response.text())
  process.exit(response.status === 202 ? 0 : 1)
}

const uploadFromChild = (url: string, token: string, file: string) =>
  new Promise<{ id: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, process.argv[1]!, "--phase", "upload", "--url", url, "--token", token, "--file", file],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    child.on("close", (code) =>
      code === 0 ? resolve(JSON.parse(out) as { id: string }) : reject(new Error(`upload failed: ${out}`)),
    )
  })

/** This process's resident memory now and at its peak so far (MB). */
const memory = () => {
  const status = fs.readFileSync("/proc/self/status", "utf8")
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0)
  return { rssMb: Math.round(kb("VmRSS") / 1024), hwmMb: Math.round(kb("VmHWM") / 1024) }
}

/** The synthetic library (unique titles per artist), inserted by PostgreSQL itself. */
const seedLibrary = (tracks: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const albums = Math.ceil(tracks / 12)
    const artists = Math.max(1, Math.floor(tracks / 12.5))
    yield* sql.unsafe(`
      INSERT INTO artists (id, name, name_key, sort_name, sort_key, search_key, album_count, track_count, created_at, updated_at)
      SELECT md5('artist' || g)::uuid, 'Artist ' || g, 'artist ' || g, 'Artist ' || g, 'artist ' || g, 'artist ' || g,
             0, 0, now(), now()
      FROM generate_series(0, ${artists - 1}) g`)
    yield* sql.unsafe(`
      INSERT INTO albums (id, album_key, title, artist_id, search_key, year, track_count, duration_ms, added_at, updated_at)
      SELECT md5('album' || g)::uuid, 'album ' || g, 'Album ' || g, md5('artist' || (g::bigint * ${artists} / ${albums}))::uuid,
             'album ' || g, 1960 + g % 65, 12, 12 * 240000, now(), now()
      FROM generate_series(0, ${albums - 1}) g`)
    yield* sql.unsafe(`
      INSERT INTO tracks (id, path, directory, size_bytes, mtime_ms, title, search_key, album_id, artist_id, track_number,
                          disc_number, duration_ms, genre, file_format, added_at, updated_at)
      SELECT md5('track' || t)::uuid, '/bench/' || t || '.mp3', '/bench', 4000000, 0, 'Track ' || t, 'track ' || t,
             md5('album' || (t / 12))::uuid, md5('artist' || ((t / 12)::bigint * ${artists} / ${albums}))::uuid,
             t % 12 + 1, 1, 150000 + (t * 7919) % 200000, 'Rock', 'mp3', now(), now()
      FROM generate_series(0, ${tracks - 1}) t`)
    yield* sql.unsafe("VACUUM (ANALYZE)")
    return { albums, artists }
  })

/** Writes the export: JSON lines, one listen every 37 s, 1 in 20 naming no library track. */
const writeExport = (file: string, listens: number, tracks: number, albums: number, artists: number) => {
  const out = fs.openSync(file, "w")
  const start = Math.floor(Date.now() / 1000) - listens * 37 - 86_400
  let chunk: Array<string> = []
  let seed = 12345
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed
  }
  for (let i = 0; i < listens; i++) {
    const t = next() % tracks
    const album = Math.floor(t / 12)
    const artist = Math.floor((album * artists) / albums)
    const known = i % 20 !== 19
    chunk.push(
      JSON.stringify({
        listened_at: start + i * 37,
        track_metadata: known
          ? { artist_name: `Artist ${artist}`, track_name: `Track ${t}`, release_name: `Album ${album}` }
          : { artist_name: `Elsewhere ${i}`, track_name: `Nowhere ${i}`, release_name: null },
      }),
    )
    if (chunk.length === 10_000) {
      fs.writeSync(out, `${chunk.join("\n")}\n`)
      chunk = []
    }
  }
  if (chunk.length > 0) fs.writeSync(out, `${chunk.join("\n")}\n`)
  fs.closeSync(out)
}

const main = Effect.gen(function* () {
  const listens = Number(values.listens)
  const tracks = Number(values.tracks)
  const seconds = Number(values["probe-seconds"])
  const databaseUrl = yield* benchDatabase
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-import-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true })))
  fs.mkdirSync(path.join(dataDir, "music"))
  const config = Layer.succeed(TonearmConfig, benchSettings(dataDir, path.join(dataDir, "music")))
  const server = yield* Layer.build(
    HttpApiBuilder.serve().pipe(
      Layer.provideMerge(HttpAppLive),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl)))),
      Layer.provideMerge(config),
      // As the server runs (makeServerLive): no spans.
      Layer.provide(Layer.setTracerEnabled(false)),
    ),
  )
  const address = Context.get(server, HttpServer.HttpServer).address
  const base = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://unix"
  const { token } = yield* Effect.promise(() =>
    fetch(`${base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "bench", password: "bench password" }),
    }).then((response) => response.json() as Promise<{ token: string }>),
  )
  const seeded = performance.now()
  const { albums, artists } = yield* seedLibrary(tracks).pipe(Effect.provide(server))
  const exportFile = path.join(os.tmpdir(), `tonearm-bench-listens-${listens}-${tracks}.jsonl`)
  if (!fs.existsSync(exportFile)) writeExport(exportFile, listens, tracks, albums, artists)
  log(
    `library: ${tracks} tracks; export: ${listens} listens, ${(fs.statSync(exportFile).size / 1024 ** 2).toFixed(0)} MB (${((performance.now() - seeded) / 1000).toFixed(1)} s)`,
  )

  const idle = yield* Effect.promise(() => startProbe(base, token, seconds).done)
  log(`idle browse: ${idle.requests} requests, p50 ${idle.p50_ms} ms, p99 ${idle.p99_ms} ms`)
  const before = memory()

  const probe = startProbe(base, token, 0)
  let peakRssMb = before.rssMb
  const sampler = setInterval(() => {
    peakRssMb = Math.max(peakRssMb, memory().rssMb)
  }, 100)
  // Uploaded by a child process (as a browser or the CLI would), so this process's memory is the server's alone.
  const created = yield* Effect.promise(() => uploadFromChild(base, token, exportFile))
  let status: {
    state: string
    total: number
    matched: number
    unmatched: number
    duplicates: number
    started_at: string
    finished_at: string
    message: string | null
  }
  let lastLog = 0
  while (true) {
    status = yield* Effect.promise(() =>
      fetch(`${base}/api/me/imports/${created.id}`, { headers: { authorization: `Bearer ${token}` } }).then(
        (response) => response.json() as Promise<typeof status>,
      ),
    )
    if (status.state === "done" || status.state === "failed") break
    if (!values.json && performance.now() - lastLog > 5_000) {
      lastLog = performance.now()
      const heap = process.memoryUsage()
      process.stdout.write(
        `\rimported ${status.total} of ${listens} (RSS peak ${peakRssMb} MB; main heap ${Math.round(heap.heapUsed / 2 ** 20)} of ${Math.round(heap.heapTotal / 2 ** 20)} MB, buffers ${Math.round(heap.arrayBuffers / 2 ** 20)} MB)`,
      )
    }
    yield* Effect.sleep("250 millis")
  }
  if (!values.json) process.stdout.write("\n")
  const during = yield* Effect.promise(() => probe.stop())
  clearInterval(sampler)
  peakRssMb = Math.max(peakRssMb, memory().rssMb)
  const seconds_ = (Date.parse(status.finished_at) - Date.parse(status.started_at)) / 1000
  const result = {
    listens,
    tracks,
    state: status.state,
    message: status.message,
    total: status.total,
    matched: status.matched,
    unmatched: status.unmatched,
    duplicates: status.duplicates,
    import_seconds: Number(seconds_.toFixed(1)),
    listens_per_second: Math.round(status.total / seconds_),
    rss_before_mb: before.rssMb,
    peak_rss_mb: peakRssMb,
    idle_p50_ms: idle.p50_ms,
    idle_p99_ms: idle.p99_ms,
    during_p50_ms: during.p50_ms,
    during_p99_ms: during.p99_ms,
    during_requests: during.requests,
    p99_ratio: Number((during.p99_ms / idle.p99_ms).toFixed(2)),
  }
  if (values.json) console.log(JSON.stringify(result))
  else {
    log(
      `import: ${status.state}, ${status.total} listens (${status.matched} matched, ${status.unmatched} unmatched, ${status.duplicates} duplicates) in ${result.import_seconds} s: ${result.listens_per_second} listens/s`,
    )
    log(`server RSS: ${before.rssMb} MB before, peak ${peakRssMb} MB during (target ≤ 400 MB)`)
    log(
      `browse during the import: ${during.requests} requests, p50 ${during.p50_ms} ms, p99 ${during.p99_ms} ms: ${result.p99_ratio}× idle p99 (target ≤ 2×)`,
    )
  }
})

if (values.phase === "probe") {
  await probePhase()
} else if (values.phase === "upload") {
  await uploadPhase()
} else {
  await Effect.runPromise(main.pipe(Effect.scoped, Effect.provide(Logger.minimumLogLevel(LogLevel.Warning))))
  process.exit(0)
}
