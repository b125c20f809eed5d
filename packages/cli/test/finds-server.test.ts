import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { bin, cleanEnv, freePort, freshDataDir, node, root, runCli, waitFor } from "./support/served.js"

/** A short silent mono WAV: an audio file the scanner indexes, made without ffmpeg. */
const silentWav = (seconds = 0.2, rate = 8000) => {
  const samples = Math.round(seconds * rate)
  const header = Buffer.alloc(44)
  header.write("RIFF", 0)
  header.writeUInt32LE(36 + samples * 2, 4)
  header.write("WAVEfmt ", 8)
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(rate, 24)
  header.writeUInt32LE(rate * 2, 28)
  header.writeUInt16LE(2, 32)
  header.writeUInt16LE(16, 34)
  header.write("data", 36)
  header.writeUInt32LE(samples * 2, 40)
  return Buffer.concat([header, Buffer.alloc(samples * 2)])
}

/**
 * The operator's report (issue 14): after `tonearm serve --data-dir D`, commands typed anywhere without flags
 * reach that server, its library and its port; once it stops, they open D itself.
 */
const home = freshDataDir("tonearm-cli-user-")
const cwd = path.join(home, "elsewhere")
const stateDir = path.join(home, "state")
const configDir = path.join(home, "config")
const env = cleanEnv({ TONEARM_STATE_DIR: stateDir, TONEARM_CONFIG_DIR: configDir, INIT_CWD: cwd })
const dataDir = freshDataDir()
const library = freshDataDir("tonearm-cli-library-")
const credentials = path.join(configDir, "credentials.json")
let port = 0
let base = ""
let server: ChildProcess
let serverLog = ""

const tonearm = (args: ReadonlyArray<string>, input?: string, extra: NodeJS.ProcessEnv = {}) =>
  runCli(args, { env: { ...env, ...extra }, cwd, ...(input === undefined ? {} : { input }) })

const login = (username: string, password: string) =>
  fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username, password }),
  })

beforeAll(async () => {
  fs.mkdirSync(cwd)
  fs.writeFileSync(path.join(library, "one.wav"), silentWav())
  fs.writeFileSync(path.join(library, "two.wav"), silentWav(0.3))
  fs.writeFileSync(path.join(library, "broken.flac"), Buffer.from("not a flac file at all, just text"))
  port = await freePort()
  base = `http://127.0.0.1:${port}`
  server = spawn(
    node,
    [bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir, "--library", library],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  )
  server.stdout!.on("data", (chunk) => {
    serverLog += chunk
  })
  server.stderr!.on("data", (chunk) => {
    serverLog += chunk
  })
  await waitFor(`${base}/healthz`)
  // /healthz answers as the socket listens; the record follows at once.
  for (let i = 0; i < 50 && !fs.existsSync(path.join(stateDir, "server.json")); i++)
    await new Promise((resolve) => setTimeout(resolve, 100))
}, 120_000)

afterAll(() => {
  if (server?.exitCode === null) server.kill("SIGKILL")
})

describe("a CLI that finds its server", () => {
  it("serve records its URL, data directory, library and pid in the data directory and the user's state", () => {
    for (const file of [path.join(dataDir, "server.json"), path.join(stateDir, "server.json")]) {
      const record = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>
      expect(record).toMatchObject({ url: base, local_url: base, data_dir: dataDir, library })
      expect(typeof record.pid).toBe("number")
      expect(Number.isNaN(Date.parse(String(record.started_at)))).toBe(false)
    }
  })

  it("the first users create --admin, with no flags and no login, registers on that server and keeps the login (0600)", async () => {
    const created = await tonearm(["users", "create", "ops", "--admin", "--password", "operator pass"])
    expect(created.stderr).toContain(`logged in to ${base} as ops`)
    expect(created.stdout).toMatch(/^created admin ops \([0-9a-f-]{36}\)$/m)
    expect(created.code).toBe(0)
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600)
    expect(fs.statSync(configDir).mode & 0o777).toBe(0o700)
    // Nothing was made where the command was typed (the operator's second, empty ./data).
    expect(fs.readdirSync(cwd)).toEqual([])
    expect((await login("ops", "operator pass")).status).toBe(200)
  }, 60_000)

  it("users create bob reads the password from standard input when it is not a terminal; bob logs in over HTTP", async () => {
    const created = await tonearm(["users", "create", "bob"], "bob's password\n")
    expect(created.stdout).toMatch(/^created user bob \(/m)
    expect(created.code).toBe(0)
    expect((await login("bob", "bob's password")).status).toBe(200)
    const listed = await tonearm(["users", "list"])
    expect(listed.stdout).toMatch(/^bob\tno\t-\t/m)
    expect(listed.stdout).toMatch(/^ops\tyes\t-\t/m)
  }, 60_000)

  it("users reset-link prints the server's link on its real port, and the link works", async () => {
    const { stdout, code } = await tonearm(["users", "reset-link", "bob"])
    expect(code).toBe(0)
    const link = stdout.trim()
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/reset-password/[A-Za-z0-9_-]{43}$`))
    const reset = await fetch(`${base}/api/auth/reset-password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: link.split("/").at(-1), password: "bob's new password" }),
    })
    expect(reset.status).toBe(204)
    expect((await login("bob", "bob's new password")).status).toBe(200)
  }, 60_000)

  it("scan without --library scans the library the server serves, through the server, and lists the files that failed", async () => {
    const { stdout, stderr, code } = await tonearm(["scan", "--full"])
    expect(stderr).not.toContain("\r")
    expect(code).toBe(0)
    expect(stdout).toMatch(/^scanned 3 files in \d+\.\d s: .*, 1 errors$/m)
    // The files that failed, with their reasons, from GET /api/admin/scan/errors.
    expect(stdout).toMatch(/^1 file could not be indexed:\n {2}broken\.flac: \S.*$/m)
    const refused = await tonearm(["scan", "--library", cwd])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("scans its own library")
  }, 60_000)

  it("missing list shows a track whose file vanished; missing purge deletes it for good", async () => {
    fs.rmSync(path.join(library, "two.wav"))
    expect((await tonearm(["scan"])).code).toBe(0)
    const listed = await tonearm(["missing", "list", "--json"])
    expect(listed.code).toBe(0)
    const missing = JSON.parse(listed.stdout) as Array<{ id: string; missing_since: string }>
    expect(missing).toHaveLength(1)
    const neither = await tonearm(["missing", "purge"])
    expect(neither.code).toBe(1)
    expect(neither.stderr.trim()).toBe("tonearm: give the track ids to purge, or --all for every missing track")
    expect((await tonearm(["missing", "purge", missing[0]!.id])).stdout.trim()).toBe("purged 1 missing track")
    expect((await tonearm(["missing", "list"])).stdout.trim()).toBe("(nothing)")
    expect((await tonearm(["missing", "purge", "--all"])).stdout.trim()).toBe("purged 0 missing tracks")
  }, 90_000)

  it("libraries list, add (scanned at once), scan with each library's progress, remove", async () => {
    const listed = await tonearm(["libraries", "list", "--json"])
    expect(listed.code).toBe(0)
    expect((JSON.parse(listed.stdout) as Array<{ id: number }>).map((library) => library.id)).toEqual([1])
    const extra = freshDataDir("tonearm-cli-extra-")
    fs.writeFileSync(path.join(extra, "three.wav"), silentWav(0.4))
    const added = await tonearm(["libraries", "add", extra, "--name", "Extra"])
    expect(added.code).toBe(0)
    expect(added.stdout).toContain(`added library 2 (Extra) at ${extra}`)
    const scanned = await tonearm(["libraries", "scan", "Extra"])
    expect(scanned.code).toBe(0)
    expect(scanned.stdout).toMatch(/^Extra: idle · 1 files · /m)
    const all = await tonearm(["libraries", "list"])
    expect(all.stdout).toMatch(/^2\s+Extra\s+1\s/m)
    const unknown = await tonearm(["libraries", "remove", "Nope"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("no library Nope")
    const removed = await tonearm(["libraries", "remove", "2"])
    expect(removed.code).toBe(0)
    expect(removed.stdout).toContain("removed library 2 (Extra): its 1 tracks are missing")
  }, 90_000)

  it("a scan that fails on the server exits 1 with the server's one-line reason", async () => {
    // Every file gone while tracks are indexed: the scan refuses to mark them all missing, and says why.
    for (const file of fs.readdirSync(library)) fs.rmSync(path.join(library, file))
    const failed = await tonearm(["scan"])
    expect(failed.code).toBe(1)
    expect(failed.stderr).toMatch(new RegExp(`^tonearm: the scan on ${base} failed: \\S.*$`, "m"))
    expect(failed.stderr).not.toContain("see the server log")
  }, 60_000)

  it("logout forgets the login; then admin commands say to log in; login reads name and password from stdin", async () => {
    expect((await tonearm(["logout"])).stdout.trim()).toBe(`logged out of ${base}`)
    const refused = await tonearm(["users", "list"])
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toBe(`tonearm: not logged in to ${base}: run tonearm login (or pass --token)`)
    const wrong = await tonearm(["login"], "ops\nnot the password\n")
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain(`wrong username or password for ${base}`)
    const loggedIn = await tonearm(["login"], "ops\noperator pass\n")
    expect(loggedIn.stdout).toContain(`logged in to ${base} as ops (admin)`)
    expect(fs.statSync(credentials).mode & 0o777).toBe(0o600)
    const stored = JSON.parse(fs.readFileSync(credentials, "utf8")) as { servers: Record<string, { username: string }> }
    expect(Object.keys(stored.servers)).toEqual([base])
    expect((await tonearm(["users", "list"])).stdout).toMatch(/^ops\tyes/m)
  }, 60_000)

  it("a listener's login is told it is not an admin; an unreachable --server is named", async () => {
    const listener = { TONEARM_CONFIG_DIR: path.join(home, "listener-config") }
    expect((await tonearm(["login", "--username", "bob"], "bob's new password\n", listener)).code).toBe(0)
    const forbidden = await tonearm(["users", "list"], undefined, listener)
    expect(forbidden.code).toBe(1)
    expect(forbidden.stderr.trim()).toBe("tonearm: user bob is not an admin (this command is for admins only)")
    const deadPort = await freePort()
    const unreachable = await tonearm(["tuning", "get", "--server", `http://127.0.0.1:${deadPort}`, "--token", "x"])
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr).toMatch(
      new RegExp(`^tonearm: cannot reach the tonearm server at http://127\\.0\\.0\\.1:${deadPort} \\(ECONNREFUSED\\)`),
    )
    expect(unreachable.stderr.split("\n").filter(Boolean)).toHaveLength(1)
  }, 60_000)

  it("once the server stopped cleanly, commands open its data directory: users list, reset-link on its URL", async () => {
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)))
    server.kill("SIGTERM")
    expect(await exited).toBe(0)
    expect(serverLog).toContain("embedded PostgreSQL stopped")
    expect(fs.existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false)
    expect(fs.existsSync(path.join(dataDir, "server.json"))).toBe(false)
    const state = JSON.parse(fs.readFileSync(path.join(stateDir, "server.json"), "utf8")) as Record<string, unknown>
    expect(typeof state.stopped_at).toBe("string")

    const listed = await tonearm(["users", "list"])
    expect(listed.stdout).toMatch(/^bob\tno\t-\t/m)
    const link = await tonearm(["users", "reset-link", "ops"])
    expect(link.stdout.trim()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/reset-password/[A-Za-z0-9_-]{43}$`))
    const rebuild = await tonearm(["rebuild", "--all"])
    expect(rebuild.code).toBe(1)
    expect(rebuild.stderr.trim()).toBe(
      `tonearm: the tonearm server last started at ${base} (data directory ${dataDir}) is not running: start it with tonearm serve --data-dir ${dataDir}, or pass --server URL`,
    )
    expect(fs.readdirSync(cwd)).toEqual([])
  }, 120_000)
})
