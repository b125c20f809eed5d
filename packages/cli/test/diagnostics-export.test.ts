import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Served, serve } from "./support/served.js"

let served: Served
let listenerId = ""

/** Debug mode on for the listener, then 7 events from two devices. */
beforeAll(async () => {
  served = await serve()
  const users = (await (await served.api("GET", "/api/admin/users")).json()) as Array<{ id: string; username: string }>
  listenerId = users.find((user) => user.username === "listener")!.id
  await served.api("PUT", `/api/admin/users/${listenerId}/debug-mode`, { enabled: true })
  const events = [
    {
      kind: "playback",
      device_id: "pixel",
      occurred_at: "2026-11-24T10:00:00Z",
      data: { note: 'says "hi", then, leaves' },
    },
    { kind: "upnp_sync", device_id: "pixel", occurred_at: "2026-11-24T10:01:00Z", data: {} },
    { kind: "power", device_id: "tablet", occurred_at: "2026-11-24T10:02:00Z", data: { battery: 9 } },
    { kind: "playback", device_id: "tablet", occurred_at: "2026-11-24T10:03:00Z", data: {} },
    { kind: "lifecycle", device_id: "pixel", occurred_at: "2026-11-24T10:04:00Z", data: {} },
    { kind: "connectivity", device_id: "pixel", occurred_at: "2026-11-24T10:05:00Z", data: {} },
    { kind: "playback", device_id: "pixel", occurred_at: Date.parse("2026-11-24T10:06:00Z"), data: {} },
  ]
  const posted = await served.api("POST", "/api/diagnostics", { events }, served.listenerToken)
  expect(posted.status).toBe(202)
}, 120_000)

afterAll(() => served?.stop(), 30_000)

describe("tonearm diagnostics export", () => {
  it("streams every event oldest first as NDJSON to stdout, with a progress line on stderr", async () => {
    const { stdout, stderr } = await served.command(["diagnostics", "export"])
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines).toHaveLength(7)
    expect(lines[0]).toMatchObject({
      kind: "playback",
      device_id: "pixel",
      username: "listener",
      user_id: listenerId,
      occurred_at: "2026-11-24T10:00:00.000Z",
      data: { note: 'says "hi", then, leaves' },
    })
    expect(lines.map((line) => line.occurred_at)).toEqual([...lines.map((line) => line.occurred_at)].sort())
    expect(stderr).toContain("exported 7 events")
  }, 90_000)

  it("filters by --user (name), --device, --kind and a --from/--to window in RFC 3339 or epoch ms", async () => {
    const byDevice = await served.command(["diagnostics", "export", "--user", "listener", "--device", "tablet"])
    expect(byDevice.stdout.trim().split("\n")).toHaveLength(2)
    const byKind = await served.command(["diagnostics", "export", "--kind", "playback"])
    expect(byKind.stdout.trim().split("\n")).toHaveLength(3)
    const window = await served.command([
      "diagnostics",
      "export",
      "--from",
      "2026-11-24T10:01:00Z",
      "--to",
      String(Date.parse("2026-11-24T10:03:00Z")),
    ])
    expect(
      window.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { kind: string }).kind),
    ).toEqual(["upnp_sync", "power", "playback"])
    const byId = await served.command(["diagnostics", "export", "--user", listenerId, "--kind", "power"])
    expect(byId.stdout.trim().split("\n")).toHaveLength(1)
  }, 90_000)

  it("--format csv -o FILE writes a header and RFC 4180 rows to the file", async () => {
    const file = path.join(served.dataDir, "export.csv")
    const { stdout } = await served.command(["diagnostics", "export", "--format", "csv", "-o", file])
    expect(stdout).toBe("")
    const rows = fs.readFileSync(file, "utf8").trimEnd().split("\n")
    expect(rows[0]).toBe("id,occurred_at,received_at,user_id,username,device_id,kind,data")
    expect(rows).toHaveLength(8)
    expect(rows[1]).toContain(',listener,pixel,playback,"{""note"":""says \\""hi\\"", then, leaves""}"')
  }, 90_000)

  it("refuses a bad format, a bad time, an unknown kind or user and a non-admin, exit 1", async () => {
    const cases: Array<[Array<string>, string]> = [
      [["--format", "xml"], "--format must be ndjson or csv"],
      [["--from", "yesterday"], "--from must be RFC 3339 text or epoch milliseconds"],
      [["--kind", "telepathy"], "unknown diagnostic kind"],
      [["--user", "nobody"], "no user named nobody"],
    ]
    for (const [args, message] of cases) {
      const result = await served.failing(["diagnostics", "export", ...args])
      expect(result.code, args.join(" ")).toBe(1)
      expect(result.stderr).toContain(message)
    }
    const forbidden = await served.failing(["diagnostics", "export"], served.listenerToken)
    expect(forbidden.code).toBe(1)
    expect(forbidden.stderr).toContain("user listener is not an admin")
  }, 90_000)
})
