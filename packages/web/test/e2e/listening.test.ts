/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import type { AlbumDetail } from "@tonearm/core"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  audioState,
  collectErrors,
  eventually,
  launchBrowser,
  newContext,
  screenshot,
  signIn,
  slowPlayback,
  startServer,
  type WebServer,
} from "./support.js"

let server: WebServer
let browser: Browser
/** An album of the fixture library with at least three playable tracks. */
let album: AlbumDetail

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  const client = server.admin.client
  album = await server.run(
    Effect.gen(function* () {
      const page = yield* client.library.albums({ urlParams: { limit: 200 } })
      for (const ref of page.items) {
        const detail = yield* client.library.album({ path: { id: ref.id } })
        if (detail.tracks.length >= 3 && detail.tracks.every((track) => track.duration_ms >= 500)) return detail
      }
      throw new Error("no album with three tracks in the fixture library")
    }),
  )
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const history = () => server.run(server.admin.client.plays.history({ urlParams: { limit: 50 } }))

/** From Home, through the Albums list, to the album page. */
const browseToAlbum = async (page: Page) => {
  await page.getByRole("link", { name: "Albums", exact: true }).click()
  await page.getByRole("heading", { name: "Albums", level: 1 }).waitFor()
  await page.getByRole("link", { name: album.title, exact: true }).first().click()
  await page.getByRole("heading", { name: album.title, level: 1 }).waitFor()
}

describe("listening in the web player", () => {
  it("browses to an album, plays it (the audio advances), skips, and the server records the play and the skip with source album:<id>", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    await browseToAlbum(page)
    await screenshot(page, "album")
    // A tenth of the speed: the skip below lands well inside the first half of the track even on a busy machine.
    await slowPlayback(page, 0.1)
    await page.getByRole("button", { name: "Play", exact: true }).first().click()
    // The audio element's clock moves: the track really plays.
    const first = await eventually(
      async () => {
        const state = await audioState(page)
        return state.currentTime > 0.05 ? state : undefined
      },
      10_000,
      "playback to start",
    )
    await eventually(async () => ((await audioState(page)).currentTime > first.currentTime ? true : undefined))
    await expect(page.getByTestId("now-playing-title").textContent()).resolves.toBe(album.tracks[0]!.title)
    // The lock screen and hardware keys see the same track (Media Session).
    await expect(page.evaluate(() => navigator.mediaSession.metadata?.title)).resolves.toBe(album.tracks[0]!.title)
    // The started play reaches the server first (it carries the play_event_id the skip needs).
    const started = await eventually(async () =>
      (await history()).items.find((item) => item.track_id === album.tracks[0]!.id),
    )
    expect(started).toMatchObject({ source: `album:${album.id}`, device_class: "web" })
    expect(started.client_id).toMatch(/^[0-9a-f-]{36}$/)
    // Skip a few hundred milliseconds in: well under half the track.
    await page.getByRole("button", { name: "Next track" }).click()
    await eventually(async () =>
      (await page.getByTestId("now-playing-title").textContent()) === album.tracks[1]!.title ? true : undefined,
    )
    await screenshot(page, "playing")
    const skipped = await eventually(
      async () => {
        const item = (await history()).items.find((row) => row.track_id === album.tracks[0]!.id)
        return item?.skipped ? item : undefined
      },
      10_000,
      "the skip to be recorded",
    )
    expect(skipped.source).toBe(`album:${album.id}`)
    const second = await eventually(async () =>
      (await history()).items.find((item) => item.track_id === album.tracks[1]!.id),
    )
    expect(second).toMatchObject({ source: `album:${album.id}`, device_class: "web", client_id: started.client_id })
    // Keeps playing across navigation: the one audio element lives outside the pages.
    const before = await audioState(page)
    await page.getByRole("link", { name: "Genres", exact: true }).click()
    await page.getByRole("heading", { name: "Genres", level: 1 }).waitFor()
    const after = await eventually(async () => {
      const state = await audioState(page)
      return !state.paused && state.src === before.src && state.currentTime > before.currentTime ? state : undefined
    })
    expect(after.src).toBe(before.src)
    // Let the second track finish by itself: play_ended with a real duration, not a skip.
    await slowPlayback(page, 1)
    const ended = await eventually(
      async () => {
        const item = (await history()).items.find((row) => row.track_id === album.tracks[1]!.id)
        return item?.duration_played_ms !== null && item?.duration_played_ms !== undefined ? item : undefined
      },
      15_000,
      "the second track to end",
    )
    expect(ended.skipped).toBe(false)
    expect(ended.duration_played_ms).toBeGreaterThan(0)
    await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
    expect(errors).toEqual([])
    await context.close()
  })

  it("a like on one tab shows on a second tab through the event stream", async () => {
    const context = await newContext(browser)
    const tab1 = await context.newPage()
    await signIn(tab1, server.url)
    const tab2 = await context.newPage()
    const track = album.tracks[2]!
    await tab2.goto(`${server.url}/albums/${album.id}`)
    await tab2.getByRole("heading", { name: album.title, level: 1 }).waitFor()
    await tab1.goto(`${server.url}/albums/${album.id}`)
    // The album's row (the player, which resumes the saved queue, may show the same track's like button too).
    const like1 = tab1.getByRole("main").getByTestId(`like-track-${track.id}`)
    const like2 = tab2.getByRole("main").getByTestId(`like-track-${track.id}`)
    await expect(like2.getAttribute("aria-pressed")).resolves.toBe("false")
    // Give tab 2's event stream a moment to be connected before the like happens.
    await tab2.locator("html[data-event-stream=open]").waitFor({ state: "attached" })
    await like1.click()
    await eventually(
      async () => ((await like2.getAttribute("aria-pressed")) === "true" ? true : undefined),
      10_000,
      "tab 2 to see the like",
    )
    const likes = await server.run(server.admin.client.likes.list())
    expect(likes.tracks.map((liked) => liked.id)).toContain(track.id)
    // And the unlike travels back.
    await like2.click()
    await eventually(
      async () => ((await like1.getAttribute("aria-pressed")) === "false" ? true : undefined),
      10_000,
      "tab 1 to see the unlike",
    )
    await context.close()
  })

  it("a play made while the server is unreachable is kept and sent later as play_offline with its original time", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    await signIn(page, server.url)
    await page.goto(`${server.url}/albums/${album.id}`)
    await page.getByRole("heading", { name: album.title, level: 1 }).waitFor()
    // Play events cannot reach the server (the audio still streams: it is the reporting that is offline).
    await page.route("**/api/events", (route) => route.abort("internetdisconnected"))
    const track = album.tracks[album.tracks.length - 1]!
    const startedBefore = Date.now()
    await page.getByRole("button", { name: `Play ${track.title}` }).click()
    const pending = await eventually(
      async () => {
        const stored = await page.evaluate(() => localStorage.getItem("tonearm.offline-plays"))
        const plays = JSON.parse(stored ?? "[]") as Array<{ track_id: string; at: string; open?: boolean }>
        const play = plays.find((entry) => entry.track_id === track.id && entry.open === false)
        return play
      },
      15_000,
      "the offline play to be kept once the track ended",
    ).catch(async (error) => {
      console.log(await page.evaluate(() => localStorage.getItem("tonearm.offline-plays")), await audioState(page))
      throw error
    })
    expect(Date.parse(pending.at)).toBeGreaterThanOrEqual(startedBefore - 1000)
    expect(
      (await history()).items.some(
        (item) =>
          item.track_id === track.id &&
          item.source === `album:${album.id}` &&
          Date.parse(String(item.started_at)) === Date.parse(pending.at),
      ),
    ).toBe(false)
    // Back online: the kept play goes out as play_offline with its original start time.
    await page.unroute("**/api/events")
    await page.evaluate(() => window.dispatchEvent(new Event("online")))
    const sent = await eventually(
      async () =>
        (await history()).items.find(
          (item) =>
            item.track_id === track.id &&
            Math.abs(new Date(item.started_at.epochMillis).getTime() - Date.parse(pending.at)) < 1000,
        ),
      10_000,
      "play_offline to be recorded",
    )
    expect(sent).toMatchObject({ source: `album:${album.id}`, device_class: "web" })
    expect(sent.duration_played_ms).not.toBeNull()
    await expect(page.evaluate(() => localStorage.getItem("tonearm.offline-plays"))).resolves.toBe("[]")

    // A play whose start reached the server but whose end cannot: the end (here a skip) is kept and sent later.
    await slowPlayback(page, 0.1)
    const first = album.tracks[0]!
    const before = new Set((await history()).items.map((item) => item.id))
    await page.getByRole("button", { name: `Play ${first.title}` }).click()
    const live = await eventually(
      async () => (await history()).items.find((item) => item.track_id === first.id && !before.has(item.id)),
      10_000,
      "the live play_started",
    )
    await page.route("**/api/events", (route) => route.abort("internetdisconnected"))
    await page.getByRole("button", { name: "Next track" }).click()
    await eventually(
      async () => {
        const ends = JSON.parse((await page.evaluate(() => localStorage.getItem("tonearm.pending-ends"))) ?? "[]")
        return ends.length === 1 && ends[0].type === "play_skipped" ? true : undefined
      },
      10_000,
      "the skip to be kept",
    )
    await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
    await page.unroute("**/api/events")
    await page.evaluate(() => window.dispatchEvent(new Event("online")))
    await eventually(
      async () => ((await history()).items.find((item) => item.id === live.id)?.skipped ? true : undefined),
      10_000,
      "the kept skip to be recorded",
    )
    await context.close()
  })

  it("the player works from the keyboard alone: Tab to Play, Space, arrows, Shift+arrows, S, R, ? and Esc", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    await signIn(page, server.url)
    await page.goto(`${server.url}/albums/${album.id}`)
    await page.getByRole("heading", { name: album.title, level: 1 }).waitFor()
    await slowPlayback(page, 0.1)
    // Tab from the top of the page to the album's Play button, then Enter.
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press("Tab")
      const focused = await page.evaluate(() => document.activeElement?.textContent?.trim())
      if (focused === "Play") break
    }
    await expect(page.evaluate(() => document.activeElement?.textContent?.trim())).resolves.toBe("Play")
    await page.keyboard.press("Enter")
    await eventually(async () => ((await audioState(page)).paused ? undefined : true), 10_000, "playback")
    // Move focus off the button so keys go to the player (focus on the page itself).
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await page.keyboard.press(" ")
    await eventually(async () => ((await audioState(page)).paused ? true : undefined), 5_000, "Space to pause")
    await page.keyboard.press(" ")
    await eventually(async () => ((await audioState(page)).paused ? undefined : true), 5_000, "Space to resume")
    await page.keyboard.press("Shift+ArrowRight")
    await eventually(async () =>
      (await page.getByTestId("now-playing-title").textContent()) === album.tracks[1]!.title ? true : undefined,
    )
    await page.keyboard.press("Shift+ArrowLeft")
    await eventually(async () =>
      (await page.getByTestId("now-playing-title").textContent()) === album.tracks[0]!.title ? true : undefined,
    )
    await page.keyboard.press("s")
    await expect(page.getByRole("button", { name: "Shuffle" }).getAttribute("aria-pressed")).resolves.toBe("true")
    await page.keyboard.press("s")
    await page.keyboard.press("r")
    await expect(page.getByRole("button", { name: "Repeat: all" }).count()).resolves.toBe(1)
    await page.keyboard.press("Shift+?")
    await page.getByRole("heading", { name: "Keyboard shortcuts" }).waitFor()
    await screenshot(page, "shortcuts")
    await page.keyboard.press("Escape")
    await eventually(
      async () => ((await page.getByRole("dialog").count()) === 0 ? true : undefined),
      5_000,
      "the help to close",
    )
    // Focus is visible on keyboard focus (a focus ring, not suppressed).
    for (let presses = 0; presses < 3; presses++) {
      await page.keyboard.press("Tab")
      if ((await page.evaluate(() => document.activeElement?.tagName)) !== "BODY") break
    }
    const focus = await page.evaluate(() => ({
      tag: document.activeElement?.tagName,
      text: document.activeElement?.textContent?.trim().slice(0, 40),
      outline: getComputedStyle(document.activeElement!).outlineStyle,
    }))
    expect(focus.outline, JSON.stringify(focus)).not.toBe("none")
    await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
    await context.close()
  })
})
