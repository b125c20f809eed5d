/**
 * Idle memory benchmark (issue 14): the resident memory of the BUILT server (`packages/cli/dist/bin.js serve`,
 * the code `npm install -g @tonearm/cli` installs) before a scan, at its peak, and once idle after a scan of a
 * 20k-track library and a little browsing; against the target of 150 MB (Navidrome idles at ~55 MB).
 *
 *   pnpm bench:idle [-- --tracks 20000] [--library DIR] [--idle-seconds 45] [--bin packages/cli/dist/bin.js] [--json]
 *
 * The library is the project's synthetic one (fixtures/synthetic.ts), generated once into
 * `<tmp>/tonearm-bench-library-<tracks>-<seed>` and reused by later runs. The server runs with its embedded
 * PostgreSQL (separate processes, reported apart), or on a throwaway database of TONEARM_BENCH_DATABASE_URL.
 * Nothing is forced: no GC call, no flag; the server is left alone for --idle-seconds before the idle reading.
 *
 * A first boot on an empty folder makes the database, the admin and an empty boot scan; the measured server then
 * boots on the real library (no boot scan: one has completed), is read before any scan, and the library is
 * scanned through the API (POST /api/admin/scan) as an admin would.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { Effect } from "effect"
import { generateSyntheticLibrary } from "../fixtures/synthetic.js"
import { benchDatabase, procStat } from "./benchSupport.js"
import { shebangOf } from "./httpSupport.js"

const TARGET_MB = 150

const { values } = parseArgs({
  // `pnpm bench:idle -- --flag` passes the `--` along: drop it, or every flag after it would be positional.
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    tracks: { type: "string", default: "20000" },
    seed: { type: "string", default: "1" },
    library: { type: "string" },
    "idle-seconds": { type: "string", default: "45" },
    bin: { type: "string" },
    json: { type: "boolean", default: false },
    /** Diagnostics: V8/Node flags for the server's node, e.g. "--max-semi-space-size=2" (the bin's own shebang flags are used otherwise). */
    "server-node-flags": { type: "string" },
  },
  allowPositionals: true,
})

const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`)
const mb = (kb: number) => Math.round(kb / 1024)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The library to scan: given, or the synthetic one of this size and seed (generated on first use). */
const libraryDir = async (): Promise<string> => {
  if (values.library !== undefined) return path.resolve(values.library)
  const tracks = Number(values.tracks)
  const dir = path.join(os.tmpdir(), `tonearm-bench-library-${tracks}-${values.seed}`)
  const done = path.join(dir, ".complete")
  if (fs.existsSync(done)) {
    log(`library: reusing ${dir}`)
    return dir
  }
  const started = performance.now()
  const generated = await generateSyntheticLibrary({ out: dir, tracks, seed: Number(values.seed) })
  fs.writeFileSync(done, `${generated.files}\n`)
  log(
    `library: generated ${generated.files} files (${(generated.bytes / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s into ${dir}`,
  )
  return dir
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })

/** A `/proc/<pid>/status` field in kB (VmRSS, VmHWM), or 0 once the process is gone. */
const statusKb = (pid: number, field: string): number => {
  try {
    const match = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))
    return match === null ? 0 : Number(match[1])
  } catch {
    return 0
  }
}

const threadsOf = (pid: number): number => {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/^Threads:\s+(\d+)/m)?.[1] ?? 0)
  } catch {
    return 0
  }
}

/** Proportional set size in kB: shared pages (PostgreSQL's shared buffers) divided among the processes using them. */
const pssKb = (pid: number): number => {
  try {
    const match = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").match(/^Pss:\s+(\d+) kB/m)
    return match === null ? 0 : Number(match[1])
  } catch {
    return 0
  }
}

/** Every process below `root` (the embedded PostgreSQL's postmaster and its backends). */
const descendants = (root: number): Array<number> => {
  const parents = new Map<number, number>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = procStat(`/proc/${entry}/stat`)
    if (stat !== undefined) parents.set(Number(entry), stat.ppid) // else gone meanwhile
  }
  const found: Array<number> = []
  const queue = [root]
  while (queue.length > 0) {
    const parent = queue.shift()!
    for (const [pid, ppid] of parents) {
      if (ppid === parent) {
        found.push(pid)
        queue.push(pid)
      }
    }
  }
  return found
}

interface Reading {
  readonly serverRssMb: number
  readonly threads: number
  readonly postgresProcesses: number
  readonly postgresRssMb: number
  readonly postgresPssMb: number
}

const reading = (pid: number): Reading => {
  const children = descendants(pid)
  return {
    serverRssMb: mb(statusKb(pid, "VmRSS")),
    threads: threadsOf(pid),
    postgresProcesses: children.length,
    postgresRssMb: mb(children.reduce((sum, child) => sum + statusKb(child, "VmRSS"), 0)),
    postgresPssMb: mb(children.reduce((sum, child) => sum + pssKb(child), 0)),
  }
}

interface ScanStatusJson {
  readonly state: string
  readonly finished_at: string | null
  readonly files_seen: number
  readonly added: number
  readonly errors: number
}

const describe = (name: string, r: Reading) =>
  `${name.padEnd(12)} server ${String(r.serverRssMb).padStart(4)} MB RSS (${r.threads} threads) | postgres ${r.postgresProcesses} processes ${r.postgresRssMb} MB RSS, ${r.postgresPssMb} MB PSS`

const main = Effect.gen(function* () {
  // `pnpm bench:idle` runs from the repository's root.
  const bin = path.resolve(values.bin ?? path.join("packages", "cli", "dist", "bin.js"))
  if (!fs.existsSync(bin)) return yield* Effect.fail(new Error(`${bin} is missing: run pnpm build first`))
  const library = yield* Effect.promise(libraryDir)

  // Under /tmp, mode 0755: as root the embedded PostgreSQL runs as the 'postgres' OS user, which must reach it.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-idle-"))
  fs.chmodSync(work, 0o755)
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(work, { recursive: true, force: true })))
  const empty = path.join(work, "empty")
  fs.mkdirSync(empty)

  const external = process.env.TONEARM_BENCH_DATABASE_URL
  const env: NodeJS.ProcessEnv = { ...process.env, TONEARM_LOG_LEVEL: "warning" }
  delete env.TONEARM_DATABASE_URL
  if (external !== undefined && external !== "") env.TONEARM_DATABASE_URL = yield* benchDatabase
  // Diagnostics only (e.g. --heapsnapshot-signal=SIGUSR2): node options for the server, not for this bench.
  if (process.env.TONEARM_BENCH_SERVER_NODE_OPTIONS !== undefined)
    env.NODE_OPTIONS = process.env.TONEARM_BENCH_SERVER_NODE_OPTIONS

  const shebang = shebangOf(bin)
  Object.assign(env, shebang.env)
  const nodeFlags = [...shebang.flags, ...(values["server-node-flags"]?.split(" ").filter((flag) => flag !== "") ?? [])]
  const port = yield* Effect.promise(freePort)
  const base = `http://127.0.0.1:${port}`
  /** `tonearm serve` on `libraryDir`, stopped (SIGINT) when the scope closes or by `stop`. */
  const serve = (libraryDir: string) =>
    Effect.acquireRelease(
      Effect.sync(() =>
        spawn(
          process.execPath,
          [
            ...nodeFlags,
            bin,
            "serve",
            "--port",
            String(port),
            "--host",
            "127.0.0.1",
            "--data-dir",
            path.join(work, "data"),
            "--library",
            libraryDir,
          ],
          { env, stdio: ["ignore", "inherit", "inherit"] },
        ),
      ),
      (proc) => Effect.promise(() => stop(proc)),
    )
  const stop = (proc: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve()
      proc.once("exit", () => resolve())
      proc.kill("SIGINT")
      setTimeout(() => proc.kill("SIGKILL"), 30_000).unref()
    })

  const call = async <A = unknown>(method: string, route: string, token?: string, body?: unknown): Promise<A> => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 200)}`)
    return (text === "" ? undefined : JSON.parse(text)) as A
  }
  const booted = async (proc: ChildProcess) => {
    for (let attempt = 0; ; attempt++) {
      if (proc.exitCode !== null) throw new Error("the server exited during boot")
      try {
        await call("GET", "/healthz")
        return
      } catch (error) {
        if (attempt > 240) throw error
        await sleep(250)
      }
    }
  }
  const waitForScan = async (token: string) => {
    for (;;) {
      const status = await call<ScanStatusJson>("GET", "/api/admin/scan", token)
      if (status.state !== "running" && status.finished_at !== null) return status
      await sleep(500)
    }
  }

  // First boot, on an empty folder: the database, the admin, and the boot scan (of nothing) are done, so the
  // measured boot below starts no scan of its own; the library is then scanned through the API.
  const token = yield* Effect.scoped(
    Effect.flatMap(serve(empty), (first) =>
      Effect.promise(async () => {
        await booted(first)
        const { token } = await call<{ token: string }>("POST", "/api/auth/register", undefined, {
          username: "bench",
          password: "bench-password-1",
        })
        await waitForScan(token)
        await stop(first)
        return token
      }),
    ),
  )

  const server = yield* serve(library)
  const pid = server.pid!

  const results = yield* Effect.promise(async () => {
    await booted(server)
    await sleep(5_000)
    const before = reading(pid)
    log(describe("before scan", before))

    // The real library, scanned through the API; the peak is sampled through the scan and the browsing.
    let peakPostgresPss = 0
    const sampler = setInterval(() => {
      peakPostgresPss = Math.max(peakPostgresPss, reading(pid).postgresPssMb)
    }, 1_000)
    const started = performance.now()
    await call("POST", "/api/admin/scan", token, {})
    await sleep(500)
    const scan = await waitForScan(token)
    const scanSeconds = (performance.now() - started) / 1000
    log(
      `scan: ${scan.files_seen} files, ${scan.added} added, ${scan.errors} errors in ${scanSeconds.toFixed(1)} s (${Math.round(scan.files_seen / scanSeconds)} files/s)`,
    )

    // A little browsing, as a first visit would do.
    await call("GET", "/api/home", token)
    const albums = await call<{ items: Array<{ id: string; artist_id: string }> }>(
      "GET",
      "/api/library/albums?limit=50",
      token,
    )
    await call("GET", "/api/library/albums?limit=50&offset=50", token)
    await call("GET", "/api/library/genres", token)
    await call("GET", "/api/library/years", token)
    for (const album of albums.items.slice(0, 10)) {
      await call("GET", `/api/albums/${album.id}`, token)
      await call("GET", `/api/artists/${album.artist_id}`, token)
      // The album page shows its cover, resized (sharp); not every synthetic album has one (404).
      await fetch(`${base}/api/albums/${album.id}/cover?size=300`, {
        headers: { authorization: `Bearer ${token}` },
      }).then((response) => response.arrayBuffer())
    }
    for (const q of ["a", "the", "love", "night"]) await call("GET", `/api/search?q=${q}`, token)
    await call("GET", "/api/library/shuffle?limit=50", token)
    await call("GET", "/api/home", token)
    // Similar artists run in the recommendation engine's process.
    const firstAlbum = albums.items[0]
    if (firstAlbum !== undefined) await call("GET", `/api/artists/${firstAlbum.artist_id}/similar`, token)
    const peak = { ...reading(pid), serverRssMb: mb(statusKb(pid, "VmHWM")) }
    clearInterval(sampler)
    log(
      `${describe("peak", { ...peak, postgresPssMb: Math.max(peak.postgresPssMb, peakPostgresPss) })} (server: VmHWM)`,
    )

    const idleSeconds = Number(values["idle-seconds"])
    log(`waiting ${idleSeconds} s for idle (nothing forced)...`)
    await sleep(idleSeconds * 1000)
    const idle = reading(pid)
    log(describe("idle", idle))
    return {
      before,
      peak,
      idle,
      scan: { files: scan.files_seen, errors: scan.errors, seconds: scanSeconds },
      idleSeconds,
    }
  })

  const verdict = results.idle.serverRssMb <= TARGET_MB ? "meets" : "MISSES"
  log(
    `idle server RSS ${results.idle.serverRssMb} MB ${verdict} the ${TARGET_MB} MB target (Navidrome idles at ~55 MB)`,
  )
  if (values.json) console.log(JSON.stringify({ ...results, targetMb: TARGET_MB, bin }))
})

Effect.runPromise(Effect.scoped(main)).catch((error) => {
  console.error(error)
  process.exit(1)
})
