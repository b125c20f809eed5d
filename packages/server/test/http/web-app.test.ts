import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { webDirCandidates } from "../../src/http/webApp.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

/** A stand-in build of packages/web: the routes are what is tested here, the real app in packages/web/test/e2e. */
const dist = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-web-dist-"))
fs.mkdirSync(path.join(dist, "assets"))
fs.writeFileSync(
  path.join(dist, "index.html"),
  '<!doctype html><div id="app"></div><script type="module" src="/assets/index-abc123.js"></script>',
)
fs.writeFileSync(path.join(dist, "assets", "index-abc123.js"), "console.log('tonearm')")
fs.writeFileSync(path.join(dist, "robots.txt"), "User-agent: *\n")
process.env.TONEARM_WEB_DIR = dist
// Workers run file after file in one process: the next file must find the real build again.
afterAll(() => {
  delete process.env.TONEARM_WEB_DIR
})

const get = (url: string, accept = "text/html") => Effect.promise(() => fetch(url, { headers: { accept } }))

layer(TestServerLive(), { excludeTestServices: true })("the web app at /", (it) => {
  it.effect("serves index.html at / with no-cache, and hashed assets immutable", () =>
    Effect.gen(function* () {
      const url = yield* serverUrl
      const index = yield* get(`${url}/`)
      expect(index.status).toBe(200)
      expect(index.headers.get("cache-control")).toBe("no-cache")
      expect(yield* Effect.promise(() => index.text())).toContain('<div id="app">')
      const asset = yield* get(`${url}/assets/index-abc123.js`, "*/*")
      expect(asset.status).toBe(200)
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(asset.headers.get("content-type")).toContain("text/javascript")
      const robots = yield* get(`${url}/robots.txt`, "*/*")
      expect(robots.headers.get("cache-control")).toBe("no-cache")
    }),
  )

  it.effect("SPA fallback: a page address (Accept text/html) gets index.html, deep links and query included", () =>
    Effect.gen(function* () {
      const url = yield* serverUrl
      for (const page of ["/albums/123", "/albums?genre=Rock%2FPop", "/playlists/x/y", "/sessions"]) {
        const response = yield* get(`${url}${page}`)
        expect(response.status, page).toBe(200)
        expect(yield* Effect.promise(() => response.text())).toContain('<div id="app">')
      }
    }),
  )

  it.effect("/api, /rest, /docs and missing files keep their own answers: the JSON 404 envelope, never the app", () =>
    Effect.gen(function* () {
      const url = yield* serverUrl
      for (const miss of [
        "/api/nothing",
        "/api/albums/x/nothing",
        "/healthz/x",
        "/docs/x",
        "/openapi.json/x",
        "/assets/gone-1.js",
        "/favicon.ico",
      ]) {
        const response = yield* get(`${url}${miss}`)
        expect(response.status, miss).toBe(404)
        expect(yield* Effect.promise(() => response.json()), miss).toMatchObject({ error: { code: "not_found" } })
      }
      // Subsonic answers its own way under /rest, never with the app.
      const rest = yield* get(`${url}/rest/nothing`)
      expect(yield* Effect.promise(() => rest.text())).not.toContain('<div id="app">')
      // Not a page load (no text/html): a JSON client keeps the 404 envelope.
      const json = yield* get(`${url}/albums/123`, "application/json")
      expect(json.status).toBe(404)
      // A malformed escape is a 404, not a failure.
      const malformed = yield* get(`${url}/assets/%E0%A4%A.js`, "*/*")
      expect(malformed.status).toBe(404)
      // Traversal out of the build directory finds nothing.
      const traversal = yield* get(`${url}/assets/..%2f..%2f..%2fetc%2fpasswd`, "*/*")
      expect(traversal.status).toBe(404)
      // The server's own pages are untouched.
      const docs = yield* get(`${url}/docs`)
      expect(yield* Effect.promise(() => docs.text())).toContain("swagger")
      const forgot = yield* get(`${url}/forgot-password`)
      expect(yield* Effect.promise(() => forgot.text())).toContain("Reset your password")
      const health = yield* get(`${url}/healthz`, "application/json")
      expect(health.status).toBe(200)
    }),
  )

  it("finds the build next to the sources, or next to the bundled command", () => {
    const fromSource = webDirCandidates("/repo/packages/server/src/http")
    expect(fromSource[0]).toBe("/repo/packages/web/dist")
    const bundled = webDirCandidates("/usr/lib/node_modules/tonearm/dist")
    expect(bundled).toContain("/usr/lib/node_modules/tonearm/dist/web")
  })
})
