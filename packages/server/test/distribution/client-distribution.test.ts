import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TonearmConfig } from "../../src/config/TonearmConfig.js"
import { AdminLive, aUser } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/** A fake installer: 64 KiB of varied bytes. */
const APK = Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 31 + (i >> 8)) % 256))

const apkDir = Effect.map(TonearmConfig, (config) => config.clientApkDir)
const writeInstaller = (files: { apk?: Buffer; version?: string }) =>
  Effect.map(apkDir, (dir) => {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    if (files.apk !== undefined) fs.writeFileSync(path.join(dir, "app.apk"), files.apk)
    if (files.version !== undefined) fs.writeFileSync(path.join(dir, "version.json"), files.version)
  })

/** The build's output as the server expects it: the installer and a well-formed version sidecar. */
const goodInstaller = writeInstaller({
  apk: APK,
  version: '{"version":"1.2.3","version_code":42,"notes":"Faster start"}',
})

const get = (route: string, who: SignedIn | undefined, headers: Record<string, string> = {}) =>
  raw("GET", route, { headers, ...(who === undefined ? {} : { token: who.token }) })

/** The 60-second window passes for a user (the server's row says so). */
const windowPassed = (who: SignedIn) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE client_downloads SET started_at = started_at - interval '61 seconds' WHERE user_id = ${who.user.id}`,
  )

/** A fresh user who downloaded the installer once: inside their 60-second window. */
const aUserWhoDownloaded = (name: string) =>
  Effect.gen(function* () {
    const who = yield* aUser(name)
    expect((yield* get("/api/client/apk", who)).status).toBe(200)
    return who
  })

layer(AdminLive().pipe(Layer.provideMerge(TestServerLive())), { excludeTestServices: true, timeout: "120 seconds" })(
  "client distribution",
  (it) => {
    it.effect("404 unless both the installer and its version file exist; the 404 never counts toward the limit", () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        for (const files of [{}, { apk: APK }, { version: '{"version":"1.2.3","version_code":42}' }]) {
          yield* writeInstaller(files)
          for (const route of ["/api/client/version", "/api/client/apk"]) {
            const response = yield* get(route, alice)
            expect(response.status, `${route} ${Object.keys(files)}`).toBe(404)
            expect(response.json).toMatchObject({ error: { code: "not_found" } })
          }
        }
        // The directory itself absent.
        fs.rmSync(yield* apkDir, { recursive: true, force: true })
        expect((yield* get("/api/client/apk", alice)).status).toBe(404)
        // None of these 404s counted: with the installer in place, the first download goes through.
        yield* goodInstaller
        expect((yield* get("/api/client/apk", alice)).status).toBe(200)
      }),
    )

    it.effect("a malformed version sidecar is logged and answered 404, never a 5xx", () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        for (const version of ["{not json", '{"version":""}', '{"version":"1.0","version_code":"x"}', "[]"]) {
          yield* writeInstaller({ apk: APK, version })
          const info = yield* get("/api/client/version", alice)
          expect(info.status, version).toBe(404)
          expect((yield* get("/api/client/apk", alice)).status).toBe(404)
        }
      }),
    )

    it.effect("both routes require a signed-in user", () =>
      Effect.gen(function* () {
        yield* goodInstaller
        for (const route of ["/api/client/version", "/api/client/apk"]) {
          const response = yield* get(route, undefined)
          expect(response.status).toBe(401)
          expect(response.json).toMatchObject({ error: { code: "unauthenticated" } })
        }
      }),
    )

    it.effect(
      "GET /api/client/version reads the sidecar the build provides, with the installer's size and SHA-256",
      () =>
        Effect.gen(function* () {
          yield* goodInstaller
          const alice = yield* aUser("alice")
          const version = yield* alice.client.client.version()
          expect(version).toEqual({
            version: "1.2.3",
            version_code: 42,
            size_bytes: APK.length,
            sha256: createHash("sha256").update(APK).digest("hex"),
            notes: "Faster start",
          })
          // Version requests never touch the download limit.
          yield* alice.client.client.version()
          expect((yield* get("/api/client/apk", alice)).status).toBe(200)
        }),
    )

    it.effect("GET /api/client/apk answers the installer as application/vnd.android.package-archive", () =>
      Effect.gen(function* () {
        yield* goodInstaller
        const alice = yield* aUser("alice")
        // A HEAD first (a client checking the size) sends no bytes and does not use up the download.
        const head = yield* raw("HEAD", "/api/client/apk", { token: alice.token })
        expect(head.status).toBe(200)
        expect(head.headers.get("content-type")).toBe("application/vnd.android.package-archive")
        expect(Number(head.headers.get("content-length"))).toBe(APK.length)
        expect(head.bytes.length).toBe(0)
        const response = yield* get("/api/client/apk", alice)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toBe("application/vnd.android.package-archive")
        expect(response.headers.get("accept-ranges")).toBe("bytes")
        expect(Number(response.headers.get("content-length"))).toBe(APK.length)
        expect(Buffer.compare(response.bytes, APK)).toBe(0)
      }),
    )

    it.effect(
      "a second download by the same user within 60 s is 429 with Retry-After; other users are unaffected",
      () =>
        Effect.gen(function* () {
          yield* goodInstaller
          const alice = yield* aUserWhoDownloaded("alice")
          const bob = yield* aUser("bob")
          const again = yield* get("/api/client/apk", alice)
          expect(again.status).toBe(429)
          expect(again.json).toMatchObject({ error: { code: "rate_limited" } })
          const retryAfter = Number(again.headers.get("retry-after"))
          expect(retryAfter).toBeGreaterThanOrEqual(1)
          expect(retryAfter).toBeLessThanOrEqual(60)
          // A Range from byte 0 is a new download too.
          const fromZero = yield* get("/api/client/apk", alice, { range: "bytes=0-99" })
          expect(fromZero.status).toBe(429)
          // Bob downloads at once.
          const bobs = yield* get("/api/client/apk", bob)
          expect(bobs.status).toBe(200)
          expect(Buffer.compare(bobs.bytes, APK)).toBe(0)
        }),
    )

    it.effect("a resumed Range from a later byte is never limited, and answers 206 with the exact bytes", () =>
      Effect.gen(function* () {
        yield* goodInstaller
        const alice = yield* aUserWhoDownloaded("alice")
        // Alice is inside her window, yet may resume.
        const resumed = yield* get("/api/client/apk", alice, { range: "bytes=1000-" })
        expect(resumed.status).toBe(206)
        expect(resumed.headers.get("content-range")).toBe(`bytes 1000-${APK.length - 1}/${APK.length}`)
        expect(Buffer.compare(resumed.bytes, APK.subarray(1000))).toBe(0)
        const middle = yield* get("/api/client/apk", alice, { range: "bytes=10-19" })
        expect(middle.status).toBe(206)
        expect(Number(middle.headers.get("content-length"))).toBe(10)
        expect(Buffer.compare(middle.bytes, APK.subarray(10, 20))).toBe(0)
        // Several ranged requests on one keep-alive connection stay in step (no stray byte).
        for (let i = 0; i < 3; i++) {
          const next = yield* get("/api/client/apk", alice, { range: `bytes=${100 * (i + 1)}-${100 * (i + 1) + 9}` })
          expect(Buffer.compare(next.bytes, APK.subarray(100 * (i + 1), 100 * (i + 1) + 10))).toBe(0)
        }
        const unsatisfiable = yield* get("/api/client/apk", alice, { range: `bytes=${APK.length}-` })
        expect(unsatisfiable.status).toBe(416)
        expect(unsatisfiable.headers.get("content-range")).toBe(`bytes */${APK.length}`)
      }),
    )

    it.effect("429s and 416s neither count nor restart the window; after 60 s a new download starts", () =>
      Effect.gen(function* () {
        yield* goodInstaller
        const carol = yield* aUser("carol")
        // Carol's first attempt is unsatisfiable: it does not open a window.
        const bad = yield* get("/api/client/apk", carol, { range: `bytes=${APK.length + 5}-` })
        expect(bad.status).toBe(416)
        expect((yield* get("/api/client/apk", carol)).status).toBe(200)
        expect((yield* get("/api/client/apk", carol)).status).toBe(429)
        const sql = yield* SqlClient.SqlClient
        const [before] = yield* sql<{
          started_at: Date
        }>`SELECT started_at FROM client_downloads WHERE user_id = ${carol.user.id}`
        expect((yield* get("/api/client/apk", carol)).status).toBe(429)
        const [after] = yield* sql<{
          started_at: Date
        }>`SELECT started_at FROM client_downloads WHERE user_id = ${carol.user.id}`
        expect(after!.started_at.getTime()).toBe(before!.started_at.getTime())
        yield* windowPassed(carol)
        const fresh = yield* get("/api/client/apk", carol)
        expect(fresh.status).toBe(200)
        expect(Buffer.compare(fresh.bytes, APK)).toBe(0)
      }),
    )

    it.effect("an If-Range that no longer matches serves the whole file (and counts as a download from 0)", () =>
      Effect.gen(function* () {
        yield* goodInstaller
        const bob = yield* aUserWhoDownloaded("bob")
        yield* windowPassed(bob)
        const response = yield* get("/api/client/apk", bob, { range: "bytes=500-", "if-range": '"stale"' })
        expect(response.status).toBe(200)
        expect(response.bytes.length).toBe(APK.length)
        expect((yield* get("/api/client/apk", bob)).status).toBe(429)
      }),
    )
  },
)
