/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ffmpeg, sineInput } from "../../../server/fixtures/ffmpeg.js"
import {
  adminCall,
  audioState,
  collectErrors,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAt,
  PASSWORD,
  screenshot,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

/** Two albums of minute-long tones: long enough to stop mid-track and resume there. */
const QUEUE_ALBUM = ["Q One", "Q Two", "Q Three", "Q Four", "Q Five"]
const OTHER_ALBUM = ["O One", "O Two"]

let server: WebServer
let browser: Browser
let root: string

interface SavedQueue {
  readonly tracks: ReadonlyArray<{ readonly id: string; readonly title: string }>
  readonly current_index: number | null
  readonly position_ms: number
  readonly changed_by: string | null
}
const savedQueue = () => adminCall<SavedQueue>(server, "GET", "/api/me/play-queue")

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-queue-"))
  const albums = [
    { album: "Queue Album", artist: "Queue Artist", titles: QUEUE_ALBUM },
    { album: "Other Album", artist: "Other Artist", titles: OTHER_ALBUM },
  ]
  for (const { album, artist, titles } of albums) {
    fs.mkdirSync(path.join(root, album), { recursive: true })
    for (const [at, title] of titles.entries()) {
      await ffmpeg([
        ...sineInput(60, 300 + at * 40),
        ...["-ac", "1", "-c:a", "libmp3lame", "-b:a", "32k"],
        ...["-metadata", `title=${title}`, "-metadata", `artist=${artist}`, "-metadata", `album_artist=${artist}`],
        ...["-metadata", `album=${album}`, "-metadata", `track=${at + 1}`, "-metadata", "date=2020"],
        path.join(root, album, `${String(at + 1).padStart(2, "0")} ${title}.mp3`),
      ])
    }
  }
  server = await startServer({ libraryDir: root })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (root) fs.rmSync(root, { recursive: true, force: true })
})

/** The titles of the Queue page's rows, in order. */
const queueTitles = (page: Page) =>
  page
    .getByRole("list", { name: "Queue" })
    .getByRole("button", { name: /^Play / })
    .evaluateAll((buttons) => buttons.map((button) => button.textContent?.trim() ?? ""))

const expectQueue = async (page: Page, titles: ReadonlyArray<string>) =>
  eventually(
    async () => {
      const now = await queueTitles(page)
      return JSON.stringify(now) === JSON.stringify(titles) ? now : undefined
    },
    10_000,
    `queue ${titles.join(", ")}; is ${JSON.stringify(await queueTitles(page))}`,
  )

const openAlbum = async (page: Page, title: string) => {
  await openAt(page, `${server.url}/albums`, "Albums")
  await page.getByRole("link", { name: title }).first().click()
  await page.getByRole("heading", { name: title, level: 1 }).waitFor()
}

/** What the server holds once the web player saved (debounced): polled until `check` accepts it. */
const serverQueueWhen = (check: (queue: SavedQueue) => boolean, what: string) =>
  eventually(
    async () => {
      const queue = await savedQueue()
      return check(queue) ? queue : undefined
    },
    15_000,
    what,
  )

const titlesOf = (queue: SavedQueue) => queue.tracks.map((track) => track.title)

describe("the queue (desktop)", () => {
  it("play next and add to queue from an album page and a track menu; reorder by keyboard and by drag; remove; it survives a reload at its position without autoplay", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    try {
      const page = await context.newPage()
      const errors = collectErrors(page)
      await signIn(page, server.url)

      // Nothing saved yet: the Queue page says so.
      await openAt(page, `${server.url}/queue`, "Queue")
      await page.getByText("The queue is empty").waitFor()

      await openAlbum(page, "Queue Album")
      await page.getByRole("main").getByRole("button", { name: "Play", exact: true }).click()
      await eventually(async () => ((await audioState(page)).paused ? undefined : true), 10_000, "playing")

      // "Play next" from another album's page puts the album right after the playing track. (Opening the albums
      // is a page load: the queue comes back from the server first.)
      await openAlbum(page, "Other Album")
      await eventually(async () => ((await audioState(page)).src.includes("/api/tracks/") ? true : undefined))
      await page.getByRole("button", { name: "More for Other Album" }).click()
      await page.getByRole("menuitem", { name: "Play next" }).click()
      await page.getByText("2 tracks will play next.").waitFor()
      // "Add to queue" from a track's menu appends it.
      await page.getByRole("button", { name: "More for O One" }).click()
      await page.getByRole("menuitem", { name: "Add to queue" }).click()

      await page.getByRole("link", { name: "Queue", exact: true }).first().click()
      await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor()
      await expectQueue(page, ["Q One", "O One", "O Two", "Q Two", "Q Three", "Q Four", "Q Five", "O One"])

      // Keyboard: Alt+↑ on a row's handle moves it up, and the focus stays on the moved row.
      const handle = page.getByRole("button", { name: "Reorder Q Five: drag, or Alt+↑ / Alt+↓" })
      await handle.focus()
      await page.keyboard.press("Alt+ArrowUp")
      await page.keyboard.press("Alt+ArrowUp")
      await expectQueue(page, ["Q One", "O One", "O Two", "Q Two", "Q Five", "Q Three", "Q Four", "O One"])
      expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(
        "Reorder Q Five: drag, or Alt+↑ / Alt+↓",
      )
      await page.getByRole("status").filter({ hasText: "Moved Q Five to position 5 of 8." }).waitFor()
      await page.keyboard.press("Alt+ArrowDown")
      await expectQueue(page, ["Q One", "O One", "O Two", "Q Two", "Q Three", "Q Five", "Q Four", "O One"])

      // Drag: Q Four's handle dropped on the second row.
      const from = await page.getByRole("button", { name: "Reorder Q Four: drag, or Alt+↑ / Alt+↓" }).boundingBox()
      const target = await page.locator('[data-queue-at="1"]').boundingBox()
      await page.mouse.move(from!.x + from!.width / 2, from!.y + from!.height / 2)
      await page.mouse.down()
      await page.mouse.move(from!.x + from!.width / 2, target!.y + target!.height / 2, { steps: 8 })
      await page.mouse.up()
      await expectQueue(page, ["Q One", "Q Four", "O One", "O Two", "Q Two", "Q Three", "Q Five", "O One"])

      // Remove one entry; the playing one cannot be removed.
      await page.getByRole("button", { name: "Remove O Two from the queue" }).click()
      await expectQueue(page, ["Q One", "Q Four", "O One", "Q Two", "Q Three", "Q Five", "O One"])
      await expect(page.getByRole("button", { name: "Remove Q One from the queue" }).isDisabled()).resolves.toBe(true)
      await screenshot(page, "queue-desktop")
      await expectNoSeriousA11yViolations(page, "queue desktop")

      // Move on to the fourth entry, listen a little, pause: the server has the queue at that position.
      await page.getByRole("button", { name: "Play Q Two" }).click()
      await eventually(async () => ((await audioState(page)).currentTime > 1.5 ? true : undefined), 15_000, "listening")
      await page.getByRole("region", { name: "Player" }).getByRole("button", { name: "Pause" }).click()
      const pausedAt = (await audioState(page)).currentTime
      const saved = await serverQueueWhen(
        (queue) => queue.current_index === 3 && Math.abs(queue.position_ms - pausedAt * 1000) < 500,
        "the paused position saved",
      )
      expect(titlesOf(saved)).toEqual(["Q One", "Q Four", "O One", "Q Two", "Q Three", "Q Five", "O One"])
      expect(saved.changed_by).toBe("Tonearm Web")
      // The same queue, as a Subsonic app resumes it.
      const subsonic = (await (
        await fetch(`${server.url}/rest/getPlayQueue?u=admin&p=${encodeURIComponent(PASSWORD)}&c=e2e&v=1.16.1&f=json`)
      ).json()) as { "subsonic-response": { playQueue: { current: string; position: number } } }
      expect(subsonic["subsonic-response"].playQueue).toMatchObject({
        current: saved.tracks[3]!.id,
        position: saved.position_ms,
      })

      // A reload: the same queue, Q Two current at the paused position, not playing until Play.
      await page.reload()
      await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor()
      await expectQueue(page, ["Q One", "Q Four", "O One", "Q Two", "Q Three", "Q Five", "O One"])
      await page.locator('[data-queue-at="3"][aria-current="true"]').waitFor()
      const restored = await eventually(
        async () => {
          const state = await audioState(page)
          return state.src.includes(saved.tracks[3]!.id) && Math.abs(state.currentTime - pausedAt) < 1
            ? state
            : undefined
        },
        10_000,
        "the restored position",
      )
      expect(restored.paused).toBe(true)
      await page.getByRole("region", { name: "Player" }).getByRole("button", { name: "Play" }).click()
      await eventually(
        async () => ((await audioState(page)).currentTime > pausedAt + 0.3 ? true : undefined),
        10_000,
        "resumed where it stopped",
      )
      // A deep link restores it too.
      await page.goto(`${server.url}/albums`)
      await page.getByRole("heading", { name: "Albums", level: 1 }).waitFor()
      await eventually(async () => ((await audioState(page)).src.includes(saved.tracks[3]!.id) ? true : undefined))

      // Clear keeps what plays (as Spotify does) and empties the rest, on the server too.
      await page.getByRole("link", { name: "Queue", exact: true }).first().click()
      await page.getByRole("button", { name: "Clear queue" }).click()
      await expectQueue(page, ["Q Two"])
      await serverQueueWhen((queue) => titlesOf(queue).join() === "Q Two", "the cleared queue saved")
      // Restored by the deep link, it waits paused: nothing of this page lands after the next test's Subsonic save.
      expect((await audioState(page)).paused).toBe(true)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it("a queue saved by a Subsonic app shows in the web player after sign-in, at its position", async () => {
    const other = await adminCall<{ tracks: ReadonlyArray<{ id: string; title: string }> }>(
      server,
      "GET",
      `/api/search?q=${encodeURIComponent("Other Album")}`,
    )
    const ids = OTHER_ALBUM.map((title) => other.tracks.find((track) => track.title === title)!.id)
    const form = new URLSearchParams({ u: "admin", p: PASSWORD, c: "Symfonium", v: "1.16.1", f: "json" })
    for (const id of [...ids, ids[0]!]) form.append("id", id)
    form.set("current", ids[1]!)
    form.set("position", "12000")
    const answer = await fetch(`${server.url}/rest/savePlayQueue`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    })
    expect(((await answer.json()) as { "subsonic-response": { status: string } })["subsonic-response"].status).toBe(
      "ok",
    )

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    try {
      const page = await context.newPage()
      const errors = collectErrors(page)
      await signIn(page, server.url)
      const state = await eventually(
        async () => {
          const now = await audioState(page)
          return now.src.includes(ids[1]!) && Math.abs(now.currentTime - 12) < 1 ? now : undefined
        },
        10_000,
        "the Subsonic queue restored",
      )
      expect(state.paused).toBe(true)
      await page.getByRole("region", { name: "Player" }).getByText("O Two").first().waitFor()
      await page.getByRole("link", { name: "Queue", exact: true }).first().click()
      await expectQueue(page, ["O One", "O Two", "O One"])
      await page.locator('[data-queue-at="1"][aria-current="true"]').waitFor()
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe("the queue (phone, 390×844, touch)", () => {
  it("reorders with the row buttons, removes, fits the screen, and keeps the queue across a reload", async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
    })
    try {
      const page = await context.newPage()
      const errors = collectErrors(page)
      await signIn(page, server.url)
      await openAlbum(page, "Queue Album")
      await page.getByRole("main").getByRole("button", { name: "Play", exact: true }).tap()
      await eventually(async () => ((await audioState(page)).paused ? undefined : true), 10_000, "playing")
      await openAt(page, `${server.url}/queue`, "Queue")
      await expectQueue(page, QUEUE_ALBUM)
      await page.getByRole("button", { name: "Move Q Three up" }).tap()
      await expectQueue(page, ["Q One", "Q Three", "Q Two", "Q Four", "Q Five"])
      await page.getByRole("button", { name: "Remove Q Four from the queue" }).tap()
      await expectQueue(page, ["Q One", "Q Three", "Q Two", "Q Five"])
      // No sideways scrolling, and the row controls are thumb-sized.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      const size = await page.getByRole("button", { name: "Move Q Five up" }).boundingBox()
      expect(Math.min(size!.width, size!.height)).toBeGreaterThanOrEqual(44)
      await screenshot(page, "queue-phone")
      await expectNoSeriousA11yViolations(page, "queue phone")
      await serverQueueWhen(
        (queue) => titlesOf(queue).join() === "Q One,Q Three,Q Two,Q Five",
        "the phone's queue saved",
      )
      await page.reload()
      await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor()
      await expectQueue(page, ["Q One", "Q Three", "Q Two", "Q Five"])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
