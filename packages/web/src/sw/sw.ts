/**
 * Tonearm's service worker (served as `/sw.js`; vite.config.ts bundles it and writes in the build's file list).
 *
 * - App shell: every file of the build is cached at install. Page loads go to the network first and fall back to
 *   the cached `index.html` when it fails or takes over 4 s (a flaky network still opens the app); hashed assets
 *   are answered from the cache first.
 * - Updates: a new build's worker takes over at once (skipWaiting + clients.claim) and deletes the old shell; the
 *   page shows a "new version — reload" notice when its controller changes (state/offline.ts).
 * - Downloads: tracks saved by "Download for offline" are answered from Cache Storage, online or not, Range
 *   requests sliced into 206 answers; their album or playlist JSON and cover go to the network first and fall back
 *   to the saved copy. Nothing else under /api or /rest is cached, nor even passed through (the worker leaves
 *   what it does not keep to the browser), except while a freshly woken worker reads its list of downloads.
 */
import { DOWNLOADS_CACHE, isAppPage, isStreamPath, rangeAnswer, SHELL_CACHE_PREFIX } from "./rules.js"

// The service-worker API, typed here: the app's tsconfig has the DOM library, which lacks it.
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void
}
interface FetchEvent extends ExtendableEvent {
  readonly request: Request
  respondWith(response: Response | Promise<Response>): void
}
interface MessageEventWithPorts extends ExtendableEvent {
  readonly data: unknown
  readonly ports: ReadonlyArray<MessagePort>
}
interface WorkerScope {
  skipWaiting(): Promise<void>
  readonly clients: { claim(): Promise<void> }
  readonly location: Location
  addEventListener(type: "install" | "activate", listener: (event: ExtendableEvent) => void): void
  addEventListener(type: "fetch", listener: (event: FetchEvent) => void): void
  addEventListener(type: "message", listener: (event: MessageEventWithPorts) => void): void
}
const scope = globalThis as unknown as WorkerScope

// Replaced at build time by vite.config.ts (the build fails if they are not).
const VERSION: string = "__TONEARM_VERSION__"
const PRECACHE: ReadonlyArray<string> = JSON.parse("__TONEARM_PRECACHE__") as ReadonlyArray<string>

const SHELL = `${SHELL_CACHE_PREFIX}${VERSION}`
const PRECACHED = new Set(PRECACHE)
const NAVIGATION_TIMEOUT_MS = 4000

scope.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(SHELL)
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => scope.skipWaiting()),
  )
})

scope.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => name.startsWith(SHELL_CACHE_PREFIX) && name !== SHELL)
            .map((name) => caches.delete(name)),
        ),
      )
      .then(() => scope.clients.claim()),
  )
})

// What has been downloaded, known synchronously: a fetch handler must decide at once whether it answers. Until
// the list is read (the request that woke the worker), downloadable requests are answered after reading it.
let streams = new Set<string>()
let saved = new Set<string>()
let loaded = false
const refresh = async () => {
  const keys = await caches.open(DOWNLOADS_CACHE).then((cache) => cache.keys())
  const urls = keys.map((request) => new URL(request.url))
  streams = new Set(urls.filter((url) => isStreamPath(url.pathname)).map((url) => url.pathname))
  saved = new Set(urls.map((url) => url.pathname + url.search))
  loaded = true
}
let ready = refresh()
const DOWNLOADABLE_JSON = /^\/api\/(?:albums|playlists)\//

// The page says a download was added or removed; the answer on the port says the worker knows it.
// A page asks whether its entry script is this build's: a page loaded before the update is not (it shows "reload").
scope.addEventListener("message", (event) => {
  const data = event.data as { type?: unknown; path?: unknown } | null
  if (data?.type === "is-current") {
    event.ports[0]?.postMessage(typeof data.path === "string" && PRECACHED.has(data.path))
    return
  }
  if (data?.type !== "downloads-changed") return
  ready = refresh()
  event.waitUntil(ready.then(() => event.ports[0]?.postMessage("ok")))
})

const sliced = async (cached: Response, range: string | null): Promise<Response> => {
  const body = await cached.blob()
  const answer = rangeAnswer(range, body.size)
  const headers = new Headers(answer.headers)
  const type = cached.headers.get("content-type")
  if (type !== null) headers.set("content-type", type)
  if (answer.status === 416) return new Response(null, { status: 416, headers })
  if (answer.status === 206)
    return new Response(body.slice(answer.start, answer.end + 1), {
      status: 206,
      statusText: "Partial Content",
      headers,
    })
  return new Response(body, { status: 200, headers })
}

/** A downloaded track: the saved bytes; another format of it goes to the network, and offline to what is saved. */
const downloadedTrack = async (request: Request): Promise<Response> => {
  await ready
  if (!streams.has(new URL(request.url).pathname)) return fetch(request)
  const cache = await caches.open(DOWNLOADS_CACHE)
  const exact = await cache.match(request.url)
  if (exact !== undefined) return sliced(exact, request.headers.get("range"))
  try {
    return await fetch(request)
  } catch (error) {
    const any = await cache.match(request.url, { ignoreSearch: true })
    if (any === undefined) throw error
    return sliced(any, request.headers.get("range"))
  }
}

/** A downloaded album's or playlist's JSON or cover: fresh from the network, the saved copy when that fails. */
const savedCopy = async (request: Request): Promise<Response> => {
  await ready
  const url = new URL(request.url)
  if (!saved.has(url.pathname + url.search)) return fetch(request)
  try {
    const response = await fetch(request)
    if (response.status < 500) return response
    return (await caches.match(request.url, { cacheName: DOWNLOADS_CACHE })) ?? response
  } catch (error) {
    const cached = await caches.match(request.url, { cacheName: DOWNLOADS_CACHE })
    if (cached === undefined) throw error
    return cached
  }
}

const withTimeout = <A>(promise: Promise<A>, ms: number) =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timed out")), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })

/** A page load: the network's index.html (a new build shows at once), else the cached one. */
const appPage = async (request: Request): Promise<Response> => {
  const cached = caches.match("/index.html", { cacheName: SHELL })
  try {
    const response = await withTimeout(fetch(request), NAVIGATION_TIMEOUT_MS)
    if (response.status < 500) return response
    return (await cached) ?? response
  } catch (error) {
    const shell = await cached
    if (shell === undefined) throw error
    return shell
  }
}

const shellFile = async (request: Request): Promise<Response> =>
  (await caches.match(request, { cacheName: SHELL })) ?? fetch(request)

scope.addEventListener("fetch", (event) => {
  const request = event.request
  if (request.method !== "GET") return
  const url = new URL(request.url)
  if (url.origin !== scope.location.origin) return
  if (isStreamPath(url.pathname)) {
    if (!loaded || streams.has(url.pathname)) event.respondWith(downloadedTrack(request))
    return
  }
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/rest/")) {
    if (saved.has(url.pathname + url.search) || (!loaded && DOWNLOADABLE_JSON.test(url.pathname)))
      event.respondWith(savedCopy(request))
    return
  }
  if (request.mode === "navigate") {
    if (isAppPage(url.pathname)) event.respondWith(appPage(request))
    return
  }
  if (url.pathname.startsWith("/assets/") || PRECACHED.has(url.pathname)) event.respondWith(shellFile(request))
})
