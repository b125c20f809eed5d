import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { bin, cleanEnv, freePort, freshDataDir, node, root } from "./support/served.js"

/**
 * Issue 30 item 2: `TONEARM_LOG_FORMAT=json` makes every log line one JSON object, and no secret ever reaches the
 * log, at debug level: not a password sent to sign in, not a session token, not the stream secret, the metrics
 * token, the Last.fm shared secret, nor the embedded PostgreSQL's password.
 */
const SECRETS = {
  password: "listener-password-never-logged",
  streamSecret: Buffer.alloc(48, 7).toString("base64url"),
  metricsToken: "metrics-token-never-logged",
  lastfmSecret: "lastfm-shared-secret-never-logged",
}

const dataDir = freshDataDir("tonearm-json-logs-")
fs.mkdirSync(path.join(dataDir, "music"))
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

describe("JSON logs without secrets", () => {
  it("TONEARM_LOG_FORMAT=json writes one JSON object a line, and no secret appears at debug level", async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const server = spawn(node, [bin, "serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir], {
      cwd: root,
      env: cleanEnv({
        TONEARM_LOG_FORMAT: "json",
        TONEARM_LOG_LEVEL: "debug",
        SERVICE_STREAM_SECRET: SECRETS.streamSecret,
        TONEARM_METRICS_TOKEN: SECRETS.metricsToken,
        TONEARM_LASTFM_SHARED_SECRET: SECRETS.lastfmSecret,
        TONEARM_LASTFM_API_KEY: "lastfm-key",
      }),
    })
    let stderr = ""
    server.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    const exited = new Promise((resolve) => server.once("exit", resolve))
    try {
      const deadline = Date.now() + 90_000
      for (;;) {
        const ok = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
          (response) => response.ok,
          () => false,
        )
        if (ok) break
        if (Date.now() > deadline) throw new Error(`the server did not start:\n${stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      const post = (route: string, body: unknown, token?: string) =>
        fetch(`${base}${route}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
          body: JSON.stringify(body),
        })
      const registered = await post("/api/auth/register", { username: "ops", password: SECRETS.password })
      const token = ((await registered.json()) as { token: string }).token
      await post("/api/auth/login", { username: "ops", password: "a wrong password entirely" })
      await post("/api/auth/login", { username: "ops", password: SECRETS.password })
      await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } })
      await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${SECRETS.metricsToken}` } })
      await fetch(`${base}/rest/ping.view?u=ops&p=${SECRETS.password}&v=1.16.1&c=test&f=json`)
      const dbPassword = fs.readFileSync(path.join(dataDir, ".postgres-password"), "utf8").trim()

      server.kill("SIGTERM")
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20_000))])

      const lines = stderr.split("\n").filter((line) => line.trim() !== "")
      expect(lines.length).toBeGreaterThan(3)
      for (const line of lines) {
        const parsed = JSON.parse(line) as { message: unknown; logLevel: string; timestamp: string }
        expect(typeof parsed.logLevel).toBe("string")
        expect(typeof parsed.timestamp).toBe("string")
      }
      // Debug level logged the requests (so the check below looked at them).
      expect(stderr).toContain("/api/auth/login")
      for (const secret of [...Object.values(SECRETS), token, dbPassword]) expect(stderr).not.toContain(secret)
    } finally {
      if (server.exitCode === null) server.kill("SIGKILL")
    }
  }, 120_000)
})
