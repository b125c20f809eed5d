import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"

export const root = path.resolve(import.meta.dirname, "../../../..")
/** The CLI from its TypeScript sources under tsx (the development path, with no build step). */
export const tsx = path.join(root, "node_modules/.bin/tsx")
export const sourceBin = path.join(root, "packages/cli/src/bin.ts")
/**
 * The CLI as the npm package installs it, built (when stale) by the test run's global setup: plain node, a few
 * times faster to start than tsx loading every source file, which was most of these tests' time.
 */
export const node = process.execPath
export const bin = path.join(root, "packages/cli/dist/bin.js")
export const run = promisify(execFile)

/** A free loopback port. */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

/** This test process's own state and config directories: nothing a test runs reads or writes the real home. */
const home = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-cli-home-"))

/** The environment a command runs in: none of the settings a developer's shell might carry. */
export const cleanEnv = (extra: NodeJS.ProcessEnv = {}) => {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TONEARM_STATE_DIR: path.join(home, "state"),
    TONEARM_CONFIG_DIR: path.join(home, "config"),
    ...extra,
  }
  for (const name of [
    "TONEARM_DATABASE_URL",
    "SERVICE_STREAM_SECRET",
    "TONEARM_DATA_DIR",
    "TONEARM_LIBRARY",
    "TONEARM_PUBLIC_URL",
    "TONEARM_SERVER",
    "TONEARM_TOKEN",
  ])
    if (!(name in extra)) delete env[name]
  return env
}

/** A command's outcome, never thrown: exit code, standard output and error. */
export interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI with `input` on its standard input (a pipe, not a terminal). */
export const runCli = (
  args: ReadonlyArray<string>,
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd?: string; readonly input?: string },
) =>
  new Promise<Outcome>((resolve, reject) => {
    const child = spawn(node, [bin, ...args], { cwd: options.cwd ?? root, env: options.env })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
    })
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000)
    child.once("error", reject)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? "")
  })

/** Polls until the URL answers 2xx. */
export const waitFor = async (url: string, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
      if (response.ok) return response
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** The embedded PostgreSQL runs as the `postgres` user when we are root: the directory must be reachable. */
export const freshDataDir = (prefix = "tonearm-cli-") => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.chmodSync(dir, 0o755)
  return dir
}

/** A `tonearm serve` started as a user would (embedded PostgreSQL), with an admin and a listener signed in. */
export interface Served {
  readonly base: string
  readonly adminToken: string
  readonly listenerToken: string
  readonly dataDir: string
  /** A JSON request to the served instance. */
  readonly api: (method: string, route: string, body?: unknown, token?: string) => Promise<Response>
  /** A remote command against it (`--server` and `--token` added), by default as the admin. */
  readonly command: (args: ReadonlyArray<string>, token?: string) => Promise<{ stdout: string; stderr: string }>
  /** The same, answering the exit code and standard error instead of throwing. */
  readonly failing: (args: ReadonlyArray<string>, token?: string) => Promise<{ code: number; stderr: string }>
  readonly stop: () => Promise<void>
}

const json = (base: string, method: string, route: string, body?: unknown, token?: string) =>
  fetch(`${base}${route}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

export const serve = async (): Promise<Served> => {
  const dataDir = freshDataDir()
  fs.mkdirSync(path.join(dataDir, "music"))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  // From the sources under tsx: one server per file keeps the development path (and its engine worker) tested.
  const server: ChildProcess = spawn(
    tsx,
    [sourceBin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir],
    { cwd: root, env: cleanEnv(), stdio: "ignore" },
  )
  const deadline = Date.now() + 90_000
  for (;;) {
    try {
      if ((await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error("the server did not start")
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const registered = await json(base, "POST", "/api/auth/register", { username: "ops", password: "operator pass" })
  const adminToken = ((await registered.json()) as { token: string }).token
  const listener = { username: "listener", password: "listener pass" }
  await json(base, "POST", "/api/admin/users", { ...listener, is_admin: false }, adminToken)
  const login = await json(base, "POST", "/api/auth/login", listener)
  const listenerToken = ((await login.json()) as { token: string }).token
  const command = (args: ReadonlyArray<string>, token = adminToken) =>
    run(node, [bin, ...args, "--server", base, "--token", token], { cwd: root, env: cleanEnv(), timeout: 60_000 })
  return {
    base,
    adminToken,
    listenerToken,
    dataDir,
    api: (method, route, body, token = adminToken) => json(base, method, route, body, token),
    command,
    failing: (args, token) =>
      command(args, token).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      ),
    stop: async () => {
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once("exit", resolve))
        server.kill("SIGTERM")
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))])
        if (server.exitCode === null) server.kill("SIGKILL")
      }
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
