import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "@effect/vitest"

const root = path.resolve(import.meta.dirname, "../../..")
const tsx = path.join(root, "node_modules/.bin/tsx")
const bin = path.join(root, "packages/cli/src/bin.ts")
const run = promisify(execFile)

/** The embedded PostgreSQL runs as the `postgres` user when we are root: the directory must be reachable. */
const freshDataDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-cli-"))
  fs.chmodSync(dir, 0o755)
  return dir
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

const cleanEnv = () => {
  const env: NodeJS.ProcessEnv = { ...process.env, TONEARM_LOG_LEVEL: "info" }
  delete env.TONEARM_DATABASE_URL
  delete env.SERVICE_STREAM_SECRET
  delete env.TONEARM_DATA_DIR
  return env
}

const tonearm = (args: Array<string>, env: NodeJS.ProcessEnv = cleanEnv()) =>
  run(tsx, [bin, ...args], { cwd: root, env, timeout: 90_000 })

const children: Array<ChildProcess> = []
afterAll(() => {
  for (const child of children) child.kill("SIGKILL")
})

const waitFor = async (url: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) })
      if (response.ok) return response
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`)
}

describe("tonearm CLI", () => {
  it("every command answers --help", async () => {
    const cases: Array<[Array<string>, RegExp]> = [
      [["--help"], /serve[\s\S]*migrate[\s\S]*users/],
      [["serve", "--help"], /--port[\s\S]*--host[\s\S]*--library[\s\S]*--data-dir[\s\S]*--database-url/],
      [["migrate", "--help"], /--data-dir[\s\S]*--database-url/],
      [["users", "--help"], /create[\s\S]*list[\s\S]*reset-link/],
      [["users", "create", "--help"], /--password[\s\S]*--admin/],
      [["users", "list", "--help"], /--data-dir/],
      [["users", "reset-link", "--help"], /reset/],
    ]
    for (const [args, pattern] of cases) {
      const { stdout } = await tonearm(args)
      expect(stdout).toMatch(pattern)
    }
  }, 120_000)

  it("the root script runs the CLI: pnpm tonearm --version", async () => {
    const { stdout } = await run("pnpm", ["--silent", "tonearm", "--version"], { cwd: root, env: cleanEnv() })
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it("a malformed SERVICE_STREAM_SECRET refuses to boot with a clear message", async () => {
    const dataDir = freshDataDir()
    const failure = await tonearm(["serve", "--port", String(await freePort()), "--data-dir", dataDir], {
      ...cleanEnv(),
      SERVICE_STREAM_SECRET: "not-long-enough",
    }).catch((error: { code: number; stderr: string }) => error)
    expect("code" in failure && failure.code).toBe(1)
    expect((failure as { stderr: string }).stderr).toMatch(
      /SERVICE_STREAM_SECRET decodes to \d+ bytes; at least 32 are required/,
    )
  })

  it("users create/list/reset-link work on a fresh data directory, then serve starts on it, answers, and shuts down cleanly", async () => {
    const dataDir = freshDataDir()
    const library = path.join(dataDir, "music")
    fs.mkdirSync(library)
    const created = await tonearm([
      "users",
      "create",
      "ops",
      "--admin",
      "--password",
      "operator pass",
      "--data-dir",
      dataDir,
    ])
    expect(created.stdout).toMatch(/created admin ops \([0-9a-f-]{36}\)/)
    const listed = await tonearm(["users", "list", "--data-dir", dataDir])
    expect(listed.stdout).toMatch(/^ops\tyes\t-\t/m)
    const link = await tonearm(["users", "reset-link", "ops", "--data-dir", dataDir])
    expect(link.stdout.trim()).toMatch(/^http:\/\/localhost:4533\/reset-password\/[A-Za-z0-9_-]{43}$/)

    const port = await freePort()
    const server = spawn(
      tsx,
      [bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--library", library, "--data-dir", dataDir],
      {
        cwd: root,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    )
    children.push(server)
    let output = ""
    server.stdout!.on("data", (chunk) => {
      output += chunk
    })
    server.stderr!.on("data", (chunk) => {
      output += chunk
    })
    const health = await waitFor(`http://127.0.0.1:${port}/healthz`, 60_000)
    expect(await health.json()).toMatchObject({ status: "ok", database: true })
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "ops", password: "operator pass" }),
    })
    expect(login.status).toBe(200)
    // While the server runs, the CLI attaches to its database instead of starting a second one.
    const whileRunning = await tonearm(["users", "list", "--data-dir", dataDir])
    expect(whileRunning.stdout).toMatch(/^ops\tyes/m)

    expect(output).toContain(`library ${library}`)
    expect(fs.existsSync(path.join(dataDir, "stream_secret"))).toBe(true)
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)))
    server.kill("SIGTERM")
    expect(await exited).toBe(0)
    expect(output).toContain("embedded PostgreSQL stopped")
    expect(fs.existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false)
  }, 180_000)
})
