/**
 * HTTP benchmark (issue 15): every browse, search, home, detail, cover and stream route under wrk at 1 and 16
 * connections, next to a `/healthz` baseline measured in the same run, on a generated library, against the BUILT
 * server started as the README does (`tonearm serve`, embedded PostgreSQL, in a child process).
 *
 *   pnpm bench:http [-- --tracks 100000] [--seed 1] [--library DIR] [--gen-library PATH] [--duration 10]
 *                   [--warmup 2] [--connections 1,16] [--routes FILE] [--only REGEX] [--sessions 1] [--fresh] [--json]
 *                   [--libraries 2 [--hear 1]]
 *
 * The library is the project's synthetic generator's (`fixtures/synthetic.ts`), or an external generator script's
 * with `--gen-library PATH` or TONEARM_GEN_LIBRARY (`benchLibrary.ts`), generated once into
 * `<tmp>/tonearm-bench-<kind>-<tracks>-<seed>`; the server's data directory (database and scan) is kept in
 * `<tmp>/tonearm-bench-http-<kind>-<tracks>-<seed>` and reused by later runs (`--fresh` starts over), so only the
 * first run pays for the scan. Nothing is installed: without wrk the bench says how to get it and stops.
 *
 * `--libraries N` (issue 27) splits the library into N libraries (its top-level folders dealt out in turn, hard
 * links in `<tmp>/tonearm-bench-split-N-<library>`), served with one `--library` each. The routes then run as the
 * admin (every library: the single-library statements) or, with `--hear K`, as a listener given libraries 1..K (the
 * access functions of migration 0024): compare with a run of one library at the same size.
 * See packages/server/bench/README.md for how to read the output.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { benchLibrary, benchLibraryKind, genLibraryOption } from "./benchLibrary.js"
import { type BenchRoute, DEFAULT_ROUTES } from "./httpRoutes.js"
import {
  checkWrk,
  type LibraryScanJson,
  logRouteTable,
  PASSWORD,
  p99VsHealthz,
  routePlaceholders,
  runRoutes,
  type ScanStatusJson,
  sleep,
  startServer,
  statusMb,
  USERNAME,
} from "./httpSupport.js"

const { values } = parseArgs({
  // `pnpm bench:http -- --flag` passes the `--` along: drop it, or every flag after it would be positional.
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    tracks: { type: "string", default: "100000" },
    seed: { type: "string", default: "1" },
    library: { type: "string" },
    /** An external generator script instead of the synthetic generator (also TONEARM_GEN_LIBRARY). */
    "gen-library": { type: "string" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "1,16" },
    routes: { type: "string" },
    only: { type: "string" },
    fresh: { type: "boolean", default: false },
    /** Sessions the bearer routes rotate over (one per request, round robin); 1: every connection shares one. */
    sessions: { type: "string", default: "1" },
    bin: { type: "string" },
    json: { type: "boolean", default: false },
    /** Split the library into this many libraries (issue 27). */
    libraries: { type: "string", default: "1" },
    /** Run the routes as a listener who hears libraries 1..K (default: the admin, who hears every library). */
    hear: { type: "string" },
  },
  allowPositionals: true,
})

const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`)
const fail = (message: string): never => {
  console.error(`bench:http: ${message}`)
  process.exit(1)
}

const genLibrary = genLibraryOption(values["gen-library"])
const libraryKind = values.library === undefined ? benchLibraryKind({ genLibrary }) : "custom"

/** The library: given, or the generated one of this size and seed (made on first use, reused after). */
const libraryDir = (tracks: number): Promise<string> =>
  values.library !== undefined
    ? Promise.resolve(path.resolve(values.library))
    : benchLibrary({ tracks, seed: Number(values.seed), genLibrary, log, fail })

/** Every file under `from`, hard-linked (copied across devices) to the same place under `to`. */
const linkTree = (from: string, to: string) => {
  fs.mkdirSync(to, { recursive: true })
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name)
    const target = path.join(to, entry.name)
    if (entry.isDirectory()) linkTree(source, target)
    else if (entry.isFile() && !fs.existsSync(target)) {
      try {
        fs.linkSync(source, target)
      } catch {
        fs.copyFileSync(source, target)
      }
    }
  }
}

/**
 * The library split into `count` folders (issue 27): its top-level entries dealt out in turn, made once and reused.
 * One library: the library itself.
 */
const splitLibrary = (library: string, count: number): ReadonlyArray<string> => {
  if (count === 1) return [library]
  const home = path.join(os.tmpdir(), `tonearm-bench-split-${count}-${path.basename(library)}`)
  const parts = Array.from({ length: count }, (_, at) => path.join(home, `library-${at + 1}`))
  const done = path.join(home, ".complete")
  if (fs.existsSync(done)) return parts
  log(`splitting ${library} into ${count} libraries under ${home} (hard links)`)
  fs.rmSync(home, { recursive: true, force: true })
  const entries = fs.readdirSync(library, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
  entries.forEach((entry, at) => {
    const part = parts[at % count]!
    const source = path.join(library, entry.name)
    if (entry.isDirectory()) linkTree(source, path.join(part, entry.name))
    else if (entry.isFile()) {
      fs.mkdirSync(part, { recursive: true })
      fs.linkSync(source, path.join(part, entry.name))
    }
  })
  for (const part of parts) fs.mkdirSync(part, { recursive: true })
  fs.writeFileSync(done, "")
  return parts
}

const main = async () => {
  checkWrk(fail)
  const tracks = Number(values.tracks)
  if (!Number.isInteger(tracks) || tracks < 1) fail("--tracks must be a positive integer")
  const bin = path.resolve(values.bin ?? path.join("packages", "cli", "dist", "bin.js"))
  if (!fs.existsSync(bin)) fail(`${bin} is missing: run pnpm build first`)
  const routes: ReadonlyArray<BenchRoute> =
    values.routes === undefined
      ? DEFAULT_ROUTES
      : (JSON.parse(fs.readFileSync(values.routes, "utf8")) as ReadonlyArray<BenchRoute>)
  const only = values.only === undefined ? undefined : new RegExp(values.only)
  const selected = routes.filter((route) => only === undefined || only.test(route.name) || only.test(route.path))
  const levels = values.connections.split(",").map(Number)
  const seconds = Number(values.duration)
  const warmup = Number(values.warmup)
  const library = await libraryDir(tracks)
  const libraryCount = Number(values.libraries)
  if (!Number.isInteger(libraryCount) || libraryCount < 1) fail("--libraries must be a positive integer")
  const heard = values.hear === undefined ? undefined : Number(values.hear)
  if (heard !== undefined && (!Number.isInteger(heard) || heard < 1 || heard > libraryCount)) {
    fail("--hear must be between 1 and --libraries")
  }
  const folders = splitLibrary(library, libraryCount)

  // Under /tmp, mode 0755: as root the embedded PostgreSQL runs as the 'postgres' OS user, which must reach it.
  const home = path.join(
    os.tmpdir(),
    `tonearm-bench-http-${libraryKind}-${values.library === undefined ? tracks : "custom"}-${values.seed}` +
      (libraryCount === 1 ? "" : `-libraries-${libraryCount}`),
  )
  if (values.fresh || values.library !== undefined) fs.rmSync(home, { recursive: true, force: true })
  fs.mkdirSync(home, { recursive: true })
  fs.chmodSync(home, 0o755)
  const reused = fs.existsSync(path.join(home, "data", "postgres"))

  const server = await startServer({ bin, dataDir: path.join(home, "data"), folders })
  const { call, bootedAt } = server

  try {
    const credentials = { username: USERNAME, password: PASSWORD }
    const { token: adminToken } = reused
      ? await call<{ token: string }>("POST", "/api/auth/login", undefined, credentials)
      : await call<{ token: string }>("POST", "/api/auth/register", undefined, credentials)

    // The boot scan of a new data directory: wait for one that started after this boot. A reused data directory
    // has completed a scan already, so the server starts none: go on when none has started 3 s after boot.
    const scanStarted = performance.now()
    let status: ScanStatusJson
    for (;;) {
      status = await call<ScanStatusJson>("GET", "/api/admin/scan", adminToken)
      const sinceBoot = status.started_at !== null && Date.parse(status.started_at) >= bootedAt - 1000
      // Several libraries scan at once: every one must have finished, not just the one the summary shows.
      const allDone = (status.libraries ?? []).every((one) => one.state !== "running" && one.finished_at !== null)
      if (status.state !== "running" && status.finished_at !== null && sinceBoot && allDone) break
      if (status.state !== "running" && performance.now() - scanStarted > (reused ? 3_000 : 60_000)) break
      await sleep(1000)
    }
    // Several libraries: each scans on its own; the files are their sum.
    if (status.libraries !== undefined && status.libraries.length > 1) {
      const sum = (count: (one: LibraryScanJson) => number) =>
        status.libraries!.reduce((total, one) => total + count(one), 0)
      status = {
        ...status,
        files_seen: sum((one) => one.files_seen),
        added: sum((one) => one.added),
        errors: sum((one) => one.errors),
      }
    }
    // The routes' caller: the admin (every library), or a listener given libraries 1..K (`--hear`).
    const listener = { username: `${USERNAME}-listener`, password: PASSWORD }
    if (heard !== undefined) {
      const users = await call<Array<{ id: string; username: string }>>("GET", "/api/admin/users", adminToken)
      const id =
        users.find((user) => user.username === listener.username)?.id ??
        (await call<{ user: { id: string } }>("POST", "/api/admin/users", adminToken, listener)).user.id
      const ids = Array.from({ length: heard }, (_, at) => at + 1)
      await call("PUT", `/api/admin/users/${id}/libraries`, adminToken, { library_ids: ids })
      log(`routes run as ${listener.username}, who hears libraries ${ids.join(", ")} of ${libraryCount}`)
    }
    const caller = heard === undefined ? credentials : listener
    const token =
      heard === undefined
        ? adminToken
        : (await call<{ token: string }>("POST", "/api/auth/login", undefined, listener)).token
    log(
      `scan: ${status.files_seen} files, ${status.added} added, ${status.errors} errors, waited ${((performance.now() - scanStarted) / 1000).toFixed(1)} s${reused ? " (reused data directory: the last scan's figures)" : ""}`,
    )

    const placeholders = await routePlaceholders(call, token, log)

    // Every authenticated request touches its session's row: with one session, concurrent requests queue on its
    // lock; `--sessions N` logs in N times and rotates them, as N devices would.
    const sessions = Math.max(1, Number(values.sessions))
    const tokens = [token]
    while (tokens.length < sessions) {
      tokens.push((await call<{ token: string }>("POST", "/api/auth/login", undefined, caller)).token)
    }
    const pid = server.pid
    const idleRssMb = statusMb(pid, "VmRSS")
    log(
      `server pid ${pid}, ${idleRssMb} MB RSS before the load; wrk ${seconds} s per route after ${warmup} s warm-up; ${sessions} session${sessions === 1 ? "" : "s"}`,
    )
    // Everything shares the machine's cores with wrk and the server: a busy machine makes every figure worse.
    const loadBefore = os.loadavg()[0]!
    if (loadBefore > os.availableParallelism()) {
      log(`warning: load average ${loadBefore.toFixed(1)} on ${os.availableParallelism()} cores: other work is running`)
    }

    const rows = await runRoutes({
      server,
      routes: selected,
      placeholders,
      tokens,
      levels,
      seconds,
      warmup,
      workDir: home,
      log,
    })

    log("")
    log(
      `${status.files_seen} tracks. ms (× /healthz at the same connections, same run); errors = HTTP ≥400 + socket errors; RSS = the server's peak during the route`,
    )
    logRouteTable(rows, selected, levels, log)
    const loadAfter = os.loadavg()[0]!
    log(
      `load average (1 min): ${loadBefore.toFixed(1)} before the load, ${loadAfter.toFixed(1)} after, on ${os.availableParallelism()} cores`,
    )
    const peakRssMb = statusMb(pid, "VmHWM")
    log(`server RSS: ${idleRssMb} MB before the load, ${statusMb(pid, "VmRSS")} MB after, ${peakRssMb} MB peak (VmHWM)`)
    const { lines: errorLines, samples: errorSamples } = server.errors
    log(
      errorLines === 0
        ? "server log: no ERROR line during the run"
        : `server log: ${errorLines} ERROR lines during the run, e.g.\n  ${errorSamples.join("\n  ")}`,
    )
    if (values.json) {
      console.log(
        JSON.stringify({
          tracks: status.files_seen,
          library,
          libraries: libraryCount,
          heard: heard ?? libraryCount,
          duration: seconds,
          sessions,
          warmup,
          server: { idleRssMb, peakRssMb, errorLogLines: errorLines },
          loadAverage: { before: loadBefore, after: loadAfter, cores: os.availableParallelism() },
          results: rows.map(({ route, path: routePath, connections, status: checkStatus, ...figures }) => ({
            route,
            path: routePath,
            connections,
            checkStatus,
            ...figures,
            p99VsHealthz: p99VsHealthz(rows, { route, path: routePath, connections, status: checkStatus, ...figures }),
          })),
        }),
      )
    }
  } finally {
    await server.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
