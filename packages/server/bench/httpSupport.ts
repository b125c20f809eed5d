/**
 * What `bench:http` and `bench:scale` share: the built server started as the README does (`tonearm serve`, its
 * shebang's node flags and environment, embedded PostgreSQL in its data directory) in a child process, the JSON
 * calls the benches make to it, the route placeholders read from the scanned library, and wrk's runs of the routes
 * next to a `/healthz` baseline with their table.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { type BenchRoute, fillPlaceholders, HEALTHZ } from "./httpRoutes.js"

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const USERNAME = "bench"
export const PASSWORD = "bench-password-1"

/** wrk is the load generator; the benches install nothing themselves. */
export const checkWrk = (fail: (message: string) => never) => {
  const probe = spawnSync("wrk", ["--version"], { encoding: "utf8" })
  if (probe.error !== undefined) {
    fail("wrk is not installed. Debian/Ubuntu: sudo apt-get install -y wrk; macOS: brew install wrk")
  }
}

/** The environment and node flags of the bin's `#!/usr/bin/env -S VAR=value node --flag` line. */
export const shebangOf = (bin: string): { readonly env: Record<string, string>; readonly flags: Array<string> } => {
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

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on("error", reject)
  })

/** A `/proc/<pid>/status` field in MB (VmRSS, VmHWM), or 0 once the process is gone. */
export const statusMb = (pid: number, field: string): number => {
  try {
    const match = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))
    return match === null ? 0 : Math.round(Number(match[1]) / 1024)
  } catch {
    return 0
  }
}

/** One library's scan in `GET /api/admin/scan`. */
export interface LibraryScanJson {
  readonly state: string
  readonly finished_at: string | null
  readonly files_seen: number
  readonly added: number
  readonly errors: number
}

export interface ScanStatusJson {
  readonly libraries?: ReadonlyArray<LibraryScanJson>
  readonly state: string
  readonly started_at: string | null
  readonly finished_at: string | null
  readonly files_seen: number
  readonly added: number
  readonly updated?: number
  readonly removed?: number
  readonly errors: number
}

/** A JSON call to the server: throws on a non-2xx answer with its status and the start of its body. */
export type Call = <A = unknown>(method: string, route: string, token?: string, body?: unknown) => Promise<A>

export interface BenchServer {
  readonly base: string
  readonly pid: number
  readonly bootedAt: number
  readonly call: Call
  /** ERROR lines the server has written so far, with up to three samples. */
  readonly errors: { lines: number; readonly samples: Array<string> }
  readonly stop: () => Promise<void>
  readonly process: ChildProcess
}

/**
 * `bin serve` on a free loopback port with the shebang's flags and environment, `TONEARM_LOG_LEVEL=warning`, the
 * given data directory and library folders; answers once `/healthz` does. Its log is passed through to stderr.
 */
export const startServer = async (options: {
  readonly bin: string
  readonly dataDir: string
  readonly folders: ReadonlyArray<string>
  readonly env?: Record<string, string>
}): Promise<BenchServer> => {
  const shebang = shebangOf(options.bin)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...shebang.env,
    TONEARM_LOG_LEVEL: "warning",
    ...options.env,
  }
  delete env.TONEARM_DATABASE_URL
  const port = await freePort()
  const bootedAt = Date.now()
  const base = `http://127.0.0.1:${port}`
  const server: ChildProcess = spawn(
    process.execPath,
    [
      ...shebang.flags,
      options.bin,
      "serve",
      ...["--port", String(port), "--host", "127.0.0.1"],
      ...["--data-dir", options.dataDir],
      ...options.folders.flatMap((folder) => ["--library", folder]),
    ],
    { env, stdio: ["ignore", "inherit", "pipe"] },
  )
  // The server's log: passed through, and every ERROR counted (issue 15: client disconnects logged as errors).
  const errors = { lines: 0, samples: [] as Array<string> }
  let pending = ""
  server.stderr?.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk)
    pending += chunk.toString("utf8")
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    for (const line of lines) {
      // The pretty logger ("[12:00:00.000] ERROR (#12): ...") or logfmt ("level=ERROR").
      if (/^\[[^\]]*\] (ERROR|FATAL) |level=(ERROR|FATAL)\b/.test(line)) {
        errors.lines++
        if (errors.samples.length < 3) errors.samples.push(line.slice(0, 300))
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

  const call: Call = async <A = unknown>(method: string, route: string, token?: string, body?: unknown) => {
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
  try {
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
  } catch (error) {
    await stop()
    throw error
  }
  return { base, pid: server.pid!, bootedAt, call, errors, stop, process: server }
}

/**
 * The route placeholders (`httpRoutes.ts`) from the scanned library: an album with a cover, its artist and first
 * track, the most common genre, search words from that track, an API key, the largest artists.
 */
export const routePlaceholders = async (
  call: Call,
  token: string,
  log: (line: string) => void,
): Promise<Record<string, string>> => {
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
  return {
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
}

export interface WrkResult {
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

export interface RouteRow extends WrkResult {
  readonly route: string
  readonly path: string
  readonly connections: number
  readonly status: number
  readonly rssMb: number
  readonly errorLogLines: number
}

/**
 * `/healthz` and then every route: one check request, then wrk for `warmup` seconds (discarded) and `seconds`
 * (measured) at each connection level, the server's RSS sampled every 250 ms. `tokens`: the sessions the bearer
 * routes rotate over (one: every request carries the first). Scripts are written into `workDir`.
 */
export const runRoutes = async (options: {
  readonly server: BenchServer
  readonly routes: ReadonlyArray<BenchRoute>
  readonly placeholders: Readonly<Record<string, string>>
  readonly tokens: ReadonlyArray<string>
  readonly levels: ReadonlyArray<number>
  readonly seconds: number
  readonly warmup: number
  readonly workDir: string
  readonly log: (line: string) => void
}): Promise<Array<RouteRow>> => {
  const { server, placeholders, tokens, seconds, warmup, log } = options
  const token = tokens[0]!
  const script = path.join(options.workDir, "report.lua")
  fs.writeFileSync(script, WRK_SCRIPT)
  const rotating = path.join(options.workDir, "report-sessions.lua")
  fs.writeFileSync(rotating, rotationScript(tokens, false))
  // `{word}` routes: each wrk thread walks its own half of the words, so no answer is asked for twice within
  // any cache's reach (a search never repeats: what a cold query costs).
  const rotatingWords = path.join(options.workDir, "report-words.lua")
  fs.writeFileSync(rotatingWords, rotationScript(tokens, true))
  const rows: Array<RouteRow> = []
  for (const route of [HEALTHZ, ...options.routes]) {
    const routePath = fillPlaceholders(route.path, { ...placeholders, word: WORD_SLOT })
    const headers: Record<string, string> = {}
    const bearer = route.auth !== "none"
    // The check request carries the first token; wrk's runs rotate them (the Lua script sets the header).
    const runScript = route.path.includes("{word}") ? rotatingWords : bearer && tokens.length > 1 ? rotating : script
    if (bearer && tokens.length === 1) headers.Authorization = `Bearer ${token}`
    for (const [name, value] of Object.entries(route.headers ?? {}))
      headers[name] = fillPlaceholders(value, placeholders)
    // One request first: a route that does not answer 2xx is reported, not measured as if it were fast.
    const check = await fetch(`${server.base}${routePath}`, {
      headers: bearer ? { ...headers, Authorization: `Bearer ${token}` } : headers,
    })
    await check.arrayBuffer()
    for (const connections of options.levels) {
      if (warmup > 0) await wrk(`${server.base}${routePath}`, connections, warmup, headers, runScript)
      const errorsBefore = server.errors.lines
      let rssMb = statusMb(server.pid, "VmRSS")
      const sampler = setInterval(() => {
        rssMb = Math.max(rssMb, statusMb(server.pid, "VmRSS"))
      }, 250)
      const result = await wrk(`${server.base}${routePath}`, connections, seconds, headers, runScript)
      clearInterval(sampler)
      rssMb = Math.max(rssMb, statusMb(server.pid, "VmRSS"))
      rows.push({
        ...result,
        route: route.name,
        path: routePath,
        connections,
        status: check.status,
        rssMb,
        errorLogLines: server.errors.lines - errorsBefore,
      })
      log(
        `  ${route.name.padEnd(16)} c=${String(connections).padEnd(3)} p50 ${result.p50Ms.toFixed(2).padStart(8)} ms  p99 ${result.p99Ms.toFixed(2).padStart(8)} ms  ${result.rps.toFixed(0).padStart(6)} req/s  errors ${result.httpErrors}+${result.socketErrors}${check.status >= 300 ? `  (check answered ${check.status})` : ""}`,
      )
    }
  }
  return rows
}

/** The p99 of a row against `/healthz`'s at the same connection count, or null without one. */
export const p99VsHealthz = (rows: ReadonlyArray<RouteRow>, row: RouteRow): number | null => {
  const base = rows.find((candidate) => candidate.route === HEALTHZ.name && candidate.connections === row.connections)
  return base === undefined || base.p99Ms === 0 ? null : row.p99Ms / base.p99Ms
}

/** The table: each route's figures in ms and as a ratio to /healthz at the same connection count. */
export const logRouteTable = (
  rows: ReadonlyArray<RouteRow>,
  routes: ReadonlyArray<BenchRoute>,
  levels: ReadonlyArray<number>,
  log: (line: string) => void,
) => {
  const healthz = new Map(rows.filter((row) => row.route === HEALTHZ.name).map((row) => [row.connections, row]))
  const ratio = (value: number, of: number | undefined) =>
    of === undefined || of === 0 ? "-" : `${(value / of).toFixed(1)}×`
  const columns = levels.flatMap((c) => [`c=${c} p50`, `c=${c} p99`, `c=${c} req/s`])
  log(`| route | ${columns.join(" | ")} | errors | RSS MB |`)
  log(`|---|${columns.map(() => "---|").join("")}---|---|`)
  for (const route of [HEALTHZ, ...routes]) {
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
}

/** The 1-minute load average with the core count, for every figure a bench prints on a shared machine. */
export const loadNow = () => `load ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`
