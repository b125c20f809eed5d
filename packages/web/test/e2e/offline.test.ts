/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import type { AlbumDetail } from "@tonearm/core"
import { Effect } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  audioState,
  collectErrors,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  screenshot,
  signIn,
  slowPlayback,
  startServer,
  type WebServer,
} from "./support.js"

/** Installable and offline-tolerant (issue 25 item 3): manifest, service worker, app shell offline, downloads. */

let server: WebServer
let browser: Browser
/** An album of the fixture library whose tracks Chromium plays as they are (the download is the originals). */
let album: AlbumDetail

const PLAYABLE = new Set(["mp3", "flac", "ogg", "opus"])

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  const client = server.admin.client
  album = await server.run(
    Effect.gen(function* () {
      const page = yield* client.library.albums({ urlParams: { limit: 200 } })
      for (const ref of page.items) {
        const detail = yield* client.library.album({ path: { id: ref.id } })
        if (
          detail.tracks.length >= 2 &&
          detail.tracks.every((track) => PLAYABLE.has(track.file_format) && track.duration_ms >= 500)
        )
          return detail
      }
      throw new Error("no album of two playable tracks in the fixture library")
    }),
  )
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const VIEWPORTS = [
  { name: "phone", options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
  { name: "desktop", options: { viewport: { width: 1440, height: 900 } } },
] as const

/** Signs in and waits until the service worker has installed (the shell precached) and controls the page. */
const signedInAndControlled = async (context: BrowserContext) => {
  const page = await context.newPage()
  await signIn(page, server.url)
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 30_000 })
  return page
}

/** The paths saved in the downloads cache. */
const downloadedPaths = (page: Page) =>
  page.evaluate(async () =>
    (await (await caches.open("tonearm-downloads")).keys()).map((request) => new URL(request.url).pathname),
  )

const downloadsCacheSize = (page: Page) =>
  page.evaluate(async () => (await (await caches.open("tonearm-downloads")).keys()).length)

describe("installable web app", () => {
  it("the manifest is served with its fields and icons, and Chromium finds no manifest or installability error", async () => {
    const response = await fetch(`${server.url}/manifest.webmanifest`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toBe("application/manifest+json")
    const manifest = (await response.json()) as {
      name: string
      short_name: string
      start_url: string
      scope: string
      display: string
      theme_color: string
      background_color: string
      icons: Array<{ src: string; sizes: string; type: string; purpose: string }>
    }
    expect(manifest).toMatchObject({
      name: "Tonearm",
      short_name: "Tonearm",
      start_url: "/",
      scope: "/",
      display: "standalone",
      theme_color: "#121214",
      background_color: "#121214",
    })
    // Each PNG icon loads and is the size it says (the width and height of the PNG's IHDR chunk).
    for (const icon of manifest.icons.filter((icon) => icon.type === "image/png")) {
      const image = await fetch(`${server.url}${icon.src}`)
      expect(image.headers.get("content-type")).toBe("image/png")
      const bytes = Buffer.from(await image.arrayBuffer())
      expect(`${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`).toBe(icon.sizes)
    }
    expect(manifest.icons.map((icon) => `${icon.sizes} ${icon.purpose}`)).toEqual(
      expect.arrayContaining(["192x192 any", "512x512 any", "512x512 maskable"]),
    )
    // The worker script is JavaScript and revalidated on every load, so a new build is found at once.
    const worker = await fetch(`${server.url}/sw.js`)
    expect(worker.headers.get("content-type")).toContain("text/javascript")
    expect(worker.headers.get("cache-control")).toBe("no-cache")

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: "allow" })
    const page = await signedInAndControlled(context)
    await expect(page.locator('meta[name="theme-color"]').getAttribute("content")).resolves.toBe("#121214")
    await expect(page.locator('link[rel="apple-touch-icon"]').count()).resolves.toBe(1)
    const cdp = await context.newCDPSession(page)
    const parsed = (await cdp.send("Page.getAppManifest")) as { errors: Array<unknown>; url: string }
    expect(parsed.errors).toEqual([])
    expect(parsed.url).toBe(`${server.url}/manifest.webmanifest`)
    const installability = (await cdp.send("Page.getInstallabilityErrors")) as {
      installabilityErrors: Array<{ errorId: string }>
    }
    // "in-incognito" is the test's browser context (never persisted), not the app.
    expect(
      installability.installabilityErrors.map((error) => error.errorId).filter((id) => id !== "in-incognito"),
    ).toEqual([])
    await context.close()
  })

  for (const { name, options } of VIEWPORTS)
    it(`at ${name} size, with the network down, a reload still opens the app shell with an offline banner`, async () => {
      const context = await browser.newContext({ ...options, serviceWorkers: "allow" })
      const page = await signedInAndControlled(context)
      const errors = collectErrors(page)
      await expect(page.getByRole("status").filter({ hasText: "You're offline" }).count()).resolves.toBe(0)
      // The worker's own fetches are offline too: its network try of the page load fails, the cache answers.
      const workerFailures: Array<string> = []
      context.on("requestfailed", (request) => {
        if (request.serviceWorker() !== null) workerFailures.push(new URL(request.url()).pathname)
      })
      await context.setOffline(true)
      await page.reload()
      // The shell came from the worker's cache: the app, the signed-in navigation, the banner.
      await page.getByRole("navigation", { name: "Main" }).first().waitFor()
      expect(workerFailures).toContain("/")
      await page.getByText("You're offline").waitFor()
      await screenshot(page, `offline-shell-${name}`)
      await expectNoSeriousA11yViolations(page, `offline shell (${name})`)
      // Another page of the app opens too (its chunk precached), and the banner goes once the network is back.
      await page.goto(`${server.url}/albums`)
      await page.getByRole("heading", { name: "Albums", level: 1 }).waitFor()
      await context.setOffline(false)
      await page.getByText("You're offline").waitFor({ state: "detached" })
      expect(errors).toEqual([])
      await context.close()
    })
})

describe("download for offline", () => {
  it("an album downloaded for offline opens and plays with the network down, its play is recorded once back, and removing it empties the cache", async () => {
    const context = await browser.newContext({ ...VIEWPORTS[0].options, serviceWorkers: "allow" })
    const page = await signedInAndControlled(context)
    const errors = collectErrors(page)
    await page.goto(`${server.url}/albums/${album.id}`)
    await page.getByRole("heading", { name: album.title, level: 1 }).waitFor()
    await page.getByRole("button", { name: "Download for offline" }).click()
    await page.getByRole("status").filter({ hasText: "Downloaded ✓" }).waitFor({ timeout: 30_000 })
    // Every track, the album's JSON and its cover (when it has one).
    expect(await downloadsCacheSize(page)).toBe(album.tracks.length + 1 + (album.cover_url === null ? 0 : 1))
    await screenshot(page, "offline-album-downloaded-phone")
    await expectNoSeriousA11yViolations(page, "album downloaded")
    await page.setViewportSize({ width: 1440, height: 900 })
    await screenshot(page, "offline-album-downloaded-desktop")
    await page.setViewportSize(VIEWPORTS[0].options.viewport)

    // Offline, from a reload of Home: the toast leads to the downloads, and the album opens from its saved JSON.
    await context.setOffline(true)
    await page.goto(`${server.url}/`)
    await page.getByText("You're offline").waitFor()
    await page.getByRole("link", { name: "Downloaded music" }).click()
    await page.getByRole("heading", { name: "Downloads", level: 1 }).waitFor()
    await screenshot(page, "offline-downloads-phone")
    await page
      .getByRole("list", { name: "Downloaded albums and playlists" })
      .getByRole("link", { name: album.title })
      .click()
    await page.getByRole("heading", { name: album.title, level: 1 }).waitFor()
    await page.getByRole("status").filter({ hasText: "Downloaded ✓" }).waitFor()
    await slowPlayback(page, 0.5)
    const startedOffline = Date.now()
    await page.getByRole("button", { name: "Play", exact: true }).first().click()
    // The downloaded bytes play: the clock moves, over the worker's Range answers.
    const first = await eventually(
      async () => {
        const state = await audioState(page)
        return state.currentTime > 0.05 ? state : undefined
      },
      10_000,
      "the downloaded track to play offline",
    )
    await eventually(async () => ((await audioState(page)).currentTime > first.currentTime ? true : undefined))
    await screenshot(page, "offline-album-playing-phone")
    // The play could not be reported: it is kept, and once it ended goes out when the network is back.
    const track = album.tracks[0]!
    await eventually(
      async () => {
        const stored = await page.evaluate(() => localStorage.getItem("tonearm.offline-plays"))
        const plays = JSON.parse(stored ?? "[]") as Array<{ track_id: string; open?: boolean }>
        return plays.some((play) => play.track_id === track.id && play.open === false) ? true : undefined
      },
      20_000,
      "the offline play to be kept once the track ended",
    )
    await context.setOffline(false)
    const recorded = await eventually(
      async () => {
        const history = await server.run(server.admin.client.plays.history({ urlParams: { limit: 50 } }))
        return history.items.find(
          (item) =>
            item.track_id === track.id && new Date(item.started_at.epochMillis).getTime() >= startedOffline - 1000,
        )
      },
      15_000,
      "the offline play to be recorded",
    )
    expect(recorded).toMatchObject({ source: `album:${album.id}`, device_class: "web" })

    await page.getByRole("button", { name: "Remove download" }).click()
    await page.getByRole("button", { name: "Download for offline" }).waitFor()
    expect(await downloadsCacheSize(page)).toBe(0)
    expect(errors).toEqual([])
    await context.close()
  })

  it("a playlist downloads too, and a track it shares with a downloaded album is kept until both downloads are removed", async () => {
    const [shared, other] = album.tracks
    const playlist = await server.run(
      Effect.gen(function* () {
        const client = server.admin.client
        const created = yield* client.playlists.create({ payload: { name: "Offline mix" } })
        yield* client.playlists.addTracks({ path: { id: created.id }, payload: { track_ids: [shared!.id] } })
        return created
      }),
    )
    const context = await browser.newContext({ ...VIEWPORTS[1].options, serviceWorkers: "allow" })
    const page = await signedInAndControlled(context)
    const errors = collectErrors(page)
    const stream = (id: string) => `/api/tracks/${id}/stream`
    await page.goto(`${server.url}/albums/${album.id}`)
    await page.getByRole("button", { name: "Download for offline" }).click()
    await page.getByRole("status").filter({ hasText: "Downloaded ✓" }).waitFor({ timeout: 30_000 })
    await page.goto(`${server.url}/playlists/${playlist.id}`)
    await page.getByRole("heading", { name: "Offline mix", level: 1 }).waitFor()
    await page.getByRole("button", { name: "Download for offline" }).click()
    await page.getByRole("status").filter({ hasText: "Downloaded ✓" }).waitFor({ timeout: 30_000 })
    await expect(downloadedPaths(page)).resolves.toContain(`/api/playlists/${playlist.id}`)
    await screenshot(page, "offline-playlist-downloaded-desktop")

    await page.goto(`${server.url}/downloads`)
    const list = page.getByRole("list", { name: "Downloaded albums and playlists" })
    await list.getByRole("link", { name: "Offline mix" }).waitFor()
    await screenshot(page, "offline-downloads-desktop")
    await list.getByRole("button", { name: `Remove download of ${album.title}` }).click()
    await list.getByRole("link", { name: album.title }).waitFor({ state: "detached" })
    const left = await downloadedPaths(page)
    expect(left).toContain(stream(shared!.id))
    expect(left).not.toContain(stream(other!.id))
    expect(left).not.toContain(`/api/albums/${album.id}`)
    await list.getByRole("button", { name: "Remove download of Offline mix" }).click()
    await page.getByText("Nothing downloaded yet").waitFor()
    expect(await downloadsCacheSize(page)).toBe(0)
    expect(errors).toEqual([])
    await context.close()
  })
})
