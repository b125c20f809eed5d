/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Gmediarender, makeLongTrack, startGmediarender } from "../../../server/test/cast/renderers.js"
import {
  adminCall,
  audioState,
  collectErrors,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  newContext,
  openAt,
  screenshot,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * Casting from the web player to a real UPnP speaker: Debian's gmediarender on this machine, audio to a null
 * sink, configured by description URL. The speaker's own answers (GetTransportInfo through the status route) are
 * what the test checks, not the page's idea of them.
 */

const library = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-cast-e2e-"))
makeLongTrack(path.join(library, "Cast Band/Cast Album/01 First.mp3"), {
  title: "First Light",
  artist: "Cast Band",
  album: "Cast Album",
  track: 1,
})
makeLongTrack(path.join(library, "Cast Band/Cast Album/02 Second.mp3"), {
  title: "Second Wind",
  artist: "Cast Band",
  album: "Cast Album",
  track: 2,
})

let speaker: Gmediarender
let server: WebServer
let browser: Browser

interface Status {
  readonly state: string
  readonly track_id: string | null
  readonly position_ms: number | null
}

const status = () => adminCall<Status>(server, "GET", `/api/cast/renderers/${speaker.uuid}/status`)
const speakerReaches = (check: (status: Status) => boolean, what: string, timeoutMs = 15_000) => {
  let last: Status | undefined
  return eventually(
    async () => {
      last = await status()
      return check(last) ? last : undefined
    },
    timeoutMs,
    what,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the speaker last said ${JSON.stringify(last)}`)
  })
}

beforeAll(async () => {
  speaker = await startGmediarender("Living Room")
  server = await startServer({
    libraryDir: library,
    cast: { rendererUrls: [speaker.descriptionUrl], discovery: false, timeoutMs: 4000 },
  })
  browser = await launchBrowser()
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  await speaker?.stop()
})

describe("casting to a speaker", () => {
  it("the cast button lists the speaker; casting plays there, the player drives it, stop casting resumes here", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    const albums = await adminCall<{ items: Array<{ id: string; title: string }> }>(
      server,
      "GET",
      "/api/library/albums",
    )
    const album = albums.items.find((item) => item.title === "Cast Album")!
    const detail = await adminCall<{ tracks: Array<{ id: string; title: string }> }>(
      server,
      "GET",
      `/api/albums/${album.id}`,
    )
    const [first, second] = detail.tracks
    await openAt(page, `${server.url}/albums/${album.id}`, "Cast Album")
    await page.getByRole("main").getByRole("button", { name: "Play", exact: true }).click()
    await eventually(async () => ((await audioState(page)).currentTime > 1 ? true : undefined), 15_000, "local play")
    // Half a minute in, so that "resumed where the browser was" cannot be mistaken for "started from the top",
    // however slow the machine is to start the speaker.
    await page.evaluate(() => {
      ;(document.getElementById("tonearm-audio") as HTMLAudioElement).currentTime = 30
    })
    await eventually(async () => ((await audioState(page)).currentTime >= 30 ? true : undefined), 10_000, "the seek")

    const player = page.getByRole("region", { name: "Player" })
    await player.getByRole("button", { name: "Cast to a speaker" }).click()
    const speakerButton = page.getByRole("button", { name: "Living Room" })
    await speakerButton.waitFor()
    await expectNoSeriousA11yViolations(page, "cast menu")
    await screenshot(page, "cast-menu")
    await speakerButton.click()

    // The browser pauses; the speaker fetches the signed URL and plays the same track from about the same place:
    // at least 29 s in, reached in less than the 29 s that playing from the top would take since it began to play.
    // (Timed from its first PLAYING, not from the click: a loaded machine took over 26 s to start the speaker.)
    await speakerReaches((s) => s.state === "PLAYING" && s.track_id === first!.id, "the speaker to play", 60_000)
    const startedAt = Date.now()
    await speakerReaches(
      (s) => s.state === "PLAYING" && s.track_id === first!.id && (s.position_ms ?? 0) >= 29_000,
      "PLAYING from the browser's position",
      26_000,
    )
    expect(Date.now() - startedAt).toBeLessThan(27_000)
    expect((await audioState(page)).paused).toBe(true)
    await player.getByRole("button", { name: "Casting to Living Room" }).waitFor()

    // Pause in the web player pauses the speaker; Play resumes it.
    await player.getByRole("button", { name: "Pause" }).click()
    await speakerReaches((s) => s.state === "PAUSED_PLAYBACK", "PAUSED_PLAYBACK")
    await player.getByRole("button", { name: "Play" }).click()
    await speakerReaches((s) => s.state === "PLAYING", "PLAYING after resume")

    // Next track plays the queue's next entry on the speaker.
    await player.getByRole("button", { name: "Next track" }).click()
    await speakerReaches((s) => s.state === "PLAYING" && s.track_id === second!.id, "the next track on the speaker")
    await page.getByTestId("now-playing-title").filter({ hasText: "Second Wind" }).waitFor()
    await screenshot(page, "cast-playing")

    // Stop casting: the speaker stops, and the browser plays the same track from the speaker's position.
    await speakerReaches((s) => (s.position_ms ?? 0) >= 3000, "3 s into the second track")
    await player.getByRole("button", { name: "Casting to Living Room" }).click()
    await page.getByRole("button", { name: "Stop casting" }).click()
    await speakerReaches((s) => s.state === "STOPPED", "STOPPED")
    const local = await eventually(
      async () => {
        const state = await audioState(page)
        return !state.paused && state.currentTime >= 2.5 ? state : undefined
      },
      10_000,
      "local playback again",
    )
    expect(local.src).toContain(second!.id)
    await player.getByRole("button", { name: "Cast to a speaker" }).waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("on a phone, Now Playing's cast button lists the speaker on screen, casts to it, and stops casting", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true })
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    const albums = await adminCall<{ items: Array<{ id: string; title: string }> }>(
      server,
      "GET",
      "/api/library/albums",
    )
    const album = albums.items.find((item) => item.title === "Cast Album")!
    await openAt(page, `${server.url}/albums/${album.id}`, "Cast Album")
    await page.getByRole("main").getByRole("button", { name: "Play", exact: true }).tap()
    await page.getByRole("button", { name: /^Open Now Playing/ }).tap()
    const sheet = page.getByRole("dialog", { name: "Now Playing" })
    await sheet.getByRole("button", { name: "Cast to a speaker" }).tap()
    const choice = sheet.getByRole("button", { name: "Living Room" })
    await choice.waitFor()
    const panel = await sheet.locator(".cast-panel").boundingBox()
    expect(panel!.x).toBeGreaterThanOrEqual(0)
    expect(panel!.x + panel!.width).toBeLessThanOrEqual(390)
    expect((await choice.boundingBox())!.height).toBeGreaterThanOrEqual(44)
    await expectNoSeriousA11yViolations(page, "cast menu on a phone")
    await screenshot(page, "cast-menu-phone")
    await choice.tap()
    await speakerReaches((s) => s.state === "PLAYING", "PLAYING from the phone")
    await sheet.getByRole("button", { name: "Casting to Living Room" }).tap()
    await sheet.getByRole("button", { name: "Stop casting" }).tap()
    await speakerReaches((s) => s.state === "STOPPED", "STOPPED from the phone")
    expect(errors).toEqual([])
    await context.close()
  })
})
