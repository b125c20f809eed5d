import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { subscribeEvents } from "@tonearm/client-sdk"
import pg from "pg"
import { afterAll, describe, expect, inject, it } from "vitest"
import { databaseUrl } from "../support/adminDatabase.js"
import { fixtureLibrary } from "../support/library.js"

/**
 * Issue 30 item 2, the scale-out test: one PostgreSQL, two `tonearm serve` replicas (the built CLI, as installed)
 * behind HAProxy, and a PgBouncer variant in transaction mode. Browse, play events, likes, playlist edits, event
 * streams and scans go through the proxy while the replica running every background duty is SIGKILLed, then
 * restarted. Checked: no request fails but those in flight on the killed replica; every event stream reconnects
 * within its retry; every duty moves to the survivor within the lease's bound and never runs on two replicas at
 * once; every acknowledged write is there at the end. The log (stdout) tells the story with its figures.
 */

const root = path.resolve(import.meta.dirname, "../../../..")
const bin = path.join(root, "packages/cli/dist/bin.js")

/** Leases short enough for a test: a dead holder's duties move within TTL + TTL / 4. */
const LEASE_TTL_MS = 2_000
const TAKEOVER_BOUND_MS = LEASE_TTL_MS + LEASE_TTL_MS / 4
/** Scheduling slack on a loaded 2-core machine (processes, a proxy and PostgreSQL share it). */
const SLACK_MS = 2_500
/** The event-stream clients' reconnect delay (the SDK's `retryMs`). */
const SSE_RETRY_MS = 500
/** The duties every replica offers to run; each must be held by exactly one live replica. */
const DUTIES = [
  "diagnostics-retention",
  "enrichment",
  "library-watcher",
  "request-reconciler",
  "scrobble-sender:lastfm",
  "scrobble-sender:listenbrainz",
]

const started = performance.now()
const log = (line: string) => console.info(`[scale-out +${((performance.now() - started) / 1000).toFixed(1)}s] ${line}`)

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const until = async <A>(what: string, probe: () => Promise<A | undefined>, timeoutMs: number): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await sleep(100)
  }
}

/** Which programs the test needs; CI installs them (`.ci/run`). */
const have = (program: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const cleanups: Array<() => Promise<void> | void> = []
/** Runs (newest first) and forgets the clean-ups registered since `mark`. */
const cleanUpSince = async (mark: number) => {
  for (const cleanup of cleanups.splice(mark).reverse()) await Promise.resolve(cleanup()).catch(() => undefined)
}
afterAll(() => cleanUpSince(0))

/** A child process whose output lines are kept (with the time they came) and which is killed when the test ends. */
const child = (name: string, command: string, args: ReadonlyArray<string>, options: Parameters<typeof spawn>[2]) => {
  const lines: Array<{ at: number; text: string }> = []
  const spawned: ChildProcess = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] })
  const collect = (chunk: Buffer) => {
    for (const text of chunk.toString().split("\n")) if (text.trim() !== "") lines.push({ at: Date.now(), text })
  }
  spawned.stdout!.on("data", collect)
  spawned.stderr!.on("data", collect)
  const exited = new Promise<void>((resolve) => spawned.once("exit", () => resolve()))
  const gone = () => spawned.exitCode !== null || spawned.signalCode !== null
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (gone()) return
    spawned.kill(signal)
    await Promise.race([exited, sleep(15_000)])
    if (!gone()) spawned.kill("SIGKILL")
  }
  cleanups.push(() => stop("SIGKILL"))
  return { name, process: spawned, lines, exited, stop }
}

interface Replica {
  readonly name: string
  readonly port: number
  pid: number
  lines: Array<{ at: number; text: string }>
  kill: () => Promise<void>
  stop: () => Promise<void>
}

interface Setup {
  /** The URL the replicas' pool uses (PostgreSQL, or PgBouncer in front of it). */
  readonly poolUrl: string
  /** The extra environment of the replicas (the pooler's settings). */
  readonly env: Readonly<Record<string, string>>
}

const replicaEnv = (extra: Readonly<Record<string, string>>) => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith("TONEARM_") || name.startsWith("SERVICE_")) delete env[name]
  return { ...env, ...extra }
}

/** The secrets every replica must share (stream URLs, Subsonic app passwords), copied as an operator would. */
const SECRETS = ["stream_secret", "subsonic_key"]

/**
 * `tonearm serve` on `port` with a data directory of its own (`<dir>/<name>`), holding the first replica's secrets
 * once it has made them, and the library shared with the other replica.
 */
const startReplica = async (
  name: string,
  port: number,
  shared: { readonly dir: string; readonly library: string; readonly stateDir: string; readonly first: string },
  setup: Setup,
): Promise<Replica> => {
  const dataDir = path.join(shared.dir, `data-${name}`)
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 })
  const firstDir = path.join(shared.dir, `data-${shared.first}`)
  if (firstDir !== dataDir)
    for (const secret of SECRETS)
      if (!fs.existsSync(path.join(dataDir, secret)))
        fs.copyFileSync(path.join(firstDir, secret), path.join(dataDir, secret))
  const server = child(
    name,
    process.execPath,
    [bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir],
    {
      cwd: root,
      env: replicaEnv({
        TONEARM_DATABASE_URL: setup.poolUrl,
        TONEARM_LIBRARY: shared.library,
        TONEARM_STATE_DIR: shared.stateDir,
        TONEARM_CONFIG_DIR: shared.stateDir,
        TONEARM_LEASE_TTL_MS: String(LEASE_TTL_MS),
        TONEARM_WATCH_DEBOUNCE_MS: "300",
        TONEARM_TRUSTED_PROXIES: "127.0.0.1",
        TONEARM_LOG_LEVEL: "info",
        ...setup.env,
      }),
    },
  )
  const outcome = await until(
    `replica ${name} ready`,
    async () => {
      if (server.process.exitCode !== null) return "exited"
      const response = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) })
      return response.ok ? "ready" : undefined
    },
    60_000,
  ).catch((error) => String(error))
  if (outcome !== "ready")
    throw new Error(`replica ${name}: ${outcome}\n${server.lines.map((line) => line.text).join("\n")}`)
  return {
    name,
    port,
    pid: server.process.pid!,
    lines: server.lines,
    kill: async () => {
      server.process.kill("SIGKILL")
      await server.exited
    },
    stop: () => server.stop(),
  }
}

/** HAProxy in front of both replicas: health checks on /readyz, a refused connection retried on the other. */
const startHaproxy = async (dir: string, ports: readonly [number, number]) => {
  const port = await freePort()
  const config = path.join(dir, "haproxy.cfg")
  fs.writeFileSync(
    config,
    [
      "global",
      "    maxconn 512",
      "defaults",
      "    mode http",
      "    timeout connect 1s",
      "    timeout client 60s",
      "    timeout server 60s",
      "    timeout tunnel 60s",
      // A connection refused (the replica is gone) is tried again on the other replica; a request already sent is
      // never resent (a play event must not count twice).
      "    retries 3",
      "    option redispatch 1",
      "frontend tonearm",
      `    bind 127.0.0.1:${port}`,
      "    default_backend replicas",
      "backend replicas",
      "    balance roundrobin",
      "    option httpchk GET /readyz",
      "    http-check expect status 200",
      // Out after two failed checks (a busy replica's one slow answer is not an outage), back after one.
      "    timeout check 2s",
      "    default-server inter 500ms fall 2 rise 1",
      `    server a 127.0.0.1:${ports[0]} check`,
      `    server b 127.0.0.1:${ports[1]} check`,
      "",
    ].join("\n"),
  )
  execFileSync("haproxy", ["-c", "-q", "-f", config])
  const proxy = child("haproxy", "haproxy", ["-db", "-f", config], {})
  const base = `http://127.0.0.1:${port}`
  await until("haproxy", async () => ((await fetch(`${base}/healthz`)).ok ? true : undefined), 10_000)
  return { base, proxy }
}

/** PgBouncer in transaction mode in front of the database (it refuses to run as root: it runs as `postgres`). */
const startPgbouncer = async (dir: string, adminUrl: string) => {
  const port = await freePort()
  const target = new URL(adminUrl)
  // As root, PgBouncer must be given another user (the embedded PostgreSQL's `postgres`); otherwise it runs as us.
  const account = process.getuid?.() === 0 ? "postgres" : undefined
  const ids =
    account === undefined
      ? {}
      : {
          uid: Number(execFileSync("id", ["-u", account]).toString().trim()),
          gid: Number(execFileSync("id", ["-g", account]).toString().trim()),
        }
  const config = path.join(dir, "pgbouncer.ini")
  const password = decodeURIComponent(target.password)
  fs.writeFileSync(
    config,
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || "5432"} user=${decodeURIComponent(target.username) || "postgres"}` +
        (password === "" ? "" : ` password=${password}`),
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = any",
      "pool_mode = transaction",
      "max_client_conn = 500",
      "default_pool_size = 30",
      "ignore_startup_parameters = extra_float_digits,options",
      "",
    ].join("\n"),
    { mode: 0o644 },
  )
  const bouncer = child("pgbouncer", "pgbouncer", [config], { ...ids, cwd: dir })
  await until(
    "pgbouncer",
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = net.connect(port, "127.0.0.1", () => {
          socket.end()
          resolve(true)
        })
        socket.on("error", () => resolve(undefined))
      }),
    10_000,
  )
  return { port, bouncer }
}

/** One request of the workload, as the client saw it. */
interface Outcome {
  readonly kind: string
  readonly start: number
  readonly end: number
  readonly ok: boolean
  readonly detail: string
}

const scenario = async (variant: "haproxy" | "pgbouncer") => {
  const adminUrl = inject("adminDatabaseUrl")
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tonearm-scale-${variant}-`))
  fs.chmodSync(dir, 0o755)
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
  const database = `tonearm_scale_${randomUUID().replaceAll("-", "")}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${database}`)
  await admin.end()
  cleanups.push(async () => {
    const dropper = new pg.Client({ connectionString: adminUrl })
    await dropper.connect()
    await dropper.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await dropper.end()
  })
  const directUrl = databaseUrl(adminUrl, database)
  let setup: Setup = { poolUrl: directUrl, env: {} }
  if (variant === "pgbouncer") {
    const { port } = await startPgbouncer(dir, adminUrl)
    const pooled = new URL(directUrl)
    pooled.port = String(port)
    pooled.hostname = "127.0.0.1"
    // Statements unprepared (PgBouncer 1.18 keeps no prepared statement across transactions); LISTEN straight to
    // PostgreSQL (a transaction-mode pool hands the listening session's connection to others).
    setup = {
      poolUrl: pooled.toString(),
      env: { TONEARM_DB_PREPARE: "false", TONEARM_DATABASE_LISTEN_URL: directUrl },
    }
    log(`pgbouncer (transaction mode) on ${port} in front of ${database}`)
  }
  const db = new pg.Client({ connectionString: directUrl })
  await db.connect()
  cleanups.push(() => db.end())

  // The library both replicas index (a shared folder); each replica's data directory holds the same secrets.
  const { root: library } = await fixtureLibrary()
  fs.chmodSync(library, 0o755)
  cleanups.push(() => fs.rmSync(library, { recursive: true, force: true }))
  const shared = { dir, library, stateDir: path.join(dir, "state"), first: "a" }

  const ports = [await freePort(), await freePort()] as const
  // One after the other: the first boots the schema and takes every duty; the second finds them held.
  const replicas: Record<"a" | "b", Replica> = {
    a: await startReplica("a", ports[0], shared, setup),
    b: await startReplica("b", ports[1], shared, setup),
  }
  log(`replicas a (pid ${replicas.a.pid}, :${ports[0]}) and b (pid ${replicas.b.pid}, :${ports[1]}) ready`)
  const { base, proxy } = await startHaproxy(dir, ports)
  log(`haproxy at ${base}`)

  const call = async (method: string, route: string, body?: unknown, token?: string) => {
    const response = await fetch(`${base}${route}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 200)}`)
    return text === "" ? undefined : (JSON.parse(text) as unknown)
  }
  const { token: adminToken } = (await call("POST", "/api/auth/register", {
    username: "ops",
    password: "operator pass",
  })) as { token: string }
  await call(
    "POST",
    "/api/admin/users",
    { username: "listener", password: "listener pass", is_admin: false },
    adminToken,
  )
  const { token } = (await call("POST", "/api/auth/login", { username: "listener", password: "listener pass" })) as {
    token: string
  }

  // The first scan (the boot's, or this one), through the proxy.
  await call("POST", "/api/admin/scan", {}, adminToken)
  const scanned = await until(
    "the first scan",
    async () => {
      const status = (await call("GET", "/api/admin/scan", undefined, adminToken)) as { state: string }
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM tracks")
      return status.state === "idle" && rows[0]!.n > 0 ? rows[0]!.n : undefined
    },
    30_000,
  )
  const albums = (
    (await call("GET", "/api/library/albums?limit=50", undefined, token)) as { items: Array<{ id: string }> }
  ).items
  const trackIds: Array<string> = []
  for (const album of albums) {
    const detail = (await call("GET", `/api/albums/${album.id}`, undefined, token)) as { tracks: Array<{ id: string }> }
    trackIds.push(...detail.tracks.map((track) => track.id))
  }
  log(`scanned ${scanned} tracks in ${albums.length} albums through the proxy`)

  /** The duty leases as stored: holder pid and whether live. */
  const leases = async () => {
    const { rows } = await db.query<{ name: string; holder: string; generation: string; live: boolean }>(
      "SELECT name, holder, generation, expires_at > clock_timestamp() AS live FROM leases ORDER BY name",
    )
    return new Map(rows.map((row) => [row.name, { ...row, pid: Number(row.holder.split(":").at(-2)) }]))
  }
  const holderOf = (pid: number) => (pid === replicas.a.pid ? "a" : pid === replicas.b.pid ? "b" : `pid ${pid}`)

  // Every duty held by one live replica before the kill.
  const before = await until(
    "every duty held",
    async () => {
      const all = await leases()
      return DUTIES.every((duty) => all.get(duty)?.live === true) ? all : undefined
    },
    10_000,
  )
  for (const duty of DUTIES) log(`duty ${duty}: held by replica ${holderOf(before.get(duty)!.pid)}`)
  // Replica a booted first and took every duty; b asks every TTL / 4 and finds them held.
  expect(new Set(DUTIES.map((duty) => holderOf(before.get(duty)!.pid)))).toEqual(new Set(["a"]))
  const victimName = holderOf(before.get("library-watcher")!.pid) as "a" | "b"
  const survivorName = victimName === "a" ? "b" : "a"

  // --- event streams through the proxy, reconnecting after a drop ---
  const streams = Array.from({ length: 4 }, (_, index) => {
    const stream = {
      index,
      opens: [] as Array<number>,
      drops: [] as Array<number>,
      events: [] as Array<{ kind: string; data: unknown }>,
      stop: () => {},
    }
    stream.stop = subscribeEvents({
      baseUrl: base,
      token,
      retryMs: SSE_RETRY_MS,
      onOpen: () => stream.opens.push(Date.now()),
      onError: () => stream.drops.push(Date.now()),
      onEvent: (event) => stream.events.push({ kind: event.kind, data: event.data }),
    })
    return stream
  })
  cleanups.push(() => {
    for (const stream of streams) stream.stop()
  })
  await until("event streams open", async () => (streams.every((s) => s.opens.length > 0) ? true : undefined), 10_000)

  // --- the workload: four clients browsing, playing, liking and editing playlists until told to stop ---
  const outcomes: Array<Outcome> = []
  const plays: Array<string> = []
  const likes = new Set<string>()
  const playlistAdds = new Map<string, { acked: number; unsure: number }>()
  let running = true
  const timed = async (kind: string, action: () => Promise<string | void>) => {
    const start = Date.now()
    try {
      const detail = await action()
      outcomes.push({ kind, start, end: Date.now(), ok: true, detail: detail ?? "" })
    } catch (error) {
      outcomes.push({ kind, start, end: Date.now(), ok: false, detail: String(error) })
    }
  }
  const clientLoop = async (client: number) => {
    const playlist = (await call("POST", "/api/playlists", { name: `client ${client}` }, token).catch(() =>
      call("POST", "/api/playlists", { name: `client ${client}` }, token),
    )) as { id: string }
    playlistAdds.set(playlist.id, { acked: 0, unsure: 0 })
    let step = 0
    while (running) {
      const track = trackIds[(client * 7 + step) % trackIds.length]!
      switch (step % 5) {
        case 0:
          await timed("browse", async () => {
            await call("GET", `/api/library/albums?limit=20&offset=${step % 3}`, undefined, token)
          })
          break
        case 1:
          await timed("play", async () => {
            const created = (await call(
              "POST",
              "/api/events",
              { type: "play_started", track_id: track, client_id: `scale-${client}` },
              token,
            )) as { play_event_id: string }
            plays.push(created.play_event_id)
            await call(
              "POST",
              "/api/events",
              { type: "play_ended", play_event_id: created.play_event_id, duration_played_ms: 1000 },
              token,
            )
          })
          break
        case 2:
          await timed("like", async () => {
            await call("PUT", `/api/likes/tracks/${track}`, undefined, token)
            likes.add(track)
          })
          break
        case 3: {
          const adds = playlistAdds.get(playlist.id)!
          const start = Date.now()
          try {
            await call("POST", `/api/playlists/${playlist.id}/tracks`, { track_ids: [track] }, token)
            adds.acked++
            outcomes.push({ kind: "playlist", start, end: Date.now(), ok: true, detail: "" })
          } catch (error) {
            adds.unsure++
            outcomes.push({ kind: "playlist", start, end: Date.now(), ok: false, detail: String(error) })
          }
          break
        }
        default:
          await timed("detail", async () => {
            await call("GET", `/api/albums/${albums[step % albums.length]!.id}`, undefined, token)
          })
      }
      step++
    }
  }
  const clients = Promise.all([0, 1, 2, 3].map(clientLoop))
  // However the scenario ends, the clients stop with it.
  cleanups.push(async () => {
    running = false
    await clients.catch(() => undefined)
  })
  await sleep(1_500)

  // --- the kill ---
  const victim = replicas[victimName]
  const survivor = replicas[survivorName]
  const killedAt = Date.now()
  await victim.kill()
  // Until its exit is seen its sockets may still take a request: in flight on it too.
  const diedAt = Date.now()
  log(`SIGKILL replica ${victimName} (pid ${victim.pid}) holding ${DUTIES.length} duties; ${survivorName} survives`)

  const takeovers = new Map<string, number>()
  await until(
    "every duty taken over by the survivor",
    async () => {
      const all = await leases()
      for (const duty of DUTIES) {
        const lease = all.get(duty)
        if (!takeovers.has(duty) && lease?.live === true && lease.pid === survivor.pid)
          takeovers.set(duty, Date.now() - killedAt)
      }
      return takeovers.size === DUTIES.length ? true : undefined
    },
    TAKEOVER_BOUND_MS + SLACK_MS + 5_000,
  )
  for (const duty of DUTIES)
    log(`duty ${duty}: failed over to replica ${survivorName} ${takeovers.get(duty)} ms after the kill`)
  for (const duty of DUTIES) expect(takeovers.get(duty)!).toBeLessThan(TAKEOVER_BOUND_MS + SLACK_MS)

  // A file added now is indexed by the survivor, whose watcher took over (it subscribes as it takes the lease).
  await sleep(300)
  // A copy of a file the first scan indexed (a good one), in a new folder.
  const { rows: indexedPaths } = await db.query<{ path: string }>("SELECT path FROM tracks ORDER BY path LIMIT 1")
  const sample = path.resolve(library, indexedPaths[0]!.path)
  const added = path.join(library, "Added After The Kill")
  fs.mkdirSync(added)
  fs.copyFileSync(sample, path.join(added, `new${path.extname(sample)}`))

  const indexed = await until(
    "the added file indexed by the survivor's watcher",
    async () => {
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM tracks")
      return rows[0]!.n > scanned ? rows[0]!.n : undefined
    },
    15_000,
  ).catch((error) => {
    throw new Error(`${error}\n${survivor.lines.map((line) => line.text).join("\n")}`)
  })
  log(`the survivor's watcher indexed the file added after the kill: ${scanned} → ${indexed} tracks`)

  // A scan asked through the proxy now runs on the survivor.
  await timed("scan", async () => {
    await call("POST", "/api/admin/scan", {}, adminToken)
  })
  await until(
    "the scan after the kill",
    async () =>
      ((await call("GET", "/api/admin/scan", undefined, adminToken)) as { state: string }).state === "idle" ||
      undefined,
    20_000,
  )

  // --- the restart: the killed replica comes back and takes its share of requests, no duty ---
  replicas[victimName] = await startReplica(victimName, victim.port, shared, setup)
  log(`replica ${victimName} restarted (pid ${replicas[victimName].pid})`)
  await sleep(1_500)
  running = false
  await clients

  // In-process caches follow the database: the restarted replica reads an album (and keeps the answer), the
  // survivor's watcher indexes one more of its tracks, and the restarted replica's next answer has it.
  const { rows: albumRows } = await db.query<{ album_id: string }>("SELECT album_id FROM tracks WHERE path = $1", [
    indexedPaths[0]!.path,
  ])
  const album = albumRows[0]!.album_id
  const direct = async (port: number) => {
    const response = await fetch(`http://127.0.0.1:${port}/api/albums/${album}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    return ((await response.json()) as { tracks: Array<{ id: string }> }).tracks.length
  }
  const seenBefore = await direct(victim.port)
  fs.copyFileSync(sample, path.join(added, `newer${path.extname(sample)}`))
  const seenAfter = await until(
    "the restarted replica answering the track the survivor indexed",
    async () => {
      const n = await direct(victim.port)
      return n > seenBefore ? n : undefined
    },
    15_000,
  )
  expect(await direct(survivor.port)).toBe(seenAfter)
  log(`the album read on the restarted replica: ${seenBefore} tracks, then ${seenAfter} once the survivor indexed one`)

  // After the storm, an event published by either replica reaches every stream.
  const likedLast = trackIds[0]!
  await call("DELETE", `/api/likes/tracks/${likedLast}`, undefined, token)
  likes.delete(likedLast)
  await until(
    "every stream hears the unlike",
    async () =>
      streams.every((stream) =>
        stream.events.some((event) => event.kind === "track.unliked" && JSON.stringify(event.data).includes(likedLast)),
      ) || undefined,
    10_000,
  )

  // --- the checks ---
  const failed = outcomes.filter((outcome) => !outcome.ok)
  const inFlight = failed.filter((outcome) => outcome.start <= diedAt + 100 && outcome.end >= killedAt)
  log(
    `${outcomes.length} requests through the proxy: ${outcomes.length - failed.length} answered, ` +
      `${failed.length} failed (${inFlight.length} of them in flight on the killed replica)`,
  )
  for (const outcome of failed) log(`  failed ${outcome.kind} ${outcome.start - killedAt} ms: ${outcome.detail}`)
  expect(failed.filter((outcome) => !inFlight.includes(outcome))).toEqual([])
  expect(outcomes.length).toBeGreaterThan(40)

  // Event streams: each drop is followed by a reconnect within the retry (plus the proxy's connect).
  for (const stream of streams) {
    for (const drop of stream.drops) {
      const reopened = stream.opens.find((open) => open >= drop)
      expect(reopened, `stream ${stream.index} reconnected`).toBeDefined()
      expect(reopened! - drop).toBeLessThan(SSE_RETRY_MS + 1_500)
    }
    log(`event stream ${stream.index}: ${stream.drops.length} drops, ${stream.opens.length} opens`)
  }
  expect(streams.some((stream) => stream.drops.length > 0)).toBe(true)

  // Nothing acknowledged is lost.
  const { rows: playRows } = await db.query<{ id: string }>("SELECT id FROM play_events WHERE id = ANY($1::uuid[])", [
    plays,
  ])
  expect(playRows.length).toBe(plays.length)
  const { rows: likeRows } = await db.query<{ entity_id: string }>(
    "SELECT entity_id FROM likes WHERE entity = 'track' AND user_id = (SELECT id FROM users WHERE username = 'listener')",
  )
  for (const liked of likes) expect(likeRows.map((row) => row.entity_id)).toContain(liked)
  for (const [playlist, adds] of playlistAdds) {
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM playlist_tracks WHERE playlist_id = $1",
      [playlist],
    )
    expect(rows[0]!.n).toBeGreaterThanOrEqual(adds.acked)
    expect(rows[0]!.n).toBeLessThanOrEqual(adds.acked + adds.unsure)
  }
  const entries = [...playlistAdds.values()].reduce((sum, adds) => sum + adds.acked, 0)
  log(`kept: ${plays.length} plays, ${likes.size} likes, ${entries} playlist entries acknowledged, all in the database`)

  // No scan ran beside another: the scans' time ranges never overlap.
  const { rows: scans } = await db.query<{ started_at: Date; finished_at: Date | null; state: string }>(
    "SELECT started_at, finished_at, state FROM scans ORDER BY started_at",
  )
  for (let index = 1; index < scans.length; index++)
    expect(scans[index]!.started_at.getTime()).toBeGreaterThanOrEqual(scans[index - 1]!.finished_at?.getTime() ?? 0)
  log(`${scans.length} scans, none overlapping: ${scans.map((scan) => scan.state).join(", ")}`)

  // Each duty ran on one replica at a time: held by the victim until the kill, then by the survivor, and the
  // restarted replica took none (the survivor keeps renewing them).
  const after = await leases()
  for (const duty of DUTIES) {
    expect(after.get(duty)).toMatchObject({ live: true, pid: survivor.pid })
    expect(Number(after.get(duty)!.generation)).toBe(Number(before.get(duty)!.generation) + 1)
  }
  const heldLines = (replica: Replica) => replica.lines.filter((line) => /lease .*: held by/.test(line.text))
  const restarted = replicas[victimName]
  expect(heldLines(restarted)).toEqual([])
  for (const duty of DUTIES) {
    const taken = heldLines(survivor).filter((line) => line.text.includes(`lease ${duty}: held by`))
    expect(taken).toHaveLength(1)
    expect(taken[0]!.at).toBeGreaterThanOrEqual(killedAt)
    expect(taken[0]!.text).toContain(`taken from`)
  }
  log(`every duty: one holder at a time (generation +1 at the failover), none on the restarted replica`)

  // A clean stop: the proxy first (its pooled connections would hold the replicas' 10 s drain), then both.
  for (const stream of streams) stream.stop()
  await proxy.stop()
  await Promise.all([replicas.a.stop(), replicas.b.stop()])
}

/** Fails at once, saying what to install, rather than skipping: CI must run this test. */
const need = (program: string) => {
  if (!have(program)) throw new Error(`the scale-out test needs ${program}: sudo apt-get install -y ${program}`)
}

/** A scenario, with everything it started stopped when it ends (passed or not). */
const run = async (variant: "haproxy" | "pgbouncer") => {
  const mark = cleanups.length
  try {
    await scenario(variant)
  } finally {
    await cleanUpSince(mark)
  }
}

describe("scale-out: two replicas behind HAProxy", () => {
  it("SIGKILL of the replica running every duty: requests, streams, duties and writes survive", async () => {
    need("haproxy")
    await run("haproxy")
  }, 120_000)

  it("the same through PgBouncer in transaction mode (TONEARM_DB_PREPARE=false)", async () => {
    need("haproxy")
    need("pgbouncer")
    await run("pgbouncer")
  }, 120_000)
})
