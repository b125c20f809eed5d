/**
 * HTTP benchmark (issue 15): every browse, search, home, detail, cover and stream route under wrk at 1 and 16
 * connections, next to a `/healthz` baseline measured in the same run, on a generated library, against the BUILT
 * server started as the README does (`tonearm serve`, embedded PostgreSQL, in a child process).
 *
 *   pnpm bench:http [-- --tracks 100000] [--seed 1] [--library DIR] [--gen-library PATH] [--duration 10]
 *                   [--warmup 2] [--connections 1,16] [--routes FILE] [--only REGEX] [--sessions 1] [--fresh] [--json]
 *
 * The library is the project's synthetic generator's (`fixtures/synthetic.ts`), or an external generator script's
 * with `--gen-library PATH` or TONEARM_GEN_LIBRARY (`benchLibrary.ts`), generated once into
 * `<tmp>/tonearm-bench-<kind>-<tracks>-<seed>`; the server's data directory (database and scan) is kept in
 * `<tmp>/tonearm-bench-http-<kind>-<tracks>-<seed>` and reused by later runs (`--fresh` starts over), so only the
 * first run pays for the scan. Nothing is installed: without wrk the bench says how to get it and stops.
 * See packages/server/bench/README.md for how to read the output.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs, promisify } from "node:util"
import { benchLibrary, benchLibraryKind, genLibraryOption } from "./benchLibrary.js"
import { type BenchRoute, DEFAULT_ROUTES, fillPlaceholders, HEALTHZ } from "./httpRoutes.js"

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
  },
  allowPositionals: true,
})

const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const fail = (message: string): never => {
  console.error(`bench:http: ${message}`)
  process.exit(1)
}

const USERNAME = "bench"
const PASSWORD = "bench-password-1"

/** wrk is the load generator; the bench installs nothing itself. */
const checkWrk = () => {
  const probe = spawnSync("wrk", ["--version"], { encoding: "utf8" })
  if (probe.error !== undefined) {
    fail("wrk is not installed. Debian/Ubuntu: sudo apt-get install -y wrk; macOS: brew install wrk")
  }
}

const genLibrary = genLibraryOption(values["gen-library"])
const libraryKind = values.library === undefined ? benchLibraryKind({ genLibrary }) : "custom"

/** The library: given, or the generated one of this size and seed (made on first use, reused after). */
const libraryDir = (tracks: number): Promise<string> =>
  values.library !== undefined
    ? Promise.resolve(path.resolve(values.library))
    : benchLibrary({ tracks, seed: Number(values.seed), genLibrary, log, fail })

/** The environment and node flags of the bin's `#!/usr/bin/env -S VAR=value node --flag` line. */
const shebangOf = (bin: string): { readonly env: Record<string, string>; readonly flags: Array<string> } => {
  const first = fs.readFileSync(bin, "utf8").split("\n", 1)[0] ?? ""
  const tokens = first.startsWith("#!") ? first.slice(2).trim().split(/\s+/) : []
  const node = tokens.indexOf("node")
  const env: Record<string, string> = {}
  for (const token of tokens.slice(0, Math.max(0, node))) {
    const at = token.indexOf("=")
    if (at > 0) env[token.slice(0, at)] = token.slice(at + 1)
  }
  return { env, flags: node < 0 ? [] : tokens.slice(node + 1).filter((flag) => flag.startsWith("--")) }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })

/** A `/proc/<pid>/status` field in MB (VmRSS, VmHWM), or 0 once the process is gone. */
const statusMb = (pid: number, field: string): number => {
  try {
    const match = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))
    return match === null ? 0 : Math.round(Number(match[1]) / 1024)
  } catch {
    return 0
  }
}

interface WrkResult {
  readonly requests: number
  readonly durationSeconds: number
  readonly p50Ms: number
  readonly p90Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  readonly rps: number
  /** Responses with status ≥ 400 (wrk's "status" errors). */
  readonly httpErrors: number
  /** connect + read + write + timeout. */
  readonly socketErrors: number
}

const WRK_SCRIPT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK_JSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"p50\\":%d,\\"p90\\":%d,\\"p99\\":%d,\\"max\\":%d,\\"connect\\":%d,\\"read\\":%d,\\"write\\":%d,\\"status\\":%d,\\"timeout\\":%d}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, e.connect, e.read, e.write, e.status, e.timeout))
end
`

/** Words for `{word}` routes: every two-letter prefix, as search-as-you-type sends them. */
const WORD_SLOT = "tonearmword"
const WORDS = [..."abcdefghijklmnopqrstuvwxyz"].flatMap((a) => [..."abcdefghijklmnopqrstuvwxyz"].map((b) => a + b))

/**
 * A wrk script that rotates the sessions' tokens per request and, with `words`, puts the next word in the
 * path where `{word}` was (`WORD_SLOT`): thread n of wrk's two takes the n-th half of them.
 */
const rotationScript = (
  tokens: ReadonlyArray<string>,
  words: boolean,
) => `local tokens = { ${tokens.map((t) => JSON.stringify(t)).join(", ")} }
local words = { ${(words ? WORDS : []).map((word) => JSON.stringify(word)).join(", ")} }
local threads = 0
function setup(thread)
  thread:set("thread_index", threads)
  threads = threads + 1
end
local i = 0
request = function()
  i = i + 1
  local headers = nil
  if #tokens > 1 then headers = { ["Authorization"] = "Bearer " .. tokens[(i % #tokens) + 1] } end
  local path = wrk.path
  if #words > 0 then
    local half = math.floor(#words / 2)
    local word = words[(thread_index or 0) * half + (i % half) + 1]
    path = string.gsub(wrk.path, "${WORD_SLOT}", word, 1)
  end
  return wrk.format(nil, path, headers)
end
${WRK_SCRIPT}`

const execFileAsync = promisify(execFile)

const wrk = async (
  url: string,
  connections: number,
  seconds: number,
  headers: Record<string, string>,
  script: string,
) => {
  const args = [
    ...["-t", String(Math.min(2, connections)), "-c", String(connections), "-d", `${seconds}s`],
    ...["--timeout", "10s", "-s", script],
    ...Object.entries(headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]),
    url,
  ]
  const { stdout: out } = await execFileAsync("wrk", args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })
  const line = out.split("\n").find((candidate) => candidate.startsWith("WRK_JSON "))
  if (line === undefined) throw new Error(`wrk printed no summary:\n${out}`)
  const r = JSON.parse(line.slice("WRK_JSON ".length)) as Record<string, number>
  const durationSeconds = r.duration_us! / 1e6
  return {
    requests: r.requests!,
    durationSeconds,
    p50Ms: r.p50! / 1000,
    p90Ms: r.p90! / 1000,
    p99Ms: r.p99! / 1000,
    maxMs: r.max! / 1000,
    rps: r.requests! / durationSeconds,
    httpErrors: r.status!,
    socketErrors: r.connect! + r.read! + r.write! + r.timeout!,
  } satisfies WrkResult
}

interface ScanStatusJson {
  readonly state: string
  readonly started_at: string | null
  readonly finished_at: string | null
  readonly files_seen: number
  readonly added: number
  readonly errors: number
}

const main = async () => {
  checkWrk()
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

  // Under /tmp, mode 0755: as root the embedded PostgreSQL runs as the 'postgres' OS user, which must reach it.
  const home = path.join(
    os.tmpdir(),
    `tonearm-bench-http-${libraryKind}-${values.library === undefined ? tracks : "custom"}-${values.seed}`,
  )
  if (values.fresh || values.library !== undefined) fs.rmSync(home, { recursive: true, force: true })
  fs.mkdirSync(home, { recursive: true })
  fs.chmodSync(home, 0o755)
  const reused = fs.existsSync(path.join(home, "data", "postgres"))

  const shebang = shebangOf(bin)
  const env: NodeJS.ProcessEnv = { ...process.env, ...shebang.env, TONEARM_LOG_LEVEL: "warning" }
  delete env.TONEARM_DATABASE_URL
  const port = await freePort()
  const bootedAt = Date.now()
  const base = `http://127.0.0.1:${port}`
  const server: ChildProcess = spawn(
    process.execPath,
    [
      ...shebang.flags,
      bin,
      "serve",
      ...["--port", String(port), "--host", "127.0.0.1"],
      ...["--data-dir", path.join(home, "data"), "--library", library],
    ],
    { env, stdio: ["ignore", "inherit", "pipe"] },
  )
  // The server's log: passed through, and every ERROR counted (issue 15: client disconnects logged as errors).
  let errorLines = 0
  const errorSamples: Array<string> = []
  let pending = ""
  server.stderr?.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk)
    pending += chunk.toString("utf8")
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    for (const line of lines) {
      // The pretty logger ("[12:00:00.000] ERROR (#12): ...") or logfmt ("level=ERROR").
      if (/^\[[^\]]*\] (ERROR|FATAL) |level=(ERROR|FATAL)\b/.test(line)) {
        errorLines++
        if (errorSamples.length < 3) errorSamples.push(line.slice(0, 300))
      }
    }
  })
  const stop = () =>
    new Promise<void>((resolve) => {
      if (server.exitCode !== null || server.signalCode !== null) return resolve()
      server.once("exit", () => resolve())
      server.kill("SIGINT")
      setTimeout(() => server.kill("SIGKILL"), 30_000).unref()
    })
  process.once("SIGINT", () => void stop().then(() => process.exit(130)))

  try {
    const call = async <A = unknown>(method: string, route: string, token?: string, body?: unknown) => {
      const send = () =>
        fetch(`${base}${route}`, {
          method,
          headers: {
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      // A GET on a kept-alive connection the server is closing at that instant (ECONNRESET) is simply sent again.
      const response = await send().catch((error) => {
        if (method !== "GET") throw error
        return sleep(500).then(send)
      })
      const text = await response.text()
      if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 200)}`)
      return (text === "" ? undefined : JSON.parse(text)) as A
    }
    for (let attempt = 0; ; attempt++) {
      if (server.exitCode !== null) throw new Error("the server exited during boot")
      try {
        await call("GET", "/healthz")
        break
      } catch (error) {
        if (attempt > 480) throw error
        await sleep(250)
      }
    }
    const credentials = { username: USERNAME, password: PASSWORD }
    const { token } = reused
      ? await call<{ token: string }>("POST", "/api/auth/login", undefined, credentials)
      : await call<{ token: string }>("POST", "/api/auth/register", undefined, credentials)

    // The boot scan of a new data directory: wait for one that started after this boot. A reused data directory
    // has completed a scan already, so the server starts none: go on when none has started 3 s after boot.
    const scanStarted = performance.now()
    let status: ScanStatusJson
    for (;;) {
      status = await call<ScanStatusJson>("GET", "/api/admin/scan", token)
      const sinceBoot = status.started_at !== null && Date.parse(status.started_at) >= bootedAt - 1000
      if (status.state !== "running" && status.finished_at !== null && sinceBoot) break
      if (status.state !== "running" && performance.now() - scanStarted > (reused ? 3_000 : 60_000)) break
      await sleep(1000)
    }
    log(
      `scan: ${status.files_seen} files, ${status.added} added, ${status.errors} errors, waited ${((performance.now() - scanStarted) / 1000).toFixed(1)} s${reused ? " (reused data directory: the last scan's figures)" : ""}`,
    )

    // Placeholders: an album with a cover, its artist and first track, the most common genre.
    const genres = await call<Array<{ genre: string; track_count: number }>>("GET", "/api/library/genres", token)
    const genre =
      genres.find((row) => row.genre === "Rock")?.genre ??
      [...genres].sort((a, b) => b.track_count - a.track_count)[0]?.genre ??
      "Rock"
    const albums = await call<{ items: Array<{ id: string; artist_id: string; cover_url: string | null }> }>(
      "GET",
      "/api/library/albums?limit=50&sort=title",
      token,
    )
    const album = albums.items.find((item) => item.cover_url !== null) ?? albums.items[0]
    if (album === undefined) throw new Error("the library has no albums")
    const detail = await call<{ tracks: Array<{ id: string; title: string; artists: Array<{ name: string }> }> }>(
      "GET",
      `/api/albums/${album.id}`,
      token,
    )
    // Search words from that track as someone would type them: an artist's word and a title's, and a typo of the
    // longest word (two letters swapped, so that nothing matches and the closest items are the answer).
    const wordsOf = (text: string) => text.split(/[^\p{L}\p{N}']+/u).filter((word) => word !== "")
    const first = detail.tracks[0]
    const artistWords = wordsOf(first?.artists[0]?.name ?? "")
    const titleWords = wordsOf(first?.title ?? "")
    const artistTitle = `${artistWords[0] ?? "the"} ${titleWords[0] ?? "love"}`.toLowerCase()
    const longest = [...artistWords, ...titleWords].reduce((a, b) => (b.length > a.length ? b : a), "")
    const typed = longest.length >= 5 ? longest : "beyonce"
    const typo = `${typed.slice(0, 1)}${typed.slice(2, 3)}${typed.slice(1, 2)}${typed.slice(3)}`.toLowerCase()
    log(`search words: artist+title "${artistTitle}", typo "${typo}" (of "${typed}")`)
    // An OpenSubsonic API key for the `/rest` routes ({apiKey}); empty on a server without the route.
    const apiKey = await call<{ key: string }>("POST", "/api/me/api-keys", token, { name: "bench" }).then(
      (created) => created.key,
      () => "",
    )
    // The library's largest artists (issue 31): the one with most albums of their own, the one credited on the most
    // tracks, and Various Artists: their pages walk the most credits.
    const everyArtist: Array<{ id: string; name: string; album_count: number; track_count: number }> = []
    for (let offset = 0; ; offset += 500) {
      const page = await call<{ items: typeof everyArtist; total: number }>(
        "GET",
        `/api/library/artists?limit=500&offset=${offset}`,
        token,
      )
      everyArtist.push(...page.items)
      if (page.items.length === 0 || everyArtist.length >= page.total) break
    }
    const largest = (key: "album_count" | "track_count", skip?: string) =>
      everyArtist.filter((artist) => artist.id !== skip).reduce((a, b) => (b[key] > a[key] ? b : a), everyArtist[0]!)
    const various = everyArtist.find((artist) => artist.name === "Various Artists") ?? everyArtist[0]!
    const mostAlbums = largest("album_count", various.id)
    const mostTracks = largest("track_count", various.id)
    log(
      `largest artists: ${mostAlbums.name} (${mostAlbums.album_count} albums), ${mostTracks.name} (${mostTracks.track_count} tracks), ${various.name} (${various.album_count} albums)`,
    )
    const placeholders: Record<string, string> = {
      mostAlbumsArtistId: mostAlbums.id,
      mostTracksArtistId: mostTracks.id,
      variousArtistsId: various.id,
      apiKey,
      albumId: album.id,
      artistId: album.artist_id,
      trackId: first?.id ?? "",
      genre: encodeURIComponent(genre),
      artistTitle: encodeURIComponent(artistTitle),
      typo: encodeURIComponent(typo),
      username: USERNAME,
      password: PASSWORD,
      token,
    }

    // Every authenticated request touches its session's row: with one session, concurrent requests queue on its
    // lock; `--sessions N` logs in N times and rotates them, as N devices would.
    const sessions = Math.max(1, Number(values.sessions))
    const tokens = [token]
    while (tokens.length < sessions) {
      tokens.push((await call<{ token: string }>("POST", "/api/auth/login", undefined, credentials)).token)
    }
    const script = path.join(home, "report.lua")
    fs.writeFileSync(script, WRK_SCRIPT)
    const rotating = path.join(home, "report-sessions.lua")
    fs.writeFileSync(rotating, rotationScript(tokens, false))
    // `{word}` routes: each wrk thread walks its own half of the words, so no answer is asked for twice within
    // any cache's reach (a search never repeats: what a cold query costs).
    const rotatingWords = path.join(home, "report-words.lua")
    fs.writeFileSync(rotatingWords, rotationScript(tokens, true))
    const pid = server.pid!
    const idleRssMb = statusMb(pid, "VmRSS")
    log(
      `server pid ${pid}, ${idleRssMb} MB RSS before the load; wrk ${seconds} s per route after ${warmup} s warm-up; ${sessions} session${sessions === 1 ? "" : "s"}`,
    )
    // Everything shares the machine's cores with wrk and the server: a busy machine makes every figure worse.
    const loadBefore = os.loadavg()[0]!
    if (loadBefore > os.availableParallelism()) {
      log(`warning: load average ${loadBefore.toFixed(1)} on ${os.availableParallelism()} cores: other work is running`)
    }

    interface Row extends WrkResult {
      readonly route: string
      readonly path: string
      readonly connections: number
      readonly status: number
      readonly rssMb: number
      readonly errorLogLines: number
    }
    const rows: Array<Row> = []
    for (const route of [HEALTHZ, ...selected]) {
      const routePath = fillPlaceholders(route.path, { ...placeholders, word: WORD_SLOT })
      const headers: Record<string, string> = {}
      const bearer = route.auth !== "none"
      // The check request carries the first token; wrk's runs rotate them (the Lua script sets the header).
      const runScript = route.path.includes("{word}") ? rotatingWords : bearer && sessions > 1 ? rotating : script
      if (bearer && sessions === 1) headers.Authorization = `Bearer ${token}`
      for (const [name, value] of Object.entries(route.headers ?? {}))
        headers[name] = fillPlaceholders(value, placeholders)
      // One request first: a route that does not answer 2xx is reported, not measured as if it were fast.
      const check = await fetch(`${base}${routePath}`, {
        headers: bearer ? { ...headers, Authorization: `Bearer ${token}` } : headers,
      })
      await check.arrayBuffer()
      for (const connections of levels) {
        if (warmup > 0) await wrk(`${base}${routePath}`, connections, warmup, headers, runScript)
        const errorsBefore = errorLines
        let rssMb = statusMb(pid, "VmRSS")
        const sampler = setInterval(() => {
          rssMb = Math.max(rssMb, statusMb(pid, "VmRSS"))
        }, 250)
        const result = await wrk(`${base}${routePath}`, connections, seconds, headers, runScript)
        clearInterval(sampler)
        rssMb = Math.max(rssMb, statusMb(pid, "VmRSS"))
        rows.push({
          ...result,
          route: route.name,
          path: routePath,
          connections,
          status: check.status,
          rssMb,
          errorLogLines: errorLines - errorsBefore,
        })
        log(
          `  ${route.name.padEnd(16)} c=${String(connections).padEnd(3)} p50 ${result.p50Ms.toFixed(2).padStart(8)} ms  p99 ${result.p99Ms.toFixed(2).padStart(8)} ms  ${result.rps.toFixed(0).padStart(6)} req/s  errors ${result.httpErrors}+${result.socketErrors}${check.status >= 300 ? `  (check answered ${check.status})` : ""}`,
        )
      }
    }

    // The table: each route's figures in ms and as a ratio to /healthz at the same connection count.
    const healthz = new Map(rows.filter((row) => row.route === HEALTHZ.name).map((row) => [row.connections, row]))
    const ratio = (value: number, of: number | undefined) =>
      of === undefined || of === 0 ? "-" : `${(value / of).toFixed(1)}×`
    log("")
    log(
      `${status.files_seen} tracks. ms (× /healthz at the same connections, same run); errors = HTTP ≥400 + socket errors; RSS = the server's peak during the route`,
    )
    const columns = levels.flatMap((c) => [`c=${c} p50`, `c=${c} p99`, `c=${c} req/s`])
    log(`| route | ${columns.join(" | ")} | errors | RSS MB |`)
    log(`|---|${columns.map(() => "---|").join("")}---|---|`)
    for (const route of [HEALTHZ, ...selected]) {
      const mine = rows.filter((row) => row.route === route.name)
      const cells = levels.flatMap((connections) => {
        const row = mine.find((candidate) => candidate.connections === connections)
        if (row === undefined) return ["", "", ""]
        const base = healthz.get(connections)
        return [
          `${row.p50Ms.toFixed(2)} (${ratio(row.p50Ms, base?.p50Ms)})`,
          `${row.p99Ms.toFixed(2)} (${ratio(row.p99Ms, base?.p99Ms)})`,
          row.rps.toFixed(0),
        ]
      })
      const errors = mine.reduce((sum, row) => sum + row.httpErrors + row.socketErrors, 0)
      const rss = Math.max(0, ...mine.map((row) => row.rssMb))
      log(`| ${route.name} | ${cells.join(" | ")} | ${errors} | ${rss} |`)
    }
    const loadAfter = os.loadavg()[0]!
    log(
      `load average (1 min): ${loadBefore.toFixed(1)} before the load, ${loadAfter.toFixed(1)} after, on ${os.availableParallelism()} cores`,
    )
    const peakRssMb = statusMb(pid, "VmHWM")
    log(`server RSS: ${idleRssMb} MB before the load, ${statusMb(pid, "VmRSS")} MB after, ${peakRssMb} MB peak (VmHWM)`)
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
            p99VsHealthz:
              (healthz.get(connections)?.p99Ms ?? 0) === 0 ? null : figures.p99Ms / healthz.get(connections)!.p99Ms,
          })),
        }),
      )
    }
  } finally {
    await stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
