import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import type { Command } from "commander"
import { makeProgram } from "../src/program.js"
import { bin, cleanEnv, freePort, freshDataDir, node, root, run, runCli } from "./support/served.js"

const tonearm = (args: Array<string>, env: NodeJS.ProcessEnv = cleanEnv()) =>
  run(node, [bin, ...args], { cwd: root, env, timeout: 90_000 })

/** A user who never ran a server: empty state and config directories, commands typed in an empty folder. */
const newcomer = () => {
  const home = freshDataDir("tonearm-cli-newcomer-")
  const cwd = path.join(home, "here")
  fs.mkdirSync(cwd)
  const env = cleanEnv({
    TONEARM_STATE_DIR: path.join(home, "state"),
    TONEARM_CONFIG_DIR: path.join(home, "config"),
    INIT_CWD: cwd,
  })
  return { home, cwd, env }
}

describe("tonearm CLI", () => {
  it("every command answers --help", async () => {
    const cases: Array<[Array<string>, RegExp]> = [
      [[], /serve[\s\S]*migrate[\s\S]*login[\s\S]*logout[\s\S]*users/],
      [["serve"], /--port[\s\S]*--host[\s\S]*--library[\s\S]*--data-dir[\s\S]*--database-url/],
      [["migrate"], /--data-dir[\s\S]*--database-url/],
      [["users"], /create[\s\S]*list[\s\S]*reset-link/],
      [["users", "create"], /--password[\s\S]*--admin/],
      [["users", "list"], /--data-dir/],
      [["users", "reset-link"], /reset[\s\S]*--server[\s\S]*--token/],
      [["scan"], /--full[\s\S]*--library[\s\S]*--server/],
      [["login"], /--server[\s\S]*--username/],
      [["logout"], /--server/],
      [["missing"], /list[\s\S]*purge/],
      [["missing", "purge"], /--all[\s\S]*--server/],
      [["diagnostics"], /export/],
      [
        ["diagnostics", "export"],
        /--user[\s\S]*--device[\s\S]*--kind[\s\S]*--from[\s\S]*--to[\s\S]*--format[\s\S]*--output/,
      ],
    ]
    // Built in this process: each case checks the command's own help text in milliseconds.
    const program = makeProgram("0.0.0")
    for (const [names, pattern] of cases) {
      const command = names.reduce<Command>((parent, name) => parent.commands.find((c) => c.name() === name)!, program)
      expect(command.helpInformation()).toMatch(pattern)
    }
    // And once through the real binary.
    const { stdout } = await tonearm(["users", "reset-link", "--help"])
    expect(stdout).toMatch(/reset[\s\S]*--server[\s\S]*--token/)
  }, 60_000)

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

  it("a taken port is named in one line, before the database starts", async () => {
    const blocker = net.createServer()
    const port = await freePort()
    await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve))
    try {
      const dataDir = path.join(freshDataDir(), "fresh")
      const failed = await runCli(["serve", "--port", String(port), "--host", "127.0.0.1", "--data-dir", dataDir], {
        env: cleanEnv(),
      })
      expect(failed.code).toBe(1)
      expect(failed.stderr.trim()).toBe(
        `tonearm: port ${port} is already in use (another tonearm or program is listening on 127.0.0.1:${port}); choose another with --port`,
      )
      expect(fs.existsSync(dataDir)).toBe(false)
    } finally {
      blocker.close()
    }
  }, 60_000)

  it("with no server running, a data directory without a database is refused and nothing is created", async () => {
    const { cwd, env } = newcomer()
    const nowhere = path.join(cwd, "not-a-data-dir")
    for (const args of [
      ["users", "list", "--data-dir", nowhere],
      ["users", "create", "bob", "--password", "bob's password", "--data-dir", nowhere],
      ["users", "reset-link", "bob", "--data-dir", nowhere],
      ["scan", "--data-dir", nowhere],
    ]) {
      const refused = await runCli(args, { env, cwd })
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim()).toMatch(
        new RegExp(`^tonearm: no tonearm database in ${nowhere} and no server running`),
      )
    }
    // Without --data-dir, the default ./data of where the command was typed: refused the same way, not created.
    const typed = await runCli(["users", "create", "bob", "--password", "bob's password"], { env, cwd })
    expect(typed.code).toBe(1)
    expect(typed.stderr).toContain(`no tonearm database in ${path.join(cwd, "data")}`)
    expect(fs.readdirSync(cwd)).toEqual([])
    // A remote-only command says no server runs.
    const rebuild = await runCli(["rebuild", "--all"], { env, cwd })
    expect(rebuild.code).toBe(1)
    expect(rebuild.stderr).toContain("no tonearm server is running")
  }, 120_000)

  it("migrate creates the database; then users create (password on stdin), list and reset-link work on it offline", async () => {
    const { cwd, env } = newcomer()
    const dataDir = freshDataDir()
    const migrated = await runCli(["migrate", "--data-dir", dataDir], { env, cwd })
    expect(migrated.code).toBe(0)
    expect(fs.existsSync(path.join(dataDir, "postgres", "PG_VERSION"))).toBe(true)
    const created = await runCli(["users", "create", "ops", "--admin", "--data-dir", dataDir], {
      env,
      cwd,
      input: "operator pass\n",
    })
    expect(created.stdout).toMatch(/^created admin ops \([0-9a-f-]{36}\)$/m)
    const listed = await runCli(["users", "list", "--data-dir", dataDir], { env, cwd })
    expect(listed.stdout).toMatch(/^ops\tyes\t-\t/m)
    // No server ever ran here: the link is on the default URL, and a warning says so.
    const link = await runCli(["users", "reset-link", "ops", "--data-dir", dataDir], { env, cwd })
    expect(link.stdout.trim()).toMatch(/^http:\/\/localhost:4533\/reset-password\/[A-Za-z0-9_-]{43}$/)
    expect(link.stderr).toContain("TONEARM_PUBLIC_URL")
  }, 180_000)
})
