/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  adminCall,
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

/**
 * Issue 25 items 2 and 9: every main page on a phone (390×844, touch), a tablet and a desktop: no sideways
 * scrolling, the navigation reachable, no serious axe violation; on the phone an album plays from its Play
 * button, the mini player opens Now Playing, and every control of the shell is a thumb-sized target.
 */
let server: WebServer
let browser: Browser

interface AlbumRef {
  readonly id: string
  readonly title: string
  readonly artist_id: string
  readonly track_count: number
  readonly cover_url: string | null
}

const PHONE = { width: 390, height: 844 }
const DESKTOP = { width: 1440, height: 900 }
/** Apple's and WCAG 2.5.5's minimum target. */
const TARGET = 44

/** Every page of shell/routes.tsx, the ones with an id filled in from the fixture library. */
let pages: ReadonlyArray<{ readonly name: string; readonly path: string }>
let album: AlbumRef
let firstTrack: { readonly id: string; readonly title: string }

const call = <A>(method: string, route: string, body?: unknown) => adminCall<A>(server, method, route, body)

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  const albums = (await call<{ items: ReadonlyArray<AlbumRef> }>("GET", "/api/library/albums?limit=200")).items
  album = albums.find((candidate) => candidate.track_count >= 2 && candidate.cover_url !== null) ?? albums[0]!
  const tracks = (
    await call<{ tracks: ReadonlyArray<{ id: string; title: string }> }>("GET", `/api/albums/${album.id}`)
  ).tracks
  firstTrack = tracks[0]!
  const playlist = await call<{ id: string }>("POST", "/api/playlists", {
    name: "Road trip",
    track_ids: tracks.map((track) => track.id),
  })
  await call("PUT", `/api/likes/tracks/${tracks[0]!.id}`).catch(() => undefined)
  const word = album.title.split(/\s+/).find((part) => part.length >= 3) ?? album.title
  pages = [
    { name: "home", path: "/" },
    { name: "search", path: `/search?q=${encodeURIComponent(word)}` },
    { name: "queue", path: "/queue" },
    { name: "artists", path: "/artists" },
    { name: "albums", path: "/albums" },
    { name: "genres", path: "/genres" },
    { name: "years", path: "/years" },
    { name: "album", path: `/albums/${album.id}` },
    { name: "artist", path: `/artists/${album.artist_id}` },
    { name: "likes", path: "/likes" },
    { name: "playlists", path: "/playlists" },
    { name: "playlist", path: `/playlists/${playlist.id}` },
    { name: "sessions", path: "/sessions" },
    { name: "settings-subsonic", path: "/settings/subsonic" },
    { name: "settings-playback", path: "/settings/playback" },
    { name: "settings-imports", path: "/settings/imports" },
    { name: "settings-scrobbling", path: "/settings/scrobbling" },
    { name: "requests", path: "/requests" },
    { name: "for-you", path: "/for-you" },
    { name: "discover", path: "/discover" },
    { name: "mixes", path: "/mixes" },
    { name: "mix", path: "/mixes/daily_mix:1" },
    { name: "downloads", path: "/downloads" },
    { name: "stats", path: "/stats" },
    { name: "admin-users", path: "/admin/users" },
    { name: "admin-library", path: "/admin/library" },
    { name: "admin-proxies", path: "/admin/proxies" },
    { name: "admin-tuning", path: "/admin/tuning" },
    { name: "admin-trends", path: "/admin/trends" },
    { name: "admin-enrichment", path: "/admin/enrichment" },
    { name: "admin-requests", path: "/admin/requests" },
    { name: "admin-quarantine", path: "/admin/quarantine" },
    { name: "admin-playback-errors", path: "/admin/playback-errors" },
    { name: "admin-diagnostics", path: "/admin/diagnostics" },
  ]
}, 240_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const open = async (size: { width: number; height: number }, touch: boolean) => {
  const context = await browser.newContext({ viewport: size, hasTouch: touch, isMobile: touch })
  const page = await context.newPage()
  const errors = collectErrors(page)
  await signIn(page, server.url)
  return { context, page, errors }
}

/** Client-side navigation (as a link does), then the page's heading and its first data. */
const visit = async (page: Page, path: string) => {
  await page.evaluate((to) => {
    history.pushState(null, "", to)
    dispatchEvent(new PopStateEvent("popstate"))
  }, path)
  await page
    .locator("main h1")
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(async () => {
      throw new Error(`${path}: no heading; the page says ${JSON.stringify(await page.locator("main").textContent())}`)
    })
  await page
    .locator("main")
    .getByText(/^Loading…$/)
    .first()
    .waitFor({ state: "detached", timeout: 3_000 })
    .catch(() => undefined)
}

/** The document does not scroll sideways; else how wide it is and the widest culprits. */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => {
    const width = window.innerWidth
    if (document.documentElement.scrollWidth <= width) return undefined
    const scrolled = (element: Element) => {
      for (let at = element.parentElement; at !== null; at = at.parentElement)
        if (getComputedStyle(at).overflowX !== "visible") return true
      return false
    }
    const culprits = Array.from(document.querySelectorAll("body *"))
      .filter((element) => element.getBoundingClientRect().right > width + 1 && !scrolled(element))
      .slice(0, 4)
      .map((element) => `${element.tagName.toLowerCase()}.${String(element.className)}`)
    return `${document.documentElement.scrollWidth}px wide in ${width}px (${culprits.join(", ")})`
  })

/** Visible buttons, links and fields inside `selector` smaller than 44×44 (named, with their size). */
const smallTargets = (page: Page, selector: string) =>
  page.evaluate(
    ({ selector, min }) =>
      Array.from(document.querySelectorAll(selector))
        .flatMap((scope) => Array.from(scope.querySelectorAll("a[href], button, input, select")))
        .filter((element) => {
          const box = element.getBoundingClientRect()
          return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility !== "hidden"
        })
        .filter((element) => {
          const box = element.getBoundingClientRect()
          return box.width < min - 0.5 || box.height < min - 0.5
        })
        .map((element) => {
          const box = element.getBoundingClientRect()
          const name = element.getAttribute("aria-label") ?? element.textContent?.trim() ?? element.tagName
          return `${name} ${Math.round(box.width)}×${Math.round(box.height)}`
        }),
    { selector, min: TARGET },
  )

const sweep = async (page: Page, label: string, withShots: boolean) => {
  const problems: Array<string> = []
  for (const entry of pages) {
    await visit(page, entry.path)
    const overflow = await sidewaysOverflow(page)
    if (overflow !== undefined) problems.push(`${entry.name} (${label}) scrolls sideways: ${overflow}`)
    if (!withShots) continue
    // The navigation: its links are on screen without scrolling the page.
    const nav = page.getByRole("navigation", { name: "Main" })
    if (!(await nav.getByRole("link").first().isVisible())) problems.push(`${entry.name} (${label}): no navigation`)
    await expectNoSeriousA11yViolations(page, `${entry.name} (${label})`).catch((failure: Error) =>
      problems.push(failure.message),
    )
    await screenshot(page, `${entry.name}-${label}`)
  }
  return problems
}

const closeContext = (context: BrowserContext) => context.close()

describe("responsive layout: phone, tablet, desktop", () => {
  it("every main page fits a phone (390×844, touch): no sideways scroll, navigation on screen, no serious axe violation", async () => {
    const { context, page, errors } = await open(PHONE, true)
    expect(await sweep(page, "phone", true)).toEqual([])
    expect(errors).toEqual([])
    await closeContext(context)
  }, 180_000)

  it("every main page fits a desktop (1440×900): no sideways scroll, the sidebar on screen, no serious axe violation", async () => {
    const { context, page, errors } = await open(DESKTOP, false)
    expect(await sweep(page, "desktop", true)).toEqual([])
    expect(errors).toEqual([])
    await closeContext(context)
  }, 180_000)

  it("no page scrolls sideways at 360 px (small phone) nor at 1024 px (tablet)", async () => {
    for (const [width, height, touch] of [
      [360, 740, true],
      [1024, 768, false],
    ] as const) {
      const { context, page, errors } = await open({ width, height }, touch)
      expect(await sweep(page, `${width}px`, false)).toEqual([])
      // A small phone has the bottom navigation; a tablet a narrow sidebar, beside the page.
      const nav = page.getByRole("navigation", { name: "Main" })
      const box = (await nav.boundingBox())!
      if (touch) expect(box.y + box.height).toBeCloseTo(height, 0)
      else {
        expect(box.width).toBeLessThanOrEqual(200)
        expect((await page.locator("main").boundingBox())!.x).toBeGreaterThanOrEqual(box.width - 1)
        for (const name of ["album", "home", "admin-tuning"]) {
          await visit(page, pages.find((entry) => entry.name === name)!.path)
          await screenshot(page, `${name}-tablet`)
        }
      }
      expect(errors).toEqual([])
      await closeContext(context)
    }
  }, 180_000)

  it("on a phone a wide admin table keeps readable columns and scrolls sideways in its own box, not the page", async () => {
    const { context, page, errors } = await open(PHONE, true)
    await visit(page, "/admin/users")
    const box = page.getByRole("region", { name: "Accounts" })
    const table = box.getByRole("table")
    await table.waitFor()
    // Every column at least 4.5 rem: breaking every word had squeezed headers to one letter per line (~20 px).
    const { headers, rem } = await table.locator("thead th").evaluateAll((cells) => ({
      headers: cells.map((cell) => [cell.textContent, cell.getBoundingClientRect().width] as const),
      rem: Number.parseFloat(getComputedStyle(document.documentElement).fontSize),
    }))
    expect(headers.filter(([, width]) => width < 4.5 * rem - 1)).toEqual([])
    // Wider than the screen, so the box scrolls (it takes focus, for keys), and the page does not.
    const scroll = await box.evaluate((element) => ({ client: element.clientWidth, content: element.scrollWidth }))
    expect(scroll.content).toBeGreaterThan(scroll.client)
    await box.focus()
    expect(await box.evaluate((element) => document.activeElement === element)).toBe(true)
    expect(await box.evaluate((element) => getComputedStyle(element).overflowX)).toBe("auto")
    await box.evaluate((element) => element.scrollBy(200, 0))
    expect(await box.evaluate((element) => element.scrollLeft)).toBeGreaterThan(0)
    expect(await sidewaysOverflow(page)).toBeUndefined()
    await screenshot(page, "admin-users-table-phone")
    expect(errors).toEqual([])
    await closeContext(context)
  }, 60_000)

  it("on a phone, an album plays by tapping Play; the mini player opens Now Playing with cover, seek and queue; Escape and back close it", async () => {
    const { context, page, errors } = await open(PHONE, true)
    await visit(page, `/albums/${album.id}`)
    // The album's Play button is on screen, thumb-sized, and nothing (the cover) lies over it.
    const play = page.locator("main").getByRole("button", { name: "Play", exact: true })
    const box = (await play.boundingBox())!
    expect(box.width).toBeGreaterThanOrEqual(TARGET)
    expect(box.height).toBeGreaterThanOrEqual(TARGET)
    const onTop = await page.evaluate(
      ({ x, y }) => document.elementFromPoint(x, y)?.closest("button")?.textContent ?? null,
      { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    )
    expect(onTop).toBe("Play")
    await play.tap()
    await slowPlayback(page)
    await eventually(async () => ((await audioState(page)).currentTime > 0.05 ? true : undefined), 10_000, "playback")
    const first = (await audioState(page)).currentTime
    await eventually(
      async () => ((await audioState(page)).currentTime > first ? true : undefined),
      10_000,
      "the position advancing",
    )
    // The mini player, above the bottom navigation, shows the track.
    const bar = page.getByRole("region", { name: "Player" })
    await expect(bar.getByTestId("now-playing-title").textContent()).resolves.toBe(firstTrack.title)
    const barBox = (await bar.boundingBox())!
    const navBox = (await page.getByRole("navigation", { name: "Main" }).boundingBox())!
    expect(barBox.y + barBox.height).toBeLessThanOrEqual(navBox.y + 1)
    await screenshot(page, "mini-player-phone")
    // Every control of the shell (bottom navigation, mini player) is a thumb-sized target.
    expect(await smallTargets(page, ".tabbar, .mini-player")).toEqual([])

    // Tap the track: Now Playing covers the screen, with the cover, the seek bar, the transport and the queue.
    await bar.getByRole("button", { name: /^Open Now Playing/ }).tap()
    const sheet = page.getByRole("dialog", { name: "Now Playing" })
    await sheet.waitFor()
    await sheet.getByRole("img", { name: `Cover of ${album.title}` }).waitFor()
    await sheet.getByRole("slider", { name: "Seek" }).waitFor()
    for (const name of ["Previous track", "Next track", "Shuffle", "Lyrics"])
      await sheet.getByRole("button", { name, exact: true }).waitFor()
    await sheet.getByRole("button", { name: /^(Play|Pause)$/ }).waitFor()
    await sheet.getByRole("heading", { name: "Up next" }).waitFor()
    await sheet.getByRole("link", { name: "Open the queue" }).waitFor()
    const sheetBox = (await sheet.boundingBox())!
    expect(sheetBox.width).toBeCloseTo(PHONE.width, 0)
    expect(sheetBox.height).toBeCloseTo(PHONE.height, 0)
    expect(await smallTargets(page, ".now-playing-sheet")).toEqual([])
    expect(await sidewaysOverflow(page)).toBeUndefined()
    await expectNoSeriousA11yViolations(page, "now playing (phone)")
    await page.waitForFunction(() => document.getAnimations().length === 0)
    await screenshot(page, "now-playing-phone")
    // The rest of the app is inert behind it.
    expect(await page.locator("main").evaluate((main) => (main as HTMLElement).inert)).toBe(true)
    // Escape closes it, and the focus returns to the mini player.
    await sheet.focus()
    await page.keyboard.press("Escape")
    await sheet.waitFor({ state: "detached" })
    expect(await page.locator("main").evaluate((main) => (main as HTMLElement).inert)).toBe(false)
    await page.waitForFunction(() => document.activeElement?.textContent?.startsWith("Open Now Playing") ?? false)
    // Its Lyrics button makes way for the lyrics: a sheet above the mini player, whose controls stay at hand.
    await bar.getByRole("button", { name: /^Open Now Playing/ }).tap()
    await sheet.getByRole("button", { name: "Lyrics", exact: true }).tap()
    await sheet.waitFor({ state: "detached" })
    const lyrics = page.getByRole("complementary", { name: "Lyrics" })
    await lyrics.waitFor()
    const lyricsBox = (await lyrics.boundingBox())!
    expect(lyricsBox.y + lyricsBox.height).toBeLessThanOrEqual((await bar.boundingBox())!.y + 1)
    await bar.getByRole("button", { name: /^(Play|Pause)$/ }).waitFor()
    await page.waitForFunction(() => document.getAnimations().length === 0)
    await screenshot(page, "lyrics-phone")
    await page.keyboard.press("Escape")
    await lyrics.waitFor({ state: "detached" })
    await bar.getByRole("button", { name: "Lyrics" }).evaluate(
      (button) =>
        new Promise<void>((resolve) => {
          const check = () => (button === document.activeElement ? resolve() : requestAnimationFrame(check))
          check()
        }),
    )
    // The phone's back gesture closes it too, and stays on the album.
    await bar.getByRole("button", { name: /^Open Now Playing/ }).tap()
    await sheet.waitFor()
    await page.goBack()
    await sheet.waitFor({ state: "detached" })
    expect(new URL(page.url()).pathname).toBe(`/albums/${album.id}`)
    await page.getByRole("heading", { name: album.title, level: 1 }).waitFor()
    // Its queue link leads to the queue page, and the sheet gets out of the way.
    await bar.getByRole("button", { name: /^Open Now Playing/ }).tap()
    await sheet.getByRole("link", { name: "Open the queue" }).tap()
    await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor()
    await sheet.waitFor({ state: "detached" })
    // The queue's rows keep their titles readable next to their thumb-sized buttons.
    await page.getByRole("button", { name: `Play ${firstTrack.title}` }).waitFor()
    expect(await sidewaysOverflow(page)).toBeUndefined()
    await screenshot(page, "queue-playing-phone")

    // The menu: the full navigation in a drawer, every entry thumb-sized; a link taken closes it.
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Menu" }).tap()
    const drawer = page.getByRole("navigation", { name: "Menu" })
    await drawer.getByRole("link", { name: "Your stats" }).waitFor()
    expect(await smallTargets(page, "#nav-drawer")).toEqual([])
    await page.waitForFunction(() => document.getAnimations().length === 0)
    await screenshot(page, "menu-phone")
    expect(await page.locator("main").evaluate((main) => (main as HTMLElement).inert)).toBe(true)
    await page.keyboard.press("Escape")
    await drawer.waitFor({ state: "hidden" })
    // The focus comes back when the drawer's effect is cleaned up, a moment after it hides.
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-controls") === "nav-drawer")
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Menu" }).tap()
    await drawer.getByRole("link", { name: "Playlists" }).tap()
    await page.getByRole("heading", { name: "Playlists", level: 1 }).waitFor()
    await drawer.waitFor({ state: "hidden" })
    // The bottom navigation's own destinations.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Albums" }).tap()
    await page.getByRole("heading", { name: "Albums", level: 1 }).waitFor()
    await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
    expect(errors).toEqual([])
    await closeContext(context)
  }, 120_000)
})
