/**
 * Nightly-rebuild benchmark (issue 9): every user's daily job run through the real scheduler
 * (`RebuildScheduler.runDue` → `RebuildService.rebuild` → the engine's process), while a separate process
 * browses `GET /api/library/albums` against the same server.
 *
 *   pnpm bench:rebuild [--users 1000] [--plays 5000] [--tracks 100000] [--probe-seconds 10] [--probe-rate 0]
 *                      [--run-users N] [--json]
 *
 * The library and the plays are synthetic rows inserted straight into a fresh database (no audio files): on
 * TONEARM_BENCH_DATABASE_URL (a superuser URL) when set, else on a temporary embedded PostgreSQL. Each user
 * listens mostly around a region of their own in the library (a skewed draw), 15 % skips, over a year.
 *
 * Printed: wall time of the whole run, ms per user, the peak RSS of the server process plus the engine's process
 * (PostgreSQL is another process), and the p50/p99 of sequential album-page requests made by a child process over
 * one keep-alive connection, idle first and then during the run; and the main thread's heap peak sampled during
 * the run.
 *
 * Profiling (Node refuses --cpu-prof in NODE_OPTIONS): run `pnpm bench:rebuild` once to build the bundle, then
 * `cd packages/server/bench/.build/run && node --cpu-prof --cpu-prof-dir=/tmp/prof rebuild.mjs --users 200 --run-users 60`;
 * it writes one .cpuprofile per thread of the server's process. The engine's process is forked with its own flags
 * (`execArgv` in RecommendationEngineWorker.ts): add `--cpu-prof` there to profile it.
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
import { RebuildScheduler } from "../src/recommendations/RebuildScheduler.js"
import { defaultEngineWorkers, engineProcessIds } from "../src/recommendations/RecommendationEngineWorker.js"
import { listenerPlays, listenerUsers } from "./benchListeners.js"
import { benchDatabase, benchSettings, procStat } from "./benchSupport.js"

const { values } = parseArgs({
  options: {
    users: { type: "string", default: "1000" },
    plays: { type: "string", default: "5000" },
    tracks: { type: "string", default: "100000" },
    "probe-seconds": { type: "string", default: "10" },
    "probe-rate": { type: "string", default: "0" },
    "run-users": { type: "string" },
    json: { type: "boolean", default: false },
    phase: { type: "string" },
    url: { type: "string" },
    token: { type: "string" },
  },
  allowPositionals: true,
})

const log = (line: string) => {
  if (!values.json) console.log(line)
  else process.stderr.write(`${line}\n`)
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

/**
 * Child phase: GET /api/library/albums until stdin closes (or `--probe-seconds` pass when it is a fixed-length
 * probe). At `--probe-rate` R > 0 a request is due every 1/R s whatever the ones before did (an open loop, as
 * people browse), each timed from when it was due, so a stall counts for every request it delays; at 0, one
 * request after the other on one keep-alive connection (a closed loop: the probe takes all the CPU it is given).
 * Prints the latencies' summary.
 */
const probePhase = async () => {
  const url = `${values.url}/api/library/albums`
  const headers = { authorization: `Bearer ${values.token}` }
  const seconds = Number(values["probe-seconds"])
  const rate = Number(values["probe-rate"])
  let stop = false
  process.stdin.on("end", () => {
    stop = true
  })
  process.stdin.resume()
  const deadline = seconds > 0 ? performance.now() + seconds * 1000 : Number.POSITIVE_INFINITY
  const latencies: Array<number> = []
  let failures = 0
  const browse = async (due: number) => {
    const response = await fetch(url, { headers })
    await response.arrayBuffer()
    if (!response.ok) failures++
    latencies.push(performance.now() - due)
  }
  if (rate > 0) {
    const every = 1000 / rate
    const first = performance.now()
    const inFlight = new Set<Promise<void>>()
    for (let i = 0; !stop; i++) {
      const due = first + i * every
      if (due >= deadline) break
      const wait = due - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const request: Promise<void> = browse(due).finally(() => inFlight.delete(request))
      inFlight.add(request)
    }
    await Promise.all(inFlight)
  } else {
    while (!stop && performance.now() < deadline) await browse(performance.now())
  }
  latencies.sort((a, b) => a - b)
  console.log(
    JSON.stringify({
      requests: latencies.length,
      failures,
      p50_ms: Number(percentile(latencies, 50).toFixed(2)),
      p99_ms: Number(percentile(latencies, 99).toFixed(2)),
      max_ms: Number((latencies.at(-1) ?? 0).toFixed(2)),
    }),
  )
  process.exit(0)
}

interface ProbeResult {
  readonly requests: number
  readonly failures: number
  readonly p50_ms: number
  readonly p99_ms: number
  readonly max_ms: number
}

/** Starts the probe child; `stop` closes its stdin and answers its summary. */
const startProbe = (url: string, token: string, seconds: number) => {
  const proc = spawn(
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
      "--probe-rate",
      values["probe-rate"]!,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  )
  let out = ""
  proc.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString()
  })
  const done = new Promise<ProbeResult>((resolve, reject) =>
    proc.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split("\n").at(-1)!) as ProbeResult)
        : reject(new Error(`probe exited ${code}`)),
    ),
  )
  return {
    stop: () => {
      proc.stdin!.end()
      return done
    },
    done,
  }
}

/** CPU seconds (user + system) of every thread of this process, by thread id, with the thread's name. */
const threadCpu = (): Map<string, { readonly name: string; readonly seconds: number }> => {
  const out = new Map<string, { readonly name: string; readonly seconds: number }>()
  for (const tid of fs.readdirSync("/proc/self/task")) {
    const stat = procStat(`/proc/self/task/${tid}/stat`)
    if (stat !== undefined) out.set(tid, { name: stat.name, seconds: stat.seconds })
  }
  return out
}

/**
 * CPU seconds (user + system) of every PostgreSQL process on the machine, with what their exited children used
 * (a backend that ends during the run is counted in its postmaster's `cutime`/`cstime` from then on).
 */
const postgresCpu = (): number => {
  let seconds = 0
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    const stat = procStat(`/proc/${pid}/stat`)
    if (stat?.name === "postgres") seconds += stat.withChildrenSeconds
  }
  return seconds
}

/** A process's CPU seconds so far, its peak and current resident memory (MB); undefined once it has exited. */
const processStats = (pid: number): { cpuSeconds: number; hwmMb: number; rssMb: number } | undefined => {
  const stat = procStat(`/proc/${pid}/stat`)
  let status: string
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  } catch {
    return undefined
  }
  if (stat === undefined) return undefined
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0)
  return { cpuSeconds: stat.seconds, hwmMb: Math.round(kb("VmHWM") / 1024), rssMb: Math.round(kb("VmRSS") / 1024) }
}

/** Per-thread CPU used between two `threadCpu` readings, busiest first (threads under 0.5 s summed). */
const cpuBetween = (
  before: Map<string, { readonly name: string; readonly seconds: number }>,
  after: Map<string, { readonly name: string; readonly seconds: number }>,
) => {
  const rows: Array<{ tid: string; name: string; seconds: number }> = []
  for (const [tid, { name, seconds }] of after)
    rows.push({
      tid,
      name: tid === String(process.pid) ? "main" : name,
      seconds: seconds - (before.get(tid)?.seconds ?? 0),
    })
  rows.sort((a, b) => b.seconds - a.seconds)
  return rows
}

/** The synthetic library, users and plays, inserted by PostgreSQL itself (deterministic ids from md5). */
const seed = (users: number, playsPerUser: number, tracks: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const albums = Math.ceil(tracks / 12)
    const artists = Math.max(1, Math.floor(tracks / 12.5))
    const started = performance.now()
    yield* sql.unsafe(`
      INSERT INTO artists (id, name, name_key, sort_name, sort_key, search_key, mbid, album_count, track_count, created_at, updated_at)
      SELECT md5('artist' || g)::uuid, 'Artist ' || g, 'artist ' || g, 'Artist ' || g, 'artist ' || g, 'artist ' || g,
             md5('mbid' || g)::uuid::text, 0, 0, now(), now()
      FROM generate_series(0, ${artists - 1}) g`)
    yield* sql.unsafe(`
      INSERT INTO albums (id, album_key, title, artist_id, search_key, year, track_count, duration_ms, added_at, updated_at)
      SELECT md5('album' || g)::uuid, 'album ' || g, 'Album ' || g, md5('artist' || (g::bigint * ${artists} / ${albums}))::uuid,
             'album ' || g, CASE WHEN g % 10 = 0 THEN 0 ELSE 1960 + g % 65 END, 12, 12 * 240000,
             now() - ((g % 1000) || ' days')::interval, now()
      FROM generate_series(0, ${albums - 1}) g`)
    yield* sql.unsafe(`
      INSERT INTO tracks (id, path, directory, size_bytes, mtime_ms, title, search_key, album_id, artist_id, track_number,
                          disc_number, duration_ms, genre, file_format, added_at, updated_at)
      SELECT md5('track' || t)::uuid, '/bench/' || t || '.mp3', '/bench', 4000000, 0, 'Track ' || t, 'track ' || t,
             md5('album' || (t / 12))::uuid, md5('artist' || ((t / 12)::bigint * ${artists} / ${albums}))::uuid,
             t % 12 + 1, 1, 150000 + (t * 7919) % 200000,
             'Genre ' || ((t / 12)::bigint * ${artists} / ${albums}) % 80 || '; Genre ' || ((t / 12)::bigint * ${artists} / ${albums} + 1) % 80,
             'mp3', now() - (((t / 12) % 1000) || ' days')::interval, now()
      FROM generate_series(0, ${tracks - 1}) t`)
    yield* sql.unsafe(listenerUsers(users))
    log(
      `seeded ${tracks} tracks, ${albums} albums, ${artists} artists, ${users} users in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
    // The plays name tracks by index (benchListeners.ts): here the synthetic rows' own numbering.
    yield* sql.unsafe(`CREATE TABLE bench_track_index AS
      SELECT t::int AS idx, md5('track' || t)::uuid AS track_id,
             md5('artist' || ((t / 12)::bigint * ${artists} / ${albums}))::uuid AS artist_id, md5('album' || (t / 12))::uuid AS album_id
      FROM generate_series(0, ${tracks - 1}) t`)
    yield* sql.unsafe("ALTER TABLE bench_track_index ADD PRIMARY KEY (idx)")
    const batches = listenerPlays(users, playsPerUser, tracks)
    for (const [at, statement] of batches.entries()) {
      yield* sql.unsafe(statement)
      if (!values.json) process.stdout.write(`\rplays: ${Math.min(users, (at + 1) * 50) * playsPerUser}`)
    }
    if (!values.json) process.stdout.write("\n")
    // As a database is at 03:00 once autovacuum has caught up with the day: otherwise the vacuum of 5M fresh
    // play rows and the checkpoints of the seeding's WAL land in the middle of the run (PostgreSQL's CPU in the
    // run varied from 63 to 97 s between runs of the same code).
    yield* sql.unsafe("VACUUM (ANALYZE)")
    yield* sql.unsafe("CHECKPOINT")
    log(`seeded ${users * playsPerUser} plays; total seeding ${((performance.now() - started) / 1000).toFixed(1)} s`)
  })

const main = Effect.gen(function* () {
  const users = Number(values.users)
  const plays = Number(values.plays)
  const tracks = Number(values.tracks)
  const databaseUrl = yield* benchDatabase
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-data-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true })))
  fs.mkdirSync(path.join(dataDir, "music"))
  const config = Layer.succeed(TonearmConfig, benchSettings(dataDir, path.join(dataDir, "music")))
  // The production app (HttpAppLive: every service, the worker engine) on a loopback port; no boot scan.
  const server = yield* Layer.build(
    HttpApiBuilder.serve().pipe(
      Layer.provideMerge(HttpAppLive),
      Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl)))),
      Layer.provideMerge(config),
    ),
  )
  const address = Context.get(server, HttpServer.HttpServer).address
  const base = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : "http://unix"

  // The first account is the admin the probe browses as; then the synthetic rows.
  const registered = yield* Effect.promise(() =>
    fetch(`${base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "bench", password: "bench password" }),
    }).then((response) => response.json() as Promise<{ token: string }>),
  )
  yield* seed(users, plays, tracks).pipe(Effect.provide(server))
  const scheduler = Context.get(server, RebuildScheduler)
  const sql = Context.get(server, SqlClient.SqlClient)
  yield* scheduler.reconcile()
  const seconds = Number(values["probe-seconds"])
  const idle = yield* Effect.promise(() => startProbe(base, registered.token, seconds).done)
  log(`idle browse: ${idle.requests} requests, p50 ${idle.p50_ms} ms, p99 ${idle.p99_ms} ms`)

  // Every job due now: the nightly run, through the scheduler's claims and RebuildService.
  // (--run-users N: only N of them, for profiling one part of the run against the full data.)
  const runUsers = values["run-users"] === undefined ? null : Number(values["run-users"])
  yield* runUsers === null
    ? sql`UPDATE rebuild_jobs SET next_run_at = now() - interval '1 minute'`
    : sql`UPDATE rebuild_jobs SET next_run_at = now() - interval '1 minute'
          WHERE user_id IN (SELECT user_id FROM rebuild_jobs ORDER BY user_id LIMIT ${runUsers})`
  const workers = defaultEngineWorkers()
  log(
    `running the nightly job for ${runUsers ?? users + 1} users (${workers} engine worker${workers === 1 ? "" : "s"})…`,
  )
  const probe = startProbe(base, registered.token, 0)
  // The main thread's share of the memory, sampled through the run (the workers' heaps are the rest of RSS).
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)
  const rssBeforeMb = mb(process.memoryUsage.rss())
  const mainPeak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0 }
  const sample = () => {
    const usage = process.memoryUsage()
    mainPeak.rss = Math.max(mainPeak.rss, usage.rss)
    mainPeak.heapTotal = Math.max(mainPeak.heapTotal, usage.heapTotal)
    mainPeak.heapUsed = Math.max(mainPeak.heapUsed, usage.heapUsed)
    mainPeak.external = Math.max(mainPeak.external, usage.external)
  }
  // The engine's processes (started by the run, stopped 30 s after it): their CPU and peak memory, read before
  // they stop.
  const engines = new Map<number, { cpuSeconds: number; hwmMb: number; rssMb: number }>()
  let combinedPeakMb = 0
  const sampleEngines = () => {
    let engineRssMb = 0
    for (const pid of engineProcessIds()) {
      const stats = processStats(pid)
      if (stats === undefined) continue
      engines.set(pid, stats)
      engineRssMb += stats.rssMb
    }
    combinedPeakMb = Math.max(combinedPeakMb, mb(process.memoryUsage.rss()) + engineRssMb)
  }
  const sampler = setInterval(() => {
    sample()
    sampleEngines()
  }, 250)
  const cpuBefore = threadCpu()
  const postgresBefore = postgresCpu()
  const started = performance.now()
  const ran = yield* scheduler.runDue()
  const wallSeconds = (performance.now() - started) / 1000
  // CPU time is what the run costs whatever else the machine is doing (wall time depends on the load).
  const cpu = cpuBetween(cpuBefore, threadCpu())
  sampleEngines()
  const postgresSeconds = postgresCpu() - postgresBefore
  const loadAverage = os.loadavg()
  clearInterval(sampler)
  sample()
  const during = yield* Effect.promise(() => probe.stop())
  const failed = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM rebuild_jobs WHERE last_error IS NOT NULL`
  const serverPeakMb = Math.round(process.resourceUsage().maxRSS / 1024)
  const enginePeakMb = [...engines.values()].reduce((sum, engine) => sum + engine.hwmMb, 0)
  // Each process's own peak, summed: an upper bound of what both held at once (sampled: `combined_peak_mb`).
  const peakRssMb = serverPeakMb + enginePeakMb
  const result = {
    users: ran.length,
    failed: failed[0]!.n,
    wall_s: Number(wallSeconds.toFixed(1)),
    per_user_ms: Number(((wallSeconds * 1000) / ran.length).toFixed(1)),
    peak_rss_mb: peakRssMb,
    server_peak_rss_mb: serverPeakMb,
    engine_peak_rss_mb: enginePeakMb,
    combined_peak_rss_mb: combinedPeakMb,
    rss_before_run_mb: rssBeforeMb,
    main_heap_total_peak_mb: mb(mainPeak.heapTotal),
    main_heap_used_peak_mb: mb(mainPeak.heapUsed),
    main_external_peak_mb: mb(mainPeak.external),
    engine_workers: workers,
    idle_p50_ms: idle.p50_ms,
    idle_p99_ms: idle.p99_ms,
    during_p50_ms: during.p50_ms,
    during_p99_ms: during.p99_ms,
    during_requests: during.requests,
    p99_ratio: Number((during.p99_ms / idle.p99_ms).toFixed(2)),
    main_cpu_s: Number((cpu.find((row) => row.name === "main")?.seconds ?? 0).toFixed(1)),
    process_cpu_s: Number(cpu.reduce((sum, row) => sum + row.seconds, 0).toFixed(1)),
    engine_cpu_s: Number([...engines.values()].reduce((sum, engine) => sum + engine.cpuSeconds, 0).toFixed(1)),
    postgres_cpu_s: Number(postgresSeconds.toFixed(1)),
    busiest_threads: cpu.slice(0, 5).map((row) => `${row.name}:${row.tid} ${row.seconds.toFixed(1)} s`),
    load_average: loadAverage.map((value) => Number(value.toFixed(2))),
  }
  log(
    `nightly run: ${result.users} users in ${result.wall_s} s (${result.per_user_ms} ms per user), ${result.failed} failed`,
  )
  log(
    `peak RSS:    ${result.peak_rss_mb} MB (server process ${serverPeakMb} MB + engine process ${enginePeakMb} MB, each at its own peak; sampled together ${combinedPeakMb} MB)`,
  )
  log(
    `memory:      ${result.rss_before_run_mb} MB RSS before the run; main thread heap peak ${result.main_heap_total_peak_mb} MB (${result.main_heap_used_peak_mb} MB used), external ${result.main_external_peak_mb} MB`,
  )
  log(
    `browse p99:  ${result.during_p99_ms} ms during the run (${during.requests} requests, p50 ${during.p50_ms} ms) vs ${result.idle_p99_ms} ms idle: ${result.p99_ratio}×`,
  )
  log(
    `cpu:         main thread ${result.main_cpu_s} s, server process ${result.process_cpu_s} s, engine process ${result.engine_cpu_s} s, PostgreSQL ${result.postgres_cpu_s} s; busiest threads ${result.busiest_threads.join(", ")}`,
  )
  log(`load:        ${result.load_average.join(" ")} (1, 5, 15 min) at the end of the run`)
  log(
    `targets:     wall ≤ 180 s ${result.wall_s <= 180 ? "ok" : "MISSED"}, RSS ≤ 800 MB ${result.peak_rss_mb <= 800 ? "ok" : "MISSED"}, p99 ≤ 2× idle ${result.p99_ratio <= 2 ? "ok" : "MISSED"}`,
  )
  if (values.json) console.log(JSON.stringify(result))
})

if (values.phase === "probe") {
  await probePhase()
} else {
  await Effect.runPromise(main.pipe(Effect.scoped, Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)))).catch(
    (error) => {
      process.stderr.write(`bench:rebuild failed: ${error}\n`)
      process.exit(1)
    },
  )
  process.exit(0)
}
