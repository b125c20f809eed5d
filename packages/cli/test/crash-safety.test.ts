import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { generateSyntheticLibrary, type SyntheticManifestLine } from "../../server/fixtures/synthetic.js"
import { fakeMusicBrainz } from "../../server/test/enrichment/support.js"
import { type FakeServer, startFakeServer } from "../../server/test/support/fakeServer.js"
import { pgQuery } from "../../server/test/support/pgQuery.js"
import { bin, cleanEnv, freePort, freshDataDir, node, root } from "./support/served.js"

/**
 * Crash safety (issue 29 item 4): a real `tonearm serve` is killed with SIGKILL in the middle of a scan, a daily
 * rebuild, a history import and an enrichment run, then started again on the same database. Afterwards nothing
 * acknowledged is lost (counts, ids, likes, plays), the dead process's job is marked interrupted (scan) or taken
 * over and finished (rebuild, import, enrichment), and the library and the history come out whole.
 */

const adminUrl = inject("adminDatabaseUrl")
const database = `tonearm_crash_${process.pid}_${Date.now().toString(36)}`
const databaseUrl = (() => {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
})()
// Enough files for a first scan to load in bulk (2,000 and more) and to be caught mid-way; each more costs CI time.
const TRACKS = 2200
/** Listens in the import that is killed mid-way: several batches, so the kill lands between two. */
const LISTENS = 12_000

let library = ""
let manifest: Array<SyntheticManifestLine> = []
let dataDir = ""
let port = 0
let base = ""
let server: ChildProcess | undefined
let log = ""
let adminToken = ""
const listeners: Array<{ name: string; token: string }> = []
/** Fake MusicBrainz and Last.fm on loopback (providers start disabled: only the enrichment test turns them on). */
let musicbrainz: FakeServer
let lastfm: FakeServer

const query = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = [], url = databaseUrl) =>
  pgQuery<R>(url, text, values)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls `probe` every 20 ms until it answers a value (not undefined), for up to `ms`. */
const until = async <A>(probe: () => Promise<A | undefined>, ms: number, what: string): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    // Before the server migrated the database its tables are not there yet: keep polling.
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${log.slice(-3000)}`)
    await sleep(20)
  }
}

/**
 * Starts `tonearm serve` (the built command) on the test's database and waits for /healthz; with `healthy` false
 * it returns at once (the boot's own work, a scan or the rebuild catch-up, may be over before /healthz answers).
 */
const start = async (healthy = true) => {
  log = ""
  server = spawn(
    node,
    [bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir, "--library", library],
    {
      cwd: root,
      env: cleanEnv({
        TONEARM_DATABASE_URL: databaseUrl,
        // A dead process's heartbeat is noticed after 1 s instead of 20 s.
        TONEARM_LEASE_TTL_MS: "1000",
        TONEARM_WATCH: "false",
        TONEARM_LOG_LEVEL: "info",
        TONEARM_MUSICBRAINZ_URL: musicbrainz.url,
        TONEARM_MUSICBRAINZ_THROTTLE_MS: "20",
        TONEARM_LASTFM_URL: lastfm.url,
        TONEARM_LASTFM_THROTTLE_MS: "10",
        TONEARM_LISTENBRAINZ_URL: "http://127.0.0.1:9",
        TONEARM_LISTENBRAINZ_LABS_URL: "http://127.0.0.1:9",
        TONEARM_COVERARTARCHIVE_URL: "http://127.0.0.1:9",
        TONEARM_ENRICHMENT_POLL_MS: "200",
        TONEARM_PROVIDER_TIMEOUT_MS: "2000",
      }),
      stdio: ["ignore", "ignore", "pipe"],
    },
  )
  server.stderr?.on("data", (chunk) => {
    log += chunk
  })
  if (!healthy) return
  await until(
    async () => {
      try {
        return (await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })).ok ? true : undefined
      } catch {
        return undefined
      }
    },
    90_000,
    "the server to answer /healthz",
  )
}

/** SIGKILL: no finalizer runs, nothing is handed back, the database sees the connections drop. */
const kill9 = async () => {
  const child = server
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGKILL")
  await exited
  server = undefined
}

const api = (method: string, route: string, token: string, body?: unknown) =>
  fetch(`${base}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

/** What must survive any crash: every row a user owns or the library acknowledged, by id. */
const snapshot = async () => ({
  tracks: await query<{ id: string; path: string }>("SELECT id, path FROM tracks ORDER BY path"),
  likes: await query("SELECT * FROM likes ORDER BY 1, 2, 3"),
  plays: await query<{ id: string }>("SELECT id FROM play_events ORDER BY id"),
  users: await query<{ id: string }>("SELECT id FROM users ORDER BY id"),
  playlists: await query<{ id: string }>("SELECT id FROM playlists WHERE system_variant IS NULL ORDER BY id"),
})

/** Every playlist's positions run 0…n−1: no half-written list. */
const gappedPlaylists = () =>
  query<{ playlist_id: string }>(`
    SELECT playlist_id FROM playlist_tracks GROUP BY playlist_id
    HAVING min(position) <> 0 OR max(position) <> count(*) - 1 OR count(DISTINCT position) <> count(*)`)

beforeAll(async () => {
  await query(`CREATE DATABASE ${database}`, [], adminUrl)
  library = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-crash-lib-"))
  fs.chmodSync(library, 0o755)
  const generated = await generateSyntheticLibrary({ out: library, tracks: TRACKS, seed: 29 })
  manifest = fs
    .readFileSync(generated.manifestPath, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as SyntheticManifestLine)
  dataDir = freshDataDir("tonearm-crash-")
  musicbrainz = await startFakeServer(fakeMusicBrainz)
  lastfm = await startFakeServer((server) =>
    server.on("GET", "/2.0/", (request) => {
      switch (request.query.get("method")) {
        case "artist.gettoptags":
          return { body: { toptags: { tag: [{ name: "crash-proof", count: 7 }] } } }
        case "artist.getinfo":
          return { body: { artist: { image: [] } } }
        default:
          return { body: { album: { tags: { tag: [{ name: "crash-proof" }] }, image: [] } } }
      }
    }),
  )
  port = await freePort()
  base = `http://127.0.0.1:${port}`
}, 180_000)

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve))
    server.kill("SIGTERM")
    await Promise.race([exited, sleep(15_000)])
    if (server.exitCode === null) server.kill("SIGKILL")
  }
  await query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`, [], adminUrl).catch(() => {})
  await musicbrainz?.stop()
  await lastfm?.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.rmSync(library, { recursive: true, force: true })
}, 60_000)

/**
 * A running server with a fully scanned library, an admin and 12 listeners with likes and a playlist each: what the
 * rebuild and import tests start from (made once, whichever of them runs first or alone).
 */
const withListeners = async () => {
  if (server === undefined) await start()
  await until(
    async () => {
      const rows = await query<{ state: string }>("SELECT state FROM scans ORDER BY id")
      return rows.at(-1)?.state === "completed" ? true : undefined
    },
    180_000,
    "a completed scan",
  )
  if (listeners.length > 0) return
  const registered = await fetch(`${base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "crash admin pass" }),
  })
  adminToken = ((await registered.json()) as { token: string }).token
  const trackIds = (await query<{ id: string }>("SELECT id FROM tracks ORDER BY path LIMIT 200")).map((r) => r.id)
  for (let i = 0; i < 12; i++) {
    const name = `listener${i}`
    expect(
      (await api("POST", "/api/admin/users", adminToken, { username: name, password: "listener pass" })).status,
    ).toBe(201)
    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: name, password: "listener pass" }),
    })
    const token = ((await login.json()) as { token: string }).token
    listeners.push({ name, token })
    for (const id of trackIds.slice(i * 10, i * 10 + 10)) {
      expect((await api("PUT", `/api/likes/tracks/${id}`, token)).status).toBeLessThan(300)
    }
    const created = await api("POST", "/api/playlists", token, {
      name: `mine ${i}`,
      track_ids: trackIds.slice(i, i + 20),
    })
    expect(created.status).toBe(201)
  }
}

describe("kill -9 of a real server", () => {
  it("mid-scan: the scan is marked interrupted at the next start, indexed rows keep their ids, a rescan completes", async () => {
    // The first start scans the never-scanned library at once.
    await start(false)
    await until(
      async () => {
        const [row] = await query<{ n: number }>("SELECT count(*)::int AS n FROM tracks")
        return row!.n >= 200 && row!.n < TRACKS ? true : undefined
      },
      120_000,
      "the first scan to index some tracks",
    )
    await kill9()
    const before = await query<{ id: string; path: string }>("SELECT id, path FROM tracks ORDER BY path")
    expect(before.length).toBeLessThan(TRACKS)
    expect((await query<{ state: string }>("SELECT state FROM scans"))[0]?.state).toBe("running")

    await start()
    // At start the dead scan is closed as failed, "interrupted"; the library was never fully scanned, so a new
    // scan runs and completes.
    await until(
      async () => {
        const rows = await query<{ state: string }>("SELECT state FROM scans ORDER BY id")
        return rows.at(-1)?.state === "completed" ? true : undefined
      },
      180_000,
      "the scan after the restart to complete",
    )
    const scans = await query<{ state: string; message: string | null }>("SELECT state, message FROM scans ORDER BY id")
    expect(scans[0]).toMatchObject({ state: "failed", message: expect.stringMatching(/^interrupted/) })
    expect(scans.filter((scan) => scan.state === "running")).toEqual([])
    const after = await query<{ id: string; path: string }>("SELECT id, path FROM tracks ORDER BY path")
    expect(after).toHaveLength(TRACKS)
    const ids = new Map(after.map((row) => [row.path, row.id]))
    for (const row of before) expect(ids.get(row.path)).toBe(row.id)
  }, 360_000)

  it("mid-rebuild: the dead run is taken over at the next start and finished; likes, plays and lists intact", async () => {
    await withListeners()
    // Every user's daily job due now; the next start runs them at once (the catch-up), and is killed mid-way.
    await kill9()
    await query("UPDATE rebuild_jobs SET next_run_at = now() - interval '1 minute'")
    const kept = await snapshot()
    await start(false)
    const running = await until(
      async () => {
        const rows = await query<{ user_id: string }>("SELECT user_id FROM rebuild_jobs WHERE heartbeat_at IS NOT NULL")
        return rows.length > 0 ? rows.map((row) => row.user_id) : undefined
      },
      120_000,
      "a daily rebuild to be running",
    )
    await kill9()
    const killedAt = new Date()
    const dead = await query<{ user_id: string; runs: number }>(
      "SELECT user_id, runs FROM rebuild_jobs WHERE heartbeat_at IS NOT NULL ORDER BY user_id",
    )
    expect(dead.length).toBeGreaterThan(0)
    expect(running.length).toBeGreaterThan(0)
    // More than the TTL (1 s) passes before the restart's first tick: the dead runs are marked and done again.
    await sleep(1500)
    await start()
    await until(
      async () => {
        const rows = await query<{ n: number }>(
          "SELECT count(*)::int AS n FROM rebuild_jobs WHERE heartbeat_at IS NOT NULL OR next_run_at <= now()",
        )
        return rows[0]!.n === 0 ? true : undefined
      },
      180_000,
      "every due rebuild to finish after the restart",
    )
    expect(log).toMatch(/daily rebuild\(s\) were interrupted by a stop: running them again/)
    for (const row of dead) {
      const [job] = await query<{ runs: number; last_error: string | null; last_finished_at: Date }>(
        "SELECT runs, last_error, last_finished_at FROM rebuild_jobs WHERE user_id = $1",
        [row.user_id],
      )
      expect(job!.runs).toBe(row.runs + 1)
      expect(job!.last_error).toBeNull()
      expect(job!.last_finished_at.getTime()).toBeGreaterThan(killedAt.getTime())
    }
    expect(await snapshot()).toEqual(kept)
    expect(await gappedPlaylists()).toEqual([])
  }, 420_000)

  it("mid-import: the dead import is resumed at the next start from its cursor; every listen lands once", async () => {
    await withListeners()
    const listener = listeners[0]!
    // LISTENS listens of the library's tracks (a ListenBrainz export, JSON lines), one a minute.
    const lines: Array<string> = []
    for (let i = 0; i < LISTENS; i++) {
      const track = manifest[i % manifest.length]!.expect
      lines.push(
        JSON.stringify({
          listened_at: 1_600_000_000 + i * 60,
          track_metadata: { artist_name: track.artist, track_name: track.title, release_name: track.album },
        }),
      )
    }
    const form = new FormData()
    form.set("file", new Blob([`${lines.join("\n")}\n`]), "listens.jsonl")
    const uploaded = await fetch(`${base}/api/me/imports?source=listenbrainz_export`, {
      method: "POST",
      headers: { authorization: `Bearer ${listener.token}` },
      body: form,
    })
    expect(uploaded.status).toBe(202)
    const { id } = (await uploaded.json()) as { id: string }
    await until(
      async () => {
        const [row] = await query<{ state: string; added: number }>("SELECT state, added FROM imports WHERE id = $1", [
          id,
        ])
        return row?.state === "running" && row.added > 0 ? true : undefined
      },
      120_000,
      "the import to write its first batch",
    )
    await kill9()
    const [half] = await query<{ state: string; added: number }>("SELECT state, added FROM imports WHERE id = $1", [id])
    expect(half!.state).toBe("running")
    expect(half!.added).toBeLessThan(LISTENS)
    const kept = await snapshot()
    await sleep(1500)
    await start()
    const done = await until(
      async () => {
        const [row] = await query<{ state: string; added: number; matched: number; duplicates: number }>(
          "SELECT state, added, matched, duplicates FROM imports WHERE id = $1",
          [id],
        )
        return row?.state === "done" || row?.state === "failed" ? row : undefined
      },
      240_000,
      "the resumed import to finish",
    )
    expect(done.state).toBe("done")
    // Every listen once: the resumed batches skip what the dead run committed (same track, same second).
    const [plays] = await query<{ n: number; distinct_n: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT (track_id, started_at))::int AS distinct_n
       FROM play_events p JOIN users u ON u.id = p.user_id WHERE u.username = $1`,
      [listener.name],
    )
    expect(plays!.n).toBe(plays!.distinct_n)
    expect(plays!.n).toBe(done.added)
    expect(done.added).toBeGreaterThan(half!.added)
    // What existed before the import is all still there.
    const now = await snapshot()
    expect(now.tracks).toEqual(kept.tracks)
    expect(now.likes).toEqual(kept.likes)
    expect(now.users).toEqual(kept.users)
    for (const play of kept.plays) expect(now.plays).toContainEqual(play)
    expect(await gappedPlaylists()).toEqual([])
  }, 420_000)

  it("mid-enrichment: a dead server's claimed rows are taken back at the next start; every album and artist is enriched, nothing of the listeners touched", async () => {
    await withListeners()
    // A few finished plays, so "no play touched" is about rows that exist.
    const tracks = (await query<{ id: string }>("SELECT id FROM tracks ORDER BY path LIMIT 4")).map((r) => r.id)
    for (const [i, trackId] of tracks.entries()) {
      const started = await api("POST", "/api/events", listeners[i]!.token, {
        type: "play_started",
        track_id: trackId,
        client_id: "crash-test",
      })
      expect(started.status).toBe(201)
      const { play_event_id } = (await started.json()) as { play_event_id: string }
      const ended = await api("POST", "/api/events", listeners[i]!.token, {
        type: "play_ended",
        play_event_id,
        duration_played_ms: 60_000,
      })
      expect(ended.status).toBe(204)
    }
    const kept = await snapshot()
    const plays = await query("SELECT * FROM play_events ORDER BY id")
    const [entities] = await query<{ albums: number; artists: number }>(
      "SELECT (SELECT count(*)::int FROM albums) AS albums, (SELECT count(*)::int FROM artists) AS artists",
    )
    const total = entities!.albums + entities!.artists

    for (const [id, payload] of [
      ["musicbrainz", { enabled: true }],
      ["lastfm", { enabled: true, api_key: "crash-key" }],
    ] as const)
      expect((await api("PATCH", `/api/admin/tag-sources/${id}`, adminToken, payload)).status).toBe(200)
    const states = () =>
      query<{ provider: string; status: string; claimed: boolean; n: number }>(
        `SELECT provider, status, claim_generation IS NOT NULL AS claimed, count(*)::int AS n
         FROM enrichment_state GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      )
    // Killed once both providers hold a claimed batch and some rows are settled.
    await until(
      async () => {
        const rows = await states()
        const of = (provider: string, status: string, claimed: boolean) =>
          rows.find((row) => row.provider === provider && row.status === status && row.claimed === claimed)?.n ?? 0
        return of("musicbrainz", "settled", false) >= 20 &&
          of("musicbrainz", "pending", true) > 0 &&
          of("lastfm", "pending", true) > 0 &&
          of("musicbrainz", "pending", false) > 0
          ? true
          : undefined
      },
      120_000,
      "both providers to be mid-run",
    )
    await kill9()
    const orphaned = await query<{ id: string; due_at: Date; due_in_s: number }>(
      `SELECT id::text, due_at, extract(epoch FROM due_at - now())::float8 AS due_in_s FROM enrichment_state
       WHERE status = 'pending' AND claim_generation IS NOT NULL ORDER BY id`,
    )
    expect(orphaned.length).toBeGreaterThan(0)
    // Without the hand-back these rows would wait out their claim (five minutes) before anyone took them again.
    expect(Math.min(...orphaned.map((row) => row.due_in_s))).toBeGreaterThan(200)
    const settledAtKill = (await states())
      .filter((row) => row.status === "settled")
      .reduce((sum, row) => sum + row.n, 0)
    const askedAtKill = musicbrainz.requests.length + lastfm.requests.length

    await sleep(1500)
    const restarted = Date.now()
    await start()
    await until(
      async () => {
        const rows = await states()
        return rows.length > 0 && rows.every((row) => row.status !== "pending") ? true : undefined
      },
      300_000,
      "every enrichment row to settle after the restart",
    )
    const tookMs = Date.now() - restarted
    const asked = musicbrainz.requests.length + lastfm.requests.length - askedAtKill
    // The dead server's claims were worked long before those claims ran out (five minutes): taken back at the start.
    const settledOrphans = await query<{ id: string; settled_at: Date }>(
      "SELECT id::text, settled_at FROM enrichment_state WHERE id = ANY($1::bigint[]) ORDER BY id",
      [orphaned.map((row) => row.id)],
    )
    const lastOrphanS = Math.max(...settledOrphans.map((row) => row.settled_at.getTime() - restarted)) / 1000
    console.log(
      `[measure] enrichment after kill -9: ${orphaned.length} orphaned claims (due in ${Math.round(
        Math.min(...orphaned.map((row) => row.due_in_s)),
      )} s or more), ${settledAtKill} of ${2 * total} rows settled at the kill; the orphans settled by ` +
        `${lastOrphanS.toFixed(1)} s after the restart began, all ${2 * total} rows by ${(tookMs / 1000).toFixed(1)} s ` +
        `(${asked} provider requests after it)`,
    )
    expect(log).toMatch(/enrichment: \d+ row\(s\) claimed by an earlier holder are due again/)
    for (const [at, row] of settledOrphans.entries())
      expect(row.settled_at.getTime()).toBeLessThan(orphaned[at]!.due_at.getTime() - 120_000)
    expect(await states()).toEqual([
      { provider: "lastfm", status: "settled", claimed: false, n: total },
      { provider: "musicbrainz", status: "settled", claimed: false, n: total },
    ])
    // Every album and artist carries both providers' tags.
    const untagged = await query<{ kind: string; provider: string; n: number }>(
      `SELECT 'album' AS kind, p.provider, count(*)::int AS n FROM albums a
         CROSS JOIN (VALUES ('musicbrainz'), ('lastfm')) AS p (provider)
         WHERE NOT EXISTS (SELECT 1 FROM enriched_tags t WHERE t.album_id = a.id AND t.provider = p.provider)
         GROUP BY p.provider
       UNION ALL
       SELECT 'artist', p.provider, count(*)::int FROM artists a
         CROSS JOIN (VALUES ('musicbrainz'), ('lastfm')) AS p (provider)
         WHERE NOT EXISTS (SELECT 1 FROM enriched_tags t WHERE t.artist_id = a.id AND t.provider = p.provider)
         GROUP BY p.provider`,
    )
    expect(untagged).toEqual([])
    // Nothing a listener owns moved: likes, playlists, plays, accounts, the tracks and their ids.
    expect(await snapshot()).toEqual(kept)
    expect(await query("SELECT * FROM play_events ORDER BY id")).toEqual(plays)
    expect(await gappedPlaylists()).toEqual([])
  }, 600_000)
})
