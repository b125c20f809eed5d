import { effect, signal } from "@preact/signals"
import { trackStreamUrl } from "@tonearm/client-sdk"
import type { Track } from "@tonearm/core"
import { isApiError } from "./api.js"
import { firstChoice, streamOptions } from "./playbackFormat.js"
import { type SignedInUser, session } from "./session.js"

/**
 * Installable and offline-tolerant (issue 25 item 3): the service worker's registration and update notice, the
 * network state, the signed-in user remembered for an offline start, and "Download for offline" (Cache Storage,
 * answered by the service worker in src/sw/sw.ts).
 */

/** The service worker's downloads cache (src/sw/rules.ts names it too: the worker shares no module with the app). */
const DOWNLOADS_CACHE = "tonearm-downloads"

// ---- network state and updates ---------------------------------------------------------------------------------

export const online = signal(navigator.onLine)
addEventListener("online", () => (online.value = true))
addEventListener("offline", () => (online.value = false))

/** A new build's worker took over this page: its code is the old build's until a reload. */
export const updateReady = signal(false)

export const registerServiceWorker = () => {
  if (!("serviceWorker" in navigator)) return
  // The first install also takes control (clients.claim): that is no update. Nor is a new worker whose build this
  // page already runs (loaded from the network before the worker was replaced): it knows this page's entry script.
  const controlled = navigator.serviceWorker.controller !== null
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    const worker = navigator.serviceWorker.controller
    if (!controlled || worker === null) return
    const entry = document.querySelector<HTMLScriptElement>("script[type=module][src]")?.src
    const channel = new MessageChannel()
    channel.port1.onmessage = (event) => {
      if (event.data !== true) updateReady.value = true
    }
    worker.postMessage({ type: "is-current", path: entry === undefined ? "" : new URL(entry).pathname }, [
      channel.port2,
    ])
  })
  // After the page's own loading: the install precaches the whole build.
  const register = () => void navigator.serviceWorker.register("/sw.js").catch(() => undefined)
  if (document.readyState === "complete") register()
  else addEventListener("load", register, { once: true })
}

// ---- the session, offline ---------------------------------------------------------------------------------------

const SESSION_KEY = "tonearm.session"

effect(() => {
  const user = session.value
  if (user) localStorage.setItem(SESSION_KEY, JSON.stringify(user))
  else if (user === null) localStorage.removeItem(SESSION_KEY)
})

/**
 * Who is signed in when the session check fails: the last user seen in this browser if the server could not be
 * reached (offline, the app opens on its downloads; the server still checks every request), else nobody.
 */
export const sessionAfterFailure = (error: unknown): SignedInUser | null => {
  const unreachable =
    !isApiError(error) || error._tag === "RequestError" || error._tag === "ResponseError" || error._tag === "Internal"
  if (!unreachable) return null
  try {
    const stored = JSON.parse(localStorage.getItem(SESSION_KEY) ?? "null") as SignedInUser | null
    return stored !== null && typeof stored.id === "string" && typeof stored.username === "string" ? stored : null
  } catch {
    return null
  }
}

// ---- downloads --------------------------------------------------------------------------------------------------

/** One downloaded album or playlist: every URL saved for it (tracks, its JSON, its cover). */
export interface Download {
  readonly title: string
  /** Its page in the app (`/albums/<id>`, `/playlists/<id>`). */
  readonly href: string
  readonly tracks: number
  readonly urls: ReadonlyArray<string>
  readonly at: string
}

const DOWNLOADS_KEY = "tonearm.downloads"
const readDownloads = (): Record<string, Download> => {
  try {
    return JSON.parse(localStorage.getItem(DOWNLOADS_KEY) ?? "{}") as Record<string, Download>
  } catch {
    return {}
  }
}

/** By key (`album:<id>`, `playlist:<id>`): what is downloaded, what is downloading, what failed. */
export const downloads = signal<Readonly<Record<string, Download>>>(readDownloads())
export const downloading = signal<Readonly<Record<string, { readonly done: number; readonly total: number }>>>({})
export const downloadErrors = signal<Readonly<Record<string, string>>>({})

const setEntry = <A>(map: Readonly<Record<string, A>>, key: string, value: A | undefined) => {
  const { [key]: _, ...rest } = map
  return value === undefined ? rest : { ...rest, [key]: value }
}

const probe = document.createElement("audio")
const canPlay = (mime: string) => probe.canPlayType(mime) !== ""

/** The address the player asks for this track (the same format choice), so the saved bytes are what it plays. */
export const downloadUrl = (track: Track) =>
  trackStreamUrl(track.id, "", streamOptions(firstChoice(track.file_format, canPlay)))

/** Whether every track of this list is saved (a playlist that grew since shows the download button again). */
export const isDownloaded = (key: string, tracks: ReadonlyArray<Track>) => {
  const saved = downloads.value[key]
  if (saved === undefined) return false
  const urls = new Set(saved.urls)
  return tracks.every((track) => urls.has(downloadUrl(track)))
}

/** Tells the service worker its list of downloads changed, and waits (briefly) until it has read it again. */
const tellWorker = async () => {
  const worker = navigator.serviceWorker?.controller
  if (!worker) return
  const channel = new MessageChannel()
  const answered = new Promise((resolve) => {
    channel.port1.onmessage = resolve
  })
  worker.postMessage({ type: "downloads-changed" }, [channel.port2])
  await Promise.race([answered, new Promise((resolve) => setTimeout(resolve, 3000))])
}

/** A JSON answer or an image, saved with its type only (the fetch already undid any Content-Encoding). */
const savable = async (response: Response) =>
  new Response(await response.blob(), {
    headers: { "content-type": response.headers.get("content-type") ?? "application/octet-stream" },
  })

/**
 * Saves every track of an album or playlist (two at a time), then its JSON and cover (`extra`), into Cache
 * Storage. A track already saved by another download is not fetched again.
 */
export const download = async (item: {
  readonly key: string
  readonly title: string
  readonly href: string
  readonly tracks: ReadonlyArray<Track>
  readonly extra: ReadonlyArray<string>
}) => {
  const { key, title, href, tracks, extra } = item
  if (downloading.value[key] !== undefined) return
  const urls = [...new Set(tracks.map(downloadUrl))]
  downloadErrors.value = setEntry(downloadErrors.value, key, undefined)
  downloading.value = setEntry(downloading.value, key, { done: 0, total: urls.length })
  // Ask the browser not to evict downloads under storage pressure (granted silently to installed apps).
  void navigator.storage?.persist?.().catch(() => undefined)
  try {
    const cache = await caches.open(DOWNLOADS_CACHE)
    const pending = [...urls]
    let done = 0
    const worker = async () => {
      for (let url = pending.shift(); url !== undefined; url = pending.shift()) {
        if ((await cache.match(url)) === undefined) {
          const response = await fetch(url)
          if (!response.ok) throw new Error(`a track could not be downloaded (${response.status})`)
          await cache.put(url, response)
        }
        done++
        downloading.value = setEntry(downloading.value, key, { done, total: urls.length })
      }
    }
    await Promise.all([worker(), worker()])
    // The page's JSON and cover: what is missing (a playlist with no cover yet) is left out, not an error.
    const saved: Array<string> = []
    for (const url of extra) {
      const response = await fetch(url)
      if (!response.ok) continue
      await cache.put(url, await savable(response))
      saved.push(url)
    }
    downloads.value = setEntry(downloads.value, key, {
      title,
      href,
      tracks: urls.length,
      urls: [...urls, ...saved],
      at: new Date().toISOString(),
    })
    localStorage.setItem(DOWNLOADS_KEY, JSON.stringify(downloads.value))
    await tellWorker()
  } catch (error) {
    downloadErrors.value = setEntry(downloadErrors.value, key, error instanceof Error ? error.message : String(error))
  } finally {
    downloading.value = setEntry(downloading.value, key, undefined)
  }
}

/** Deletes what this download saved, except what another download still needs (a track in two playlists). */
export const removeDownload = async (key: string) => {
  const saved = downloads.value[key]
  if (saved === undefined) return
  const rest = setEntry(downloads.value, key, undefined)
  const kept = new Set(Object.values(rest).flatMap((other) => other.urls))
  const cache = await caches.open(DOWNLOADS_CACHE)
  await Promise.all(saved.urls.filter((url) => !kept.has(url)).map((url) => cache.delete(url)))
  downloads.value = rest
  localStorage.setItem(DOWNLOADS_KEY, JSON.stringify(rest))
  await tellWorker()
}
