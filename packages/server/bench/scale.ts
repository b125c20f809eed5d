/**
 * A million tracks (issue 30 item 4): the built server (`tonearm serve`, its embedded PostgreSQL in a data directory
 * of the bench's own under the temp folder) through every phase of a large library's life, one phase after another
 * on one boot, and one table at the end:
 *
 *   scan     the boot scan of a fresh data directory: files/s, the server's peak RSS (and its child processes', each
 *            sampled; PostgreSQL apart), then its RSS 10 s and 60 s after the scan (issue 30 item 5);
 *   rescan   `POST /api/admin/scan` with nothing changed: wall seconds;
 *   http     browse and search routes under wrk beside `/healthz` (bench:http's machinery, `httpSupport.ts`);
 *   rebuild  1,000 listeners × 5,000 plays over the scanned tracks (bench:rebuild's listeners, `benchListeners.ts`),
 *            every one's nightly job made due: wall seconds from the first start to the last finish, peak RSS of
 *            the server and its engine process.
 *
 *   pnpm bench:scale [-- --tracks 1000000] [--seed 1] [--gen-library PATH] [--library DIR] [--phases scan,rescan,http,rebuild]
 *                    [--users 1000] [--plays 5000] [--duration 10] [--warmup 2] [--connections 16] [--only REGEX]
 *
 * The library comes from `benchLibrary.ts` (TONEARM_GEN_LIBRARY or `--gen-library` for the shared generator), made
 * once. The data directory is `<tmp>/tonearm-bench-scale-<kind>-<tracks>-<seed>/data` (`…-of-<folder>` with
 * `--library`): the scan phase starts it afresh, the other phases use what is there (so a later phase can be run
 * again alone). Run it under `nice`: the server, its PostgreSQL and its workers inherit it.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import pg from "pg"
import { benchLibrary, benchLibraryKind, genLibraryOption } from "./benchLibrary.js"
import { listenerPlays, listenerUsers, trackIndexFromCatalog } from "./benchListeners.js"
import { procStat } from "./benchSupport.js"
import { DEFAULT_ROUTES } from "./httpRoutes.js"
import {
  type BenchServer,
  checkWrk,
  loadNow,
  logRouteTable,
  PASSWORD,
  p99VsHealthz,
  type RouteRow,
  routePlaceholders,
  runRoutes,
  type ScanStatusJson,
  sleep,
  startServer,
  statusMb,
  USERNAME,
} from "./httpSupport.js"

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    tracks: { type: "string", default: "1000000" },
    seed: { type: "string", default: "1" },
    library: { type: "string" },
    "gen-library": { type: "string" },
    phases: { type: "string", default: "scan,rescan,http,rebuild" },
    users: { type: "string", default: "1000" },
    plays: { type: "string", default: "5000" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "16" },
    /** Routes of httpRoutes.ts to run; default: browse and search (no cover, no stream). */
    only: { type: "string", default: "genres|albums|search|detail|artist|home" },
    bin: { type: "string" },
  },
  allowPositionals: true,
})

const log = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`)
const fail = (message: string): never => {
  console.error(`bench:scale: ${message}`)
  process.exit(1)
}
const seconds = (ms: number) => (ms / 1000).toFixed(1)

/** Every process below `root` (from /proc's parent ids). */
const descendants = (root: number): Array<{ pid: number; name: string }> => {
  const children = new Map<number, Array<{ pid: number; name: string }>>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(`/proc/${entry}/stat`)
    if (stat === undefined) continue
    const list = children.get(stat.ppid) ?? []
    list.push({ pid: Number(entry), name: stat.name })
    children.set(stat.ppid, list)
  }
  const out: Array<{ pid: number; name: string }> = []
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child)
      walk(child.pid)
    }
  }
  walk(root)
  return out
}

interface Memory {
  /** The server process. */
  readonly serverMb: number
  /** Its other child processes (parse workers, the engine), PostgreSQL's apart. */
  readonly childrenMb: number
  /** PostgreSQL's processes, summed (shared buffers counted in each that touched them: an upper bound). */
  readonly postgresMb: number
}

/** The server's resident memory split by /proc's smaps_rollup (anonymous: heaps and malloc; file: code) in MB. */
const residentSplit = (pid: number) => {
  try {
    const text = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8")
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0)
    return { anonymousMb: Math.round(kb("Anonymous") / 1024), fileMb: Math.round((kb("Rss") - kb("Anonymous")) / 1024) }
  } catch {
    return { anonymousMb: 0, fileMb: 0 }
  }
}

/** The V8 heap and external memory the server reports on `/metrics` (prom-client's defaults), in MB. */
const heapOf = async (base: string) => {
  const text = await fetch(`${base}/metrics`).then((response) => response.text())
  const value = (name: string) =>
    Math.round(Number(new RegExp(`^tonearm_${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN) / 1024 / 1024)
  return {
    heapTotalMb: value("nodejs_heap_size_total_bytes"),
    heapUsedMb: value("nodejs_heap_size_used_bytes"),
    externalMb: value("nodejs_external_memory_bytes"),
  }
}

const memoryOf = (server: number): Memory => {
  let childrenMb = 0
  let postgresMb = 0
  for (const child of descendants(server)) {
    const rss = statusMb(child.pid, "VmRSS")
    if (child.name === "postgres") postgresMb += rss
    else childrenMb += rss
  }
  return { serverMb: statusMb(server, "VmRSS"), childrenMb, postgresMb }
}

/** Samples memory every 500 ms until stopped: the peaks of the server, its children, and both together. */
const memorySampler = (server: number) => {
  const peak = { serverMb: 0, childrenMb: 0, togetherMb: 0, postgresMb: 0 }
  const sample = () => {
    const now = memoryOf(server)
    peak.serverMb = Math.max(peak.serverMb, now.serverMb)
    peak.childrenMb = Math.max(peak.childrenMb, now.childrenMb)
    peak.togetherMb = Math.max(peak.togetherMb, now.serverMb + now.childrenMb)
    peak.postgresMb = Math.max(peak.postgresMb, now.postgresMb)
  }
  sample()
  const timer = setInterval(sample, 500)
  return {
    peak,
    stop: () => {
      clearInterval(timer)
      sample()
      return peak
    },
  }
}

/** A row of the closing table: phase, figure, target, the load when it was measured. */
interface Figure {
  readonly phase: string
  readonly what: string
  readonly value: string
  readonly target: string
  readonly load: string
}

/** Waits for the scan that started at or after `since` to end, logging progress every 30 s. */
const waitForScan = async (
  server: BenchServer,
  token: string,
  since: number,
  memory: { peak: { togetherMb: number } },
) => {
  let lastLog = performance.now()
  for (;;) {
    const status = await server.call<ScanStatusJson>("GET", "/api/admin/scan", token)
    const ours = status.started_at !== null && Date.parse(status.started_at) >= since - 1000
    if (ours && status.state !== "running" && status.finished_at !== null) return status
    if (server.process.exitCode !== null) throw new Error("the server exited during the scan")
    if (performance.now() - lastLog >= 30_000) {
      lastLog = performance.now()
      const now = memoryOf(server.pid)
      const elapsed = status.started_at === null ? 0 : Date.now() - Date.parse(status.started_at)
      const written = status.added + (status.updated ?? 0)
      log(
        `  scan: ${written} of ${status.files_seen} files written in ${seconds(elapsed)} s (${(written / Math.max(1, elapsed / 1000)).toFixed(0)} files/s); RSS server ${now.serverMb} MB + children ${now.childrenMb} MB (peak together ${memory.peak.togetherMb}), PostgreSQL ${now.postgresMb} MB; ${loadNow()}`,
      )
    }
    await sleep(ours ? 2000 : 500)
  }
}

/** The embedded PostgreSQL of a data directory: its port (postmaster.pid) and the server's superuser password. */
const embeddedUrl = (dataDir: string) => {
  const port = Number(fs.readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[3])
  const password = fs.readFileSync(path.join(dataDir, ".postgres-password"), "utf8").trim()
  return `postgres://tonearm:${encodeURIComponent(password)}@127.0.0.1:${port}/tonearm`
}

const main = async () => {
  const phases = new Set(values.phases.split(","))
  const tracks = Number(values.tracks)
  if (!Number.isInteger(tracks) || tracks < 1) fail("--tracks must be a positive integer")
  if (phases.has("http")) checkWrk(fail)
  const bin = path.resolve(values.bin ?? path.join("packages", "cli", "dist", "bin.js"))
  if (!fs.existsSync(bin)) fail(`${bin} is missing: run pnpm build first`)
  const genLibrary = genLibraryOption(values["gen-library"])
  const kind = values.library === undefined ? benchLibraryKind({ genLibrary }) : "custom"
  const library =
    values.library !== undefined
      ? path.resolve(values.library)
      : await benchLibrary({ tracks, seed: Number(values.seed), genLibrary, log, fail })
  // Under /tmp, mode 0755: as root the embedded PostgreSQL runs as the 'postgres' OS user, which must reach it.
  const home = path.join(
    os.tmpdir(),
    values.library === undefined
      ? `tonearm-bench-scale-${kind}-${tracks}-${values.seed}`
      : `tonearm-bench-scale-of-${path.basename(library)}`,
  )
  const dataDir = path.join(home, "data")
  if (phases.has("scan")) fs.rmSync(dataDir, { recursive: true, force: true })
  fs.mkdirSync(home, { recursive: true })
  fs.chmodSync(home, 0o755)
  const fresh = !fs.existsSync(path.join(dataDir, "postgres"))
  log(
    `library ${library}; data directory ${dataDir}${fresh ? " (new)" : ""}; phases ${[...phases].join(", ")}; ${loadNow()}`,
  )

  const figures: Array<Figure> = []
  const figure = (phase: string, what: string, value: string, target = "") =>
    figures.push({ phase, what, value, target, load: os.loadavg()[0]!.toFixed(1) })

  const booted = Date.now()
  const server = await startServer({ bin, dataDir, folders: [library] })
  // The boot's sampler covers the boot scan of a new data directory.
  const bootMemory = memorySampler(server.pid)
  const credentials = { username: USERNAME, password: PASSWORD }
  try {
    const { token } = fresh
      ? await server.call<{ token: string }>("POST", "/api/auth/register", undefined, credentials)
      : await server.call<{ token: string }>("POST", "/api/auth/login", undefined, credentials)

    if (phases.has("scan")) {
      log("scan: the boot scan of a new data directory…")
      const status = await waitForScan(server, token, booted, bootMemory)
      const peak = bootMemory.stop()
      const wallMs = Date.parse(status.finished_at!) - Date.parse(status.started_at!)
      const hwm = statusMb(server.pid, "VmHWM")
      log(
        `scan: ${status.files_seen} files, ${status.added} added, ${status.errors} errors in ${seconds(wallMs)} s; server VmHWM ${hwm} MB, sampled peaks: server ${peak.serverMb} MB, children ${peak.childrenMb} MB, together ${peak.togetherMb} MB, PostgreSQL ${peak.postgresMb} MB; ${loadNow()}`,
      )
      figure("scan", "cold scan", `${status.files_seen} files in ${seconds(wallMs)} s`)
      figure("scan", "cold scan files/s", (status.files_seen / (wallMs / 1000)).toFixed(0))
      figure("scan", "scan errors", String(status.errors), "0")
      figure("scan", "peak RSS, server (VmHWM)", `${hwm} MB`, "≤ 600 MB")
      figure("scan", "peak RSS, server + children (sampled)", `${peak.togetherMb} MB`, "≤ 600 MB")
      figure("scan", "peak RSS, PostgreSQL (sum)", `${peak.postgresMb} MB`)
      const scanEnded = Date.parse(status.finished_at!)
      for (const after of [10, 60]) {
        await sleep(Math.max(0, scanEnded + after * 1000 - Date.now()))
        const now = memoryOf(server.pid)
        const split = residentSplit(server.pid)
        const heap = await heapOf(server.base)
        log(
          `scan: ${after} s after, RSS server ${now.serverMb} MB (anonymous ${split.anonymousMb}, file-backed ${split.fileMb}; V8 heap ${heap.heapTotalMb} MB committed, ${heap.heapUsedMb} used, external ${heap.externalMb}), children ${now.childrenMb} MB; ${loadNow()}`,
        )
        figure(
          "scan",
          `RSS ${after} s after the scan (server + children)`,
          `${now.serverMb} + ${now.childrenMb} MB (heap ${heap.heapUsedMb}/${heap.heapTotalMb}, file ${split.fileMb})`,
          after === 60 ? "≤ 150 MB" : "",
        )
      }
    } else bootMemory.stop()

    if (phases.has("rescan")) {
      log("rescan: nothing changed…")
      const memory = memorySampler(server.pid)
      const requested = Date.now()
      await server.call("POST", "/api/admin/scan", token, {})
      const status = await waitForScan(server, token, requested, memory)
      const peak = memory.stop()
      const wallMs = Date.now() - requested
      log(
        `rescan: ${status.files_seen} files, ${status.added} added, ${status.updated ?? 0} updated, ${status.removed ?? 0} removed in ${seconds(wallMs)} s (request to finish); peak server + children ${peak.togetherMb} MB; ${loadNow()}`,
      )
      figure("rescan", "no-change rescan", `${seconds(wallMs)} s`, "≤ 60 s")
      figure("rescan", "changes found", `${status.added} + ${status.updated ?? 0} + ${status.removed ?? 0}`, "0")
      figure("rescan", "peak RSS, server + children", `${peak.togetherMb} MB`)
    }

    let rows: Array<RouteRow> = []
    const levels = values.connections.split(",").map(Number)
    const only = new RegExp(values.only)
    const routes = DEFAULT_ROUTES.filter((route) => only.test(route.name))
    if (phases.has("http")) {
      log("http: browse and search beside /healthz…")
      const placeholders = await routePlaceholders(server.call, token, log)
      const memory = memorySampler(server.pid)
      rows = await runRoutes({
        server,
        routes,
        placeholders,
        tokens: [token],
        levels,
        seconds: Number(values.duration),
        warmup: Number(values.warmup),
        workDir: home,
        log,
      })
      const peak = memory.stop()
      logRouteTable(rows, routes, levels, log)
      const top = Math.max(...levels)
      const worst = rows
        .filter((row) => row.connections === top && row.route !== "healthz")
        .reduce<RouteRow | undefined>((a, b) => (a === undefined || b.p99Ms > a.p99Ms ? b : a), undefined)
      const healthz = rows.find((row) => row.route === "healthz" && row.connections === top)
      figure("http", `healthz c=${top} p99`, `${healthz?.p99Ms.toFixed(1)} ms`)
      if (worst !== undefined) {
        figure(
          "http",
          `slowest route c=${top} p99 (${worst.route})`,
          `${worst.p99Ms.toFixed(1)} ms (${p99VsHealthz(rows, worst)?.toFixed(1)}× healthz)`,
          "≤ 50 ms",
        )
      }
      const errors = rows.reduce((sum, row) => sum + row.httpErrors + row.socketErrors, 0)
      figure("http", "errors", String(errors), "0")
      figure("http", "peak RSS, server + children", `${peak.togetherMb} MB`)
    }

    if (phases.has("rebuild")) {
      const users = Number(values.users)
      const plays = Number(values.plays)
      const client = new pg.Client({ connectionString: embeddedUrl(dataDir) })
      await client.connect()
      try {
        const present = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM users WHERE username LIKE 'listener%'",
        )
        if (present.rows[0]!.n === 0) {
          log(`rebuild: seeding ${users} listeners × ${plays} plays over the scanned tracks…`)
          const started = performance.now()
          const trackCount = (await client.query<{ n: number }>("SELECT count(*)::int AS n FROM tracks")).rows[0]!.n
          for (const statement of trackIndexFromCatalog) await client.query(statement)
          await client.query(listenerUsers(users))
          for (const statement of listenerPlays(users, plays, trackCount)) await client.query(statement)
          // As at 03:00 once autovacuum has caught up with the day (bench:rebuild does the same).
          await client.query("VACUUM (ANALYZE)")
          await client.query("CHECKPOINT")
          log(`rebuild: seeded in ${seconds(performance.now() - started)} s; ${loadNow()}`)
        }
        await client.query(`
          INSERT INTO rebuild_jobs (user_id, timezone, next_run_at)
          SELECT id, timezone, now() + interval '1 day' FROM users WHERE username LIKE 'listener%'
          ON CONFLICT (user_id) DO NOTHING`)
        const marked = (await client.query<{ at: Date }>("SELECT now() AS at")).rows[0]!.at
        const due = await client.query(`
          UPDATE rebuild_jobs SET next_run_at = now() - interval '1 minute'
          WHERE user_id IN (SELECT id FROM users WHERE username LIKE 'listener%')`)
        log(`rebuild: ${due.rowCount} nightly jobs due now (the scheduler looks every 30 s)…`)
        const memory = memorySampler(server.pid)
        let lastLog = performance.now()
        let done: { done: number; failed: number; first: Date | null; last: Date | null }
        for (;;) {
          await sleep(5000)
          done = (
            await client.query<{ done: number; failed: number; first: Date | null; last: Date | null }>(
              `SELECT count(*) FILTER (WHERE last_finished_at >= $1)::int AS done,
                      count(*) FILTER (WHERE last_finished_at >= $1 AND last_error IS NOT NULL)::int AS failed,
                      min(last_started_at) FILTER (WHERE last_started_at >= $1) AS first,
                      max(last_finished_at) FILTER (WHERE last_finished_at >= $1) AS last
               FROM rebuild_jobs WHERE user_id IN (SELECT id FROM users WHERE username LIKE 'listener%')`,
              [marked],
            )
          ).rows[0]!
          if (done.done >= (due.rowCount ?? 0)) break
          if (server.process.exitCode !== null) throw new Error("the server exited during the rebuild")
          if (performance.now() - lastLog >= 30_000) {
            lastLog = performance.now()
            const now = memoryOf(server.pid)
            log(
              `  rebuild: ${done.done} of ${due.rowCount} users done; RSS server ${now.serverMb} MB + children ${now.childrenMb} MB (peak together ${memory.peak.togetherMb}); ${loadNow()}`,
            )
          }
        }
        const peak = memory.stop()
        const wallMs = done.last!.getTime() - done.first!.getTime()
        log(
          `rebuild: ${done.done} users in ${seconds(wallMs)} s (first start to last finish), ${done.failed} with an error or skipped; peak server ${peak.serverMb} MB, children ${peak.childrenMb} MB, together ${peak.togetherMb} MB; ${loadNow()}`,
        )
        figure("rebuild", `nightly run, ${done.done} users`, `${seconds(wallMs)} s`)
        figure("rebuild", "users failed or skipped", String(done.failed), "0")
        figure("rebuild", "peak RSS, server + engine", `${peak.togetherMb} MB`)
      } finally {
        await client.end()
      }
    }

    log("")
    log(
      `${values.library === undefined ? `${tracks} tracks (${kind})` : library}, ${os.availableParallelism()} cores; load = 1-minute load average when measured`,
    )
    log("| phase | figure | value | target | load |")
    log("|---|---|---|---|---|")
    for (const row of figures) log(`| ${row.phase} | ${row.what} | ${row.value} | ${row.target} | ${row.load} |`)
    log(
      server.errors.lines === 0
        ? "server log: no ERROR line"
        : `server log: ${server.errors.lines} ERROR lines, e.g.\n  ${server.errors.samples.join("\n  ")}`,
    )
  } finally {
    await server.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
