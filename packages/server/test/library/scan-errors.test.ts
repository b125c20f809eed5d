import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { ScanStatus } from "@tonearm/core"
import { Effect, Logger } from "effect"
import { ffmpeg, sineInput } from "../../fixtures/ffmpeg.js"
import { createAndLogIn, logIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-scan-errors-"))
fs.mkdirSync(path.join(root, "Band", "Album"), { recursive: true })
await ffmpeg([
  ...sineInput(1, 440),
  "-c:a",
  "libmp3lame",
  "-metadata",
  "title=Fine",
  "-metadata",
  "artist=Band",
  path.join(root, "Band", "Album", "01 Fine.mp3"),
])
/** Three files no scan can index, each for its own reason. */
const broken: Record<string, string | Buffer> = {
  "Band/Album/02 Noise.mp3": Buffer.alloc(4096, 7),
  "Band/Album/03 Empty.flac": "",
  "Band/Album/04 Letter.ogg": "Dear reader, this is not audio at all.\n".repeat(40),
}
for (const [file, content] of Object.entries(broken)) fs.writeFileSync(path.join(root, file), content)
const brokenPaths = Object.keys(broken).sort()

/** Waits until the latest scan is no longer running. */
const settled = (admin: SignedIn) =>
  Effect.gen(function* () {
    let status = yield* admin.client.scan.status()
    for (let i = 0; i < 400 && status.state === "running"; i++) {
      yield* Effect.sleep("25 millis")
      status = yield* admin.client.scan.status()
    }
    return status
  })

layer(TestServerLive({ libraryDir: root }), { excludeTestServices: true, timeout: "60 seconds" })(
  "scan errors",
  (it) => {
    it.effect("a scan names each file it could not index in the log, one warning line per file", () =>
      Effect.gen(function* () {
        const lines: Array<string> = []
        const capture = Logger.make(({ logLevel, message }) => {
          if (logLevel._tag === "Warning") lines.push((Array.isArray(message) ? message : [message]).join(" "))
        })
        const summary = yield* scanNow().pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
        expect(summary).toMatchObject({ added: 1, errors: brokenPaths.length })
        const named = lines.filter((line) => line.startsWith("scan: could not index"))
        expect(named).toHaveLength(brokenPaths.length)
        for (const file of brokenPaths) {
          const line = named.find((candidate) => candidate.includes(JSON.stringify(file)))
          expect(line, file).toBeDefined()
          expect(line!.length).toBeGreaterThan(`scan: could not index ${JSON.stringify(file)}: `.length)
        }
        expect(named.find((line) => line.includes("03 Empty.flac"))).toContain("empty file")
      }),
    )

    it.effect("GET /api/admin/scan/errors pages the files with their reasons; admins only", () =>
      Effect.gen(function* () {
        const admin = yield* signUpFirstAdmin("admin")
        const page = yield* admin.client.scan.errors({ urlParams: {} })
        expect({ ...page, items: page.items.map((item) => item.path) }).toEqual({
          items: brokenPaths,
          total: brokenPaths.length,
          offset: 0,
          limit: 50,
        })
        for (const item of page.items) {
          expect(item.message.length).toBeGreaterThan(0)
          expect(item.size_bytes).toBe(fs.statSync(path.join(root, item.path)).size)
        }
        const second = yield* admin.client.scan.errors({ urlParams: { offset: 1, limit: 1 } })
        expect({ ...second, items: second.items.map((item) => item.path) }).toEqual({
          items: [brokenPaths[1]],
          total: brokenPaths.length,
          offset: 1,
          limit: 1,
        })
        // Caps are clamps: a larger limit is served at the maximum.
        const clamped = yield* raw("GET", "/api/admin/scan/errors?limit=100000", { token: admin.token })
        expect(clamped.status).toBe(200)
        expect(clamped.json).toMatchObject({ total: brokenPaths.length, offset: 0, limit: 500 })
        const wire = (clamped.json as { items: Array<Record<string, unknown>> }).items[0]!
        expect(Object.keys(wire).sort()).toEqual(["library_id", "message", "path", "seen_at", "size_bytes"])
        expect(wire.library_id).toBe(1)
        expect(typeof wire.seen_at).toBe("string")

        const listener = yield* createAndLogIn(admin.client, "listener")
        const forbidden = yield* raw("GET", "/api/admin/scan/errors", { token: listener.token })
        expect(forbidden.status).toBe(403)
        expect(forbidden.json).toMatchObject({ error: { code: "forbidden" } })
        const anonymous = yield* raw("GET", "/api/admin/scan/errors")
        expect(anonymous.status).toBe(401)
        expect(anonymous.json).toMatchObject({ error: { code: "unauthenticated" } })
      }),
    )

    it.effect("POST /api/admin/scan with no body at all, or with {}, starts an incremental scan (202)", () =>
      Effect.gen(function* () {
        const admin = yield* logIn("admin")
        yield* settled(admin)
        const base = yield* serverUrl
        // fetch sends `content-length: 0` and no content type.
        const bare = yield* Effect.promise(async () => {
          const response = await fetch(`${base}/api/admin/scan`, {
            method: "POST",
            headers: { authorization: `Bearer ${admin.token}` },
          })
          return { status: response.status, body: await response.json() }
        })
        expect(bare).toEqual({ status: 202, body: { started: true } })
        const first = yield* settled(admin)
        expect(first).toBeInstanceOf(ScanStatus)
        expect(first.state).toBe("idle")

        const empty = yield* raw("POST", "/api/admin/scan", { token: admin.token, body: "{}" })
        expect({ status: empty.status, json: empty.json }).toEqual({ status: 202, json: { started: true } })
        expect((yield* settled(admin)).state).toBe("idle")

        // node:http without a body and without any header of its own.
        const noBody = yield* raw("POST", "/api/admin/scan", { token: admin.token })
        expect({ status: noBody.status, json: noBody.json }).toEqual({ status: 202, json: { started: true } })
        expect((yield* settled(admin)).state).toBe("idle")

        // A body that is present but not JSON is still refused.
        const junk = yield* raw("POST", "/api/admin/scan", { token: admin.token, body: "full" })
        expect(junk.status).toBe(400)
        expect(junk.json).toMatchObject({ error: { code: "invalid_request" } })
      }),
    )
  },
)
