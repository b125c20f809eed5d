import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { HttpApiBuilder, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Config, Effect, Option } from "effect"

/**
 * The web player (packages/web) at `/`: its built files, and `index.html` for every other page address so a
 * deep link or a reload lands in the app (an SPA fallback). Hashed `/assets/*` never change under one name and
 * are cached for a year; `index.html` is revalidated on every load so a new build is picked up at once.
 */

/** Paths that are never the app's: the API, Subsonic, the docs, health, the server's own account pages. */
const NOT_THE_APP = /^\/(?:api|rest|docs|openapi\.json|healthz|forgot-password|reset-password)(?:[/.?]|$)/

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".webmanifest": "application/manifest+json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json",
}

const IMMUTABLE = "public, max-age=31536000, immutable"

/**
 * Where the built app is: `TONEARM_WEB_DIR`, else `packages/web/dist` when running from the sources, else
 * `web/` next to the bundled command (packages/cli copies it to dist/web).
 */
export const webDirCandidates = (here: string = path.dirname(fileURLToPath(import.meta.url))) => [
  path.resolve(here, "../../../web/dist"),
  path.resolve(here, "web"),
  path.resolve(here, "../web"),
]

const WebDir = Config.option(Config.string("TONEARM_WEB_DIR")).pipe(
  Config.map(Option.getOrElse(() => webDirCandidates().find((dir) => fs.existsSync(path.join(dir, "index.html"))))),
)

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tonearm</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}</style></head>
<body><h1>Tonearm is running</h1>
<p>The web player is not built. From the repository run <code>pnpm --filter @tonearm/web build</code>
(<code>pnpm tonearm serve</code> builds it for you), then reload this page.</p>
<p>The API is at <a href="/docs">/docs</a>.</p></body></html>`

const notFound = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  Effect.fail(new HttpServerError.RouteNotFound({ request })),
)

export const WebAppLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const dir = yield* WebDir
    const root = dir === undefined ? undefined : path.resolve(dir)
    const assetCache = new Map<string, Uint8Array>()
    const indexHtml = () =>
      root === undefined || !fs.existsSync(path.join(root, "index.html"))
        ? HttpServerResponse.html(NOT_BUILT).pipe(HttpServerResponse.setHeader("cache-control", "no-cache"))
        : HttpServerResponse.html(fs.readFileSync(path.join(root, "index.html"), "utf8")).pipe(
            HttpServerResponse.setHeader("cache-control", "no-cache"),
          )

    const serve = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const raw = new URL(request.url, "http://localhost").pathname
      let pathname: string
      try {
        pathname = decodeURIComponent(raw)
      } catch {
        return yield* notFound // a malformed %-escape names no file and no page
      }
      if (NOT_THE_APP.test(pathname)) return yield* notFound
      if (root !== undefined && pathname !== "/") {
        const file = path.resolve(root, `.${pathname}`)
        if (file.startsWith(root + path.sep)) {
          const stat = fs.statSync(file, { throwIfNoEntry: false })
          if (stat?.isFile()) {
            const type = CONTENT_TYPES[path.extname(file)] ?? "application/octet-stream"
            const cache = pathname.startsWith("/assets/") ? IMMUTABLE : "no-cache"
            // Hashed assets never change under one name: read once, then answered from memory (the whole
            // build is well under a megabyte). Other files are read on each request.
            const bytes = pathname.startsWith("/assets/")
              ? (assetCache.get(file) ?? assetCache.set(file, fs.readFileSync(file)).get(file)!)
              : fs.readFileSync(file)
            return HttpServerResponse.uint8Array(bytes, { contentType: type }).pipe(
              HttpServerResponse.setHeader("cache-control", cache),
            )
          }
        }
        // A missing asset or file is a plain 404, never the app (a stale chunk must fail loudly, not parse HTML).
        if (pathname.startsWith("/assets/") || path.extname(pathname) !== "") return yield* notFound
      }
      // Only a page load gets the app; anything else (fetch of JSON, curl without Accept) keeps the JSON 404.
      const accept = request.headers.accept ?? ""
      if (pathname !== "/" && !accept.includes("text/html")) return yield* notFound
      return indexHtml()
    })
    yield* router.get("/", serve)
    yield* router.get("/*", serve)
  }),
)
