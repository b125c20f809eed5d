import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SHIPPED_TUNING } from "@tonearm/core"
import { Either } from "effect"
import { parseAssignments, parseCurve } from "../src/actions/tuning.js"
import { bin, cleanEnv, node, root, run, type Served, serve } from "./support/served.js"

/** One `tonearm serve` for every command that talks to a running server (it takes a while to start). */
let served: Served

beforeAll(async () => {
  served = await serve()
}, 120_000)

afterAll(() => served?.stop(), 30_000)

describe("tonearm rebuild", () => {
  it("--user NAME rebuilds that user on the running server (worker engine under tsx) and prints a summary", async () => {
    const { stdout, stderr } = await served.command(["rebuild", "--user", "listener"])
    expect(stdout).toMatch(/^rebuilt 1 of 1 users in \d+\.\d s$/m)
    // On a pipe the progress is one line per 10 %, not a redrawn bar.
    expect(stderr).not.toContain("\r")
    expect(stderr).toContain("100% rebuilt 1/1 users")
    const playlists = (await (
      await served.api("GET", "/api/playlists", undefined, served.listenerToken)
    ).json()) as Array<{
      system_variant: string | null
    }>
    expect(playlists.some((playlist) => playlist.system_variant === "for_you")).toBe(true)
  }, 90_000)

  it("--all --json prints the finished run as JSON", async () => {
    const { stdout } = await served.command(["rebuild", "--all", "--json"])
    const runOf = JSON.parse(stdout) as Record<string, unknown>
    expect(runOf).toMatchObject({ state: "done", total: 2, done: 2, failed: 0 })
    expect(typeof runOf.id).toBe("string")
    expect(typeof runOf.finished_at).toBe("string")
  }, 90_000)

  it("refuses both or neither of --user and --all, an unknown user and a non-admin token, exit 1", async () => {
    for (const args of [[], ["--all", "--user", "listener"]]) {
      const result = await served.failing(["rebuild", ...args])
      expect(result.code).toBe(1)
      expect(result.stderr).toContain("exactly one of --user NAME or --all")
    }
    const unknown = await served.failing(["rebuild", "--user", "nobody"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("no user named nobody")
    const forbidden = await served.failing(["rebuild", "--all"], served.listenerToken)
    expect(forbidden.code).toBe(1)
    expect(forbidden.stderr).toContain("user listener is not an admin")
  }, 90_000)
})

describe("tonearm tuning", () => {
  it("FIELD=VALUE assignments: numbers parsed, completion_curve as x:y pairs or JSON, malformed ones refused", () => {
    expect(parseAssignments(["taste_weight=1.2", "novelty_weight=0"])).toEqual(
      Either.right({ taste_weight: 1.2, novelty_weight: 0 }),
    )
    const curve = [
      { x: 0, y: -1 },
      { x: 0.25, y: -0.4 },
      { x: 1, y: 1 },
    ]
    expect(parseAssignments(["completion_curve=0:-1,0.25:-0.4,1:1"])).toEqual(Either.right({ completion_curve: curve }))
    expect(parseCurve(JSON.stringify(curve))).toEqual(Either.right(curve))
    expect(Either.isLeft(parseAssignments(["taste_weight"]))).toBe(true)
    expect(Either.isLeft(parseCurve("0:-1,0.5"))).toBe(true)
    expect(parseAssignments(["taste_weight=high"])).toEqual(Either.right({ taste_weight: "high" }))
  })

  it("tuning --help lists get, set, reset and audit", async () => {
    const { stdout } = await run(node, [bin, "tuning", "--help"], { cwd: root, env: cleanEnv() })
    expect(stdout).toMatch(/get[\s\S]*set[\s\S]*reset[\s\S]*audit/)
  })

  it("tuning get prints every scope as a table, one scope with SCOPE, and the API's JSON with --json", async () => {
    const table = (await served.command(["tuning", "get"])).stdout
    expect(table.split("\n")[0]).toMatch(/^scope\s+field\s+current\s+shipped\s+tuned$/)
    expect(table).toMatch(/^daily_mix\s+taste_weight\s+1\.5\s+1\.5\s*$/m)
    expect(table).toMatch(/^taste\s+completion_curve\s+0:-1,0\.25:-0\.4,0\.6:0\.3,0\.9:0\.9,1:1\s/m)
    const one = (await served.command(["tuning", "get", "discovery"])).stdout
    expect(one).toMatch(/^discovery\s+snooze_days\s+90\s+90/m)
    expect(one).not.toMatch(/^radio/m)
    const json = JSON.parse((await served.command(["tuning", "get", "--json"])).stdout)
    expect(json.scopes.radio).toEqual({ current: SHIPPED_TUNING.radio, shipped: SHIPPED_TUNING.radio })
  })

  it("tuning set changes fields live through the server and the change is audited", async () => {
    const { stdout } = await served.command(["tuning", "set", "radio", "taste_weight=2", "like_weight=0.75"])
    expect(stdout).toMatch(/^radio\s+taste_weight\s+2\s+1\s+\*$/m)
    expect(stdout).toMatch(/^radio\s+like_weight\s+0\.75\s+0\.5\s+\*$/m)
    const curve = await served.command(["tuning", "set", "taste", "completion_curve=0:-1,0.5:0,1:1", "--json"])
    expect(JSON.parse(curve.stdout).current.completion_curve).toEqual([
      { x: 0, y: -1 },
      { x: 0.5, y: 0 },
      { x: 1, y: 1 },
    ])
    const view = (await (await served.api("GET", "/api/admin/recommendation-tuning")).json()) as {
      scopes: { radio: { current: { taste_weight: number } } }
    }
    expect(view.scopes.radio.current.taste_weight).toBe(2)
    const audit = (await served.command(["tuning", "audit"])).stdout.split("\n")
    expect(audit[0]).toMatch(/^changed_at\s+scope\s+changed_by\s+changes\s+id$/)
    expect(audit[1]).toMatch(/\staste\s.*completion_curve 0:-1,0\.25:-0\.4,0\.6:0\.3,0\.9:0\.9,1:1 -> 0:-1,0\.5:0,1:1/)
    expect(audit[2]).toMatch(/\sradio\s.*taste_weight 1 -> 2; like_weight 0\.5 -> 0\.75/)
    const json = JSON.parse((await served.command(["tuning", "audit", "--json"])).stdout)
    expect(json.map((row: { scope: string }) => row.scope)).toEqual(["taste", "radio"])
  })

  it("a refused change prints the server's message and exits 1; nothing changes", async () => {
    const before = (await served.command(["tuning", "audit", "--json"])).stdout
    const outOfRange = await served.failing(["tuning", "set", "radio", "taste_weight=9"])
    expect(outOfRange.code).toBe(1)
    expect(outOfRange.stderr).toContain(
      "invalid radio tuning: taste_weight: Expected a number between 0 and 5, actual 9",
    )
    const unknown = await served.failing(["tuning", "set", "taste", "bogus=1"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("bogus")
    const unordered = await served.failing(["tuning", "set", "taste", "completion_curve=0:-1,0.6:0.3,0.25:0,1:1"])
    expect(unordered.code).toBe(1)
    expect(unordered.stderr).toContain("completion_curve x values must be strictly increasing")
    const scope = await served.failing(["tuning", "set", "jukebox", "taste_weight=1"])
    expect(scope.code).toBe(1)
    expect(scope.stderr).toContain("unknown scope jukebox")
    const syntax = await served.failing(["tuning", "set", "radio", "taste_weight"])
    expect(syntax.code).toBe(1)
    expect(syntax.stderr).toContain("is not FIELD=VALUE")
    expect((await served.command(["tuning", "audit", "--json"])).stdout).toBe(before)
  })

  it("tuning reset restores the shipped values; a non-admin token is refused with exit 1", async () => {
    const { stdout } = await served.command(["tuning", "reset", "radio", "--json"])
    expect(JSON.parse(stdout)).toEqual({ scope: "radio", current: SHIPPED_TUNING.radio, shipped: SHIPPED_TUNING.radio })
    const table = (await served.command(["tuning", "reset", "taste"])).stdout
    expect(table).toMatch(/^taste\s+half_life_days\s+45\s+45\s*$/m)
    const refused = await served.failing(["tuning", "get"], served.listenerToken)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/forbidden|admin/i)
  })
})
