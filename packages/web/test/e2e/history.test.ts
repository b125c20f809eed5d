import * as fs from "node:fs"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ENRICHMENT_DEFAULTS } from "../../../server/src/config/TonearmConfig.js"
import { type LibraryTrack, libraryTracks } from "../../../server/test/history/importSupport.js"
import { type FakeLastfm, fakeLastfm, LASTFM_KEY } from "../../../server/test/history/lastfmSupport.js"
import { logIn } from "../../../server/test/support/accounts.js"
import { type FakeServer, startFakeServer } from "../../../server/test/support/fakeServer.js"
import {
  DESKTOP,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  newListener,
  openAt,
  SIZES,
  screenshot,
  signedInPage,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * Issue 26's Import & export page against a real server: upload a ListenBrainz export made from the library's own
 * tracks (plus one that is not in it), follow the import to done with its counts, list what did not match, pull a
 * Last.fm account (a fake Last.fm on loopback), download the export; at phone and desktop sizes.
 */
let server: WebServer
let browser: Browser
let lastfmServer: FakeServer
let tracks: ReadonlyArray<LibraryTrack>
let lastfm: FakeLastfm

/** Listens of the first five library tracks a day ago, 10 minutes apart, and one of a song this library lacks. */
const exportLines = (fromSeconds: number) => [
  ...tracks.slice(0, 5).map((track, i) =>
    JSON.stringify({
      listened_at: fromSeconds + i * 600,
      track_metadata: { artist_name: track.artist, track_name: track.title, release_name: track.album },
    }),
  ),
  JSON.stringify({
    listened_at: fromSeconds + 5 * 600,
    track_metadata: { artist_name: "Nobody Here", track_name: "A Song Not In This Library" },
  }),
]

const signedIn = (context: BrowserContext, username: string) => signedInPage(server, context, username)

const openImports = (page: Page) => openAt(page, `${server.url}/settings/imports`, "Import & export")

/** The card of the newest import of a source. */
const card = (page: Page, source: string) =>
  page.locator("article.import-card", { has: page.getByRole("heading", { name: source, level: 3 }) }).first()

/** Waits for a card to say `state`, then reads its counters. */
const countsWhen = async (page: Page, source: string, state: string) => {
  const shown = card(page, source)
  await shown.getByTestId("import-state").getByText(state, { exact: true }).waitFor({ timeout: 60_000 })
  const read = async (id: string) => Number(await shown.getByTestId(id).textContent())
  return {
    total: await read("import-total"),
    matched: await read("import-matched"),
    unmatched: await read("import-unmatched"),
    duplicates: await read("import-duplicates"),
  }
}

beforeAll(async () => {
  lastfmServer = await startFakeServer()
  lastfm = fakeLastfm(lastfmServer)
  server = await startServer({
    enrichment: {
      ...ENRICHMENT_DEFAULTS,
      lastfm: { baseUrl: lastfmServer.url, apiKey: LASTFM_KEY, throttleMs: 0 },
      runDrains: false,
    },
  })
  browser = await launchBrowser()
  tracks = await server.run(libraryTracks)
}, 180_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
  await lastfmServer?.stop()
})

describe("Import & export", () => {
  for (const [size, options] of SIZES)
    it(`${size}: a ListenBrainz upload reaches done with its counts, lists its unmatched entry, and exports as JSON lines`, async () => {
      const username = `lea-${size}`
      await newListener(server, username)
      const context = await browser.newContext({ ...options, acceptDownloads: true })
      const { page, errors } = await signedIn(context, username)
      await openImports(page)
      await page.getByText("Nothing imported yet.").waitFor()

      const day = Math.floor(Date.now() / 1000) - 86_400
      await page.getByRole("radio", { name: /ListenBrainz export/ }).check()
      await page.getByLabel("Export file").setInputFiles({
        name: "listens.jsonl",
        mimeType: "application/json",
        buffer: Buffer.from(`${exportLines(day).join("\n")}\n`),
      })
      await page.getByRole("button", { name: "Upload and import" }).click()
      await page.getByRole("status").getByText("1 import started.").waitFor()
      expect(await countsWhen(page, "ListenBrainz export", "done")).toEqual({
        total: 6,
        matched: 5,
        unmatched: 1,
        duplicates: 0,
      })

      await card(page, "ListenBrainz export").getByRole("button", { name: "Show unmatched (1)" }).click()
      const unmatched = page.getByRole("list", { name: "Unmatched listens" })
      await unmatched.getByText("Nobody Here — A Song Not In This Library").waitFor()
      await expectNoSeriousA11yViolations(page, `imports-${size}`)
      await screenshot(page, `history-imports-${size}`)

      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Export my listening history" }).click(),
      ])
      expect(download.suggestedFilename()).toBe("tonearm-listens.jsonl")
      const lines = fs
        .readFileSync((await download.path())!, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as { listened_at: number; track_metadata: { track_name: string } })
      expect(lines.map((line) => line.listened_at)).toEqual([0, 1, 2, 3, 4].map((i) => day + i * 600))
      expect(lines.map((line) => line.track_metadata.track_name)).toEqual(
        tracks.slice(0, 5).map((track) => track.title),
      )
      expect(errors).toEqual([])
      await context.close()
    })

  it("desktop: the upload shows its progress bar; an import started elsewhere appears and finishes live", async () => {
    await newListener(server, "max")
    const context = await browser.newContext(DESKTOP)
    const { page, errors } = await signedIn(context, "max")
    await openImports(page)
    // A slow uplink (40 KB/s) and an export of ~400 KB: the bar is there long enough to see it move.
    const cdp = await context.newCDPSession(page)
    await cdp.send("Network.enable")
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 40 * 1024,
    })
    const weekAgo = Math.floor(Date.now() / 1000) - 7 * 86_400
    const padding = " ".repeat(400_000)
    await page.getByLabel("Export file").setInputFiles({
      name: "big-listens.json",
      mimeType: "application/json",
      buffer: Buffer.from(`${padding}[${exportLines(weekAgo).join(",")}]`),
    })
    await page.getByRole("button", { name: "Upload and import" }).click()
    const bar = page.getByRole("progressbar", { name: "Uploading big-listens.json" })
    const seen = await eventually(async () => {
      const value = Number(await bar.getAttribute("value"))
      return value > 0 && value < 100 ? value : undefined
    }, 20_000)
    expect(seen).toBeGreaterThan(0)
    await screenshot(page, "history-upload-progress-desktop")
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    })
    expect(await countsWhen(page, "ListenBrainz export", "done")).toMatchObject({ matched: 5, unmatched: 1 })

    // Another client (the CLI, another tab) starts an import: no reload, no polling when nothing runs; the
    // import.progress events bring its card in and move it to done.
    const requests: Array<string> = []
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/me/imports") requests.push(request.method())
    })
    const { token: maxToken } = await server.run(logIn("max"))
    const form = new FormData()
    form.append("source", "listenbrainz_export")
    form.append("file", new Blob([exportLines(weekAgo).join("\n")]), "again.jsonl")
    const started = await fetch(`${server.url}/api/me/imports`, {
      method: "POST",
      headers: { authorization: `Bearer ${maxToken}` },
      body: form,
    })
    expect(started.status).toBe(202)
    await eventually(async () => ((await page.locator("article.import-card").count()) === 2 ? true : undefined), 30_000)
    // The same listens again: every matched one is already there.
    expect(await countsWhen(page, "ListenBrainz export", "done")).toEqual({
      total: 6,
      matched: 5,
      unmatched: 1,
      duplicates: 5,
    })
    expect(requests.length).toBeGreaterThan(0)
    expect(errors).toEqual([])
    await context.close()
  })

  it("desktop: a Last.fm username pulls its scrobbles; the copy of listens already imported adds nothing", async () => {
    await newListener(server, "ned")
    const context = await browser.newContext(DESKTOP)
    const { page, errors } = await signedIn(context, "ned")
    const day = Math.floor(Date.now() / 1000) - 3 * 86_400
    lastfm.users.set(
      "ned_lfm",
      tracks
        .slice(0, 5)
        .map((track, i) => ({ artist: track.artist, title: track.title, album: track.album, uts: day + i * 600 })),
    )
    await openImports(page)
    await page.getByRole("radio", { name: /Last\.fm account/ }).check()
    await page.getByLabel("Last.fm username").fill("ned_lfm")
    await page.getByRole("button", { name: "Pull from Last.fm" }).click()
    await page.getByRole("status").getByText("Pulling ned_lfm's Last.fm scrobbles.").waitFor()
    expect(await countsWhen(page, "Last.fm", "done")).toEqual({ total: 5, matched: 5, unmatched: 0, duplicates: 0 })
    await screenshot(page, "history-lastfm-desktop")
    // An unknown account: the import fails and says why.
    await page.getByLabel("Last.fm username").fill("nobody_there")
    await page.getByRole("button", { name: "Pull from Last.fm" }).click()
    await countsWhen(page, "Last.fm", "failed")
    await card(page, "Last.fm").getByText("Last.fm has no user named nobody_there").waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("the Navidrome database import is offered to admins only", async () => {
    await newListener(server, "olga")
    const listenerContext = await browser.newContext(DESKTOP)
    const listener = await signedIn(listenerContext, "olga")
    await openImports(listener.page)
    await listener.page.getByRole("heading", { name: "Your imports" }).waitFor()
    expect(await listener.page.getByRole("heading", { name: "Navidrome database (admin)" }).count()).toBe(0)
    await listenerContext.close()
    const adminContext = await browser.newContext(DESKTOP)
    const admin = await signedIn(adminContext, "admin")
    await openImports(admin.page)
    await admin.page.getByRole("heading", { name: "Navidrome database (admin)" }).waitFor()
    await admin.page.getByLabel("navidrome.db").waitFor()
    expect([...listener.errors, ...admin.errors]).toEqual([])
    await adminContext.close()
  })
})
