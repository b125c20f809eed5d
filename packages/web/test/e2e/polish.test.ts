/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import * as fs from "node:fs"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { arrangePlays, libraryTracks } from "../../../server/test/support/listening.js"
import {
  adminCall,
  collectErrors,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAt,
  SCREENSHOTS,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * Library polish (issue 31, item 10): a placeholder icon wherever art is missing or fails to load, counts with
 * correct plurals, and the artist page's top tracks and similar artists; each at phone and desktop size.
 */
let server: WebServer
let browser: Browser

interface AlbumRef {
  readonly id: string
  readonly title: string
  readonly artist_id: string
  readonly artist_name: string
  readonly track_count: number
  readonly cover_url: string | null
}
interface Track {
  readonly id: string
  readonly title: string
  readonly artist_id: string
  readonly album_id: string
}
interface ArtistDetail {
  readonly id: string
  readonly name: string
  readonly album_count: number
  readonly track_count: number
  readonly cover_url: string | null
}

const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
] as const
type Viewport = (typeof VIEWPORTS)[number]

let albums: ReadonlyArray<AlbumRef>
/** The artist the admin played (their top tracks), one with similar artists. */
let played: ArtistDetail

const call = <A>(method: string, route: string, body?: unknown) => adminCall<A>(server, method, route, body)
const albumTracks = async (id: string) =>
  (await call<{ tracks: ReadonlyArray<Track> }>("GET", `/api/albums/${id}`)).tracks

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  albums = (await call<{ items: ReadonlyArray<AlbumRef> }>("GET", "/api/library/albums?limit=200")).items
  // The admin's history: the (track) artist with the most tracks that has similar artists, each of its tracks
  // played a different number of times.
  const all = await server.run(libraryTracks)
  const byArtist = new Map<string, Array<(typeof all)[number]>>()
  for (const track of all) byArtist.set(track.artist_id, [...(byArtist.get(track.artist_id) ?? []), track])
  let artistId: string | undefined
  for (const [id] of [...byArtist].sort((a, b) => b[1].length - a[1].length))
    if ((await call<ReadonlyArray<unknown>>("GET", `/api/artists/${id}/similar`)).length > 0) {
      artistId = id
      break
    }
  const tracks = byArtist.get(artistId!)!
  for (const [index, track] of tracks.entries())
    await server.run(arrangePlays(server.admin.user.id, [track], { times: tracks.length - index + 1 }))
  const artist = await call<ArtistDetail>("GET", `/api/artists/${artistId}`)
  // Most played first: the order the plays were arranged in.
  const ranked = (await call<{ tracks: ReadonlyArray<Track> }>("GET", `/api/artists/${artistId}/top-tracks`)).tracks
  expect(ranked.map((track) => track.id)).toEqual(tracks.map((track) => track.id))
  played = artist
}, 240_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const openPage = async (viewport: Viewport) => {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } })
  const page = await context.newPage()
  const errors = collectErrors(page)
  await signIn(page, server.url)
  return { context, page, errors }
}

const go = (page: Page, route: string, heading: string) => openAt(page, `${server.url}${route}`, heading)

/** The whole page, into test/e2e/screenshots (git-ignored). */
const shot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

/** Images that finished loading without a picture: a broken image the app left on screen. */
const brokenImages = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.images)
      .filter((image) => image.complete && image.naturalWidth === 0)
      .map((image) => image.src),
  )

/** No broken image stays up (an image that fails is swapped for its placeholder on the error event). */
const expectNoBrokenImages = async (page: Page) => {
  await eventually(async () => ((await brokenImages(page)).length === 0 ? true : undefined), 5_000, "no broken image")
}

/** The page's text, for what it must not say. */
const mainText = async (page: Page) => (await page.locator("main").textContent()) ?? ""

/** The page does not scroll sideways: everything fits the viewport's width (else: how wide, and who). */
const expectNoSidewaysScroll = async (page: Page) => {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth
    if (document.documentElement.scrollWidth <= width) return []
    const wide = (element: Element) => element.getBoundingClientRect().right > width + 1
    // What a scrolling box (the navigation strip, a card row) holds scrolls there, not the page.
    const scrolled = (element: Element) => {
      for (let at = element.parentElement; at !== null; at = at.parentElement)
        if (getComputedStyle(at).overflowX !== "visible") return true
      return false
    }
    const culprits = Array.from(document.querySelectorAll("body *"))
      .filter((element) => wide(element) && !scrolled(element))
      .slice(0, 5)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${element.className} to ${element.getBoundingClientRect().right}px`,
      )
    return [`${document.documentElement.scrollWidth}px wide in ${width}px`, ...culprits]
  })
  if (overflow.length > 0) throw new Error(`scrolls sideways: ${overflow.join(", ")}`)
}

/** A link of the app's navigation: the sidebar's, or on a phone the menu's (opened from the bottom bar). */
const navLink = async (page: Page, name: string) => {
  const menu = page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Menu" })
  if (!(await menu.isVisible()))
    return page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true })
  if ((await menu.getAttribute("aria-expanded")) !== "true") await menu.click()
  return page.getByRole("navigation", { name: "Menu" }).getByRole("link", { name, exact: true })
}

/** A visible placeholder icon of `kind` inside `scope`. */
const placeholder = (scope: ReturnType<Page["locator"]>, kind: string) =>
  scope.locator(`.cover.placeholder[data-placeholder="${kind}"] svg`).first()

describe("library polish: art placeholders, plurals, the artist page", () => {
  // Each page's axe audit and screenshot at this size is responsive.test's phone sweep: here, the menu itself.
  it("every page of the navigation is reached from the phone menu (390×844) and fits the screen: no sideways scrolling", async () => {
    const { context, page, errors } = await openPage(VIEWPORTS[0])
    // On a phone the whole navigation is the menu the bottom bar opens.
    await page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Menu" }).click()
    const links = await page
      .getByRole("navigation", { name: "Menu" })
      .getByRole("link")
      .evaluateAll((anchors) =>
        anchors.map((anchor) => ({ name: anchor.textContent ?? "", href: anchor.getAttribute("href") ?? "" })),
      )
    expect(links.length).toBeGreaterThan(10)
    const problems: Array<string> = []
    for (const link of links.filter((candidate) => candidate.href !== "/" || candidate.name !== "Tonearm")) {
      // Through the strip itself: each link can be reached (scrolled to) and followed.
      await (await navLink(page, link.name)).click()
      await eventually(async () => (new URL(page.url()).pathname === link.href ? true : undefined), 5_000, link.href)
      await page.locator("main h1").first().waitFor()
      // (Some pages keep a "Loading…" of their own a while, e.g. a mix being made: their frame is what counts.)
      await page
        .locator("main")
        .getByText("Loading…")
        .first()
        .waitFor({ state: "detached", timeout: 5_000 })
        .catch(() => undefined)
      await expectNoSidewaysScroll(page).catch((failure: Error) => problems.push(`${link.href}: ${failure.message}`))
    }
    expect(problems).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  }, 120_000)

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.name} ${viewport.width}×${viewport.height}`

    it(`an album without art shows the placeholder icon, never a broken image (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const bare = albums.find((album) => album.cover_url === null)!
      const covered = albums.find((album) => album.cover_url !== null)!
      expect(bare).toBeDefined()
      expect(covered).toBeDefined()
      // No art: the album page shows the disc icon where the cover goes, named for screen readers.
      await go(page, `/albums/${bare.id}`, bare.title)
      await placeholder(page.locator("header"), "album").waitFor()
      await expect(page.getByRole("img", { name: `Cover of ${bare.title}` }).count()).resolves.toBe(1)
      await expectNoBrokenImages(page)
      await expectNoSidewaysScroll(page)
      await shot(page, `polish-album-without-art-${viewport.name}`)
      // Art that fails to load (here a 404) is swapped for the same icon.
      await page.route(`**/api/albums/${covered.id}/cover`, (route) =>
        route.fulfill({ status: 404, contentType: "application/json", body: "{}" }),
      )
      await go(page, `/albums/${covered.id}`, covered.title)
      await placeholder(page.locator("header"), "album").waitFor()
      await expectNoBrokenImages(page)
      // In the albums list too: both albums show the icon, the others their covers.
      await go(page, "/albums", "Albums")
      const list = page.getByRole("list", { name: "Albums" })
      for (const album of [bare, covered])
        await placeholder(list.getByRole("listitem").filter({ hasText: album.title }), "album").waitFor()
      await list.locator("img.cover").first().waitFor()
      await expectNoBrokenImages(page)
      await expectNoSidewaysScroll(page)
      await shot(page, `polish-albums-list-${viewport.name}`)
      // The player bar: a track of the bare album shows the note icon; the next album's cover replaces it.
      await page.unroute(`**/api/albums/${covered.id}/cover`)
      await go(page, `/albums/${bare.id}`, bare.title)
      await page.locator("main").getByRole("button", { name: "Play", exact: true }).click()
      const bar = page.getByRole("region", { name: "Player" })
      await placeholder(bar, "track").waitFor()
      await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
      await go(page, `/albums/${covered.id}`, covered.title)
      await page.locator("main").getByRole("button", { name: "Play", exact: true }).click()
      await bar.locator("img.cover").waitFor()
      await expect(bar.locator(".cover.placeholder").count()).resolves.toBe(0)
      await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
      await expectNoBrokenImages(page)
      expect(errors).toEqual([])
      await context.close()
    })

    it(`an artist without a picture and a playlist without covers show their placeholder icons (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const artist = played
      expect(artist.cover_url).toBeNull()
      await go(page, `/artists/${artist.id}`, artist.name)
      await placeholder(page.locator("header"), "artist").waitFor()
      await expect(page.getByRole("img", { name: `Picture of ${artist.name}` }).count()).resolves.toBe(1)
      // An artist card (search) shows the person icon too.
      await go(page, `/search?q=${encodeURIComponent(artist.name)}`, "Search")
      const cards = page.getByRole("region", { name: "Artists" })
      await placeholder(cards.getByRole("listitem").filter({ hasText: artist.name }), "artist").waitFor()
      await expectNoBrokenImages(page)
      // An empty playlist has no collage (its cover is a 404): the playlist icon, in the list and on its page.
      const empty = await call<{ id: string }>("POST", "/api/playlists", { name: `Empty ${viewport.name}` })
      await go(page, "/playlists", "Playlists")
      const row = page.getByRole("list", { name: "Your playlists" }).getByRole("listitem")
      await placeholder(row.filter({ hasText: `Empty ${viewport.name}` }), "playlist").waitFor()
      await expectNoBrokenImages(page)
      await expectNoSidewaysScroll(page)
      await shot(page, `polish-playlists-${viewport.name}`)
      await go(page, `/playlists/${empty.id}`, `Empty ${viewport.name}`)
      await placeholder(page.locator("header"), "playlist").waitFor()
      await expectNoBrokenImages(page)
      await expectNoSidewaysScroll(page)
      await expectNoSeriousA11yViolations(page, `empty playlist (${viewport.name})`)
      await shot(page, `polish-empty-playlist-${viewport.name}`)
      await call("DELETE", `/api/playlists/${empty.id}`)
      expect(errors).toEqual([])
      await context.close()
    })

    it(`counts use correct plurals (1 track, 1 album) (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const wrong = /\b1 (tracks|albums|artists|plays|results|accounts|files|lookups|flags|errors|events)\b/
      // A playlist of one track: "1 track" in the list and on its page; two tracks: "2 tracks".
      const [first, second] = await albumTracks(albums[0]!.id).then((tracks) =>
        tracks.length >= 2 ? tracks : albumTracks(albums.find((album) => album.track_count >= 2)!.id),
      )
      const one = await call<{ id: string }>("POST", "/api/playlists", {
        name: `One ${viewport.name}`,
        track_ids: [first!.id],
      })
      const two = await call<{ id: string }>("POST", "/api/playlists", {
        name: `Two ${viewport.name}`,
        track_ids: [first!.id, second!.id],
      })
      await go(page, "/playlists", "Playlists")
      const rows = page.getByRole("list", { name: "Your playlists" }).getByRole("listitem")
      await rows
        .filter({ hasText: `One ${viewport.name}` })
        .getByText(/^1 track · /)
        .waitFor()
      await rows
        .filter({ hasText: `Two ${viewport.name}` })
        .getByText(/^2 tracks · /)
        .waitFor()
      expect(await mainText(page)).not.toMatch(wrong)
      await go(page, `/playlists/${one.id}`, `One ${viewport.name}`)
      await page
        .locator("header")
        .getByText(/^1 track · /)
        .waitFor()
      expect(await mainText(page)).not.toMatch(wrong)
      await shot(page, `polish-one-track-playlist-${viewport.name}`)
      // The queue of that one track.
      await page.locator("main").getByRole("button", { name: "Play", exact: true }).click()
      // (Through the app's own link: a page load would start a new player.)
      await (await navLink(page, "Queue")).click()
      await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor()
      await page
        .locator("main")
        .getByText(/^1 track\b/)
        .waitFor()
      await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
      // An artist with one album: "1 album" on the artist page and on the artist's card.
      const counts = new Map<string, number>()
      for (const album of albums) counts.set(album.artist_id, (counts.get(album.artist_id) ?? 0) + 1)
      const single = albums.find((album) => counts.get(album.artist_id) === 1)!
      const artist = await call<ArtistDetail>("GET", `/api/artists/${single.artist_id}`)
      expect(artist.album_count).toBe(1)
      await go(page, `/artists/${artist.id}`, artist.name)
      await page
        .locator("header")
        .getByText(new RegExp(`^1 album · ${artist.track_count} tracks?$`))
        .waitFor()
      expect(await mainText(page)).not.toMatch(wrong)
      await go(page, `/search?q=${encodeURIComponent(artist.name)}`, "Search")
      await page
        .getByRole("region", { name: "Artists" })
        .getByRole("listitem")
        .filter({ hasText: artist.name })
        .getByText("1 album", { exact: true })
        .waitFor()
      expect(await mainText(page)).not.toMatch(wrong)
      for (const playlist of [one, two]) await call("DELETE", `/api/playlists/${playlist.id}`)
      expect(errors).toEqual([])
      await context.close()
    })

    it(`the artist page lists top tracks and similar artists, each loaded once (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const artist = played
      // What the server ranks now (the other viewport's run played one more).
      const ranked = (await call<{ tracks: ReadonlyArray<Track> }>("GET", `/api/artists/${artist.id}/top-tracks`))
        .tracks
      expect(ranked.length).toBeGreaterThan(1)
      const similar = await call<ReadonlyArray<{ id: string; name: string }>>(
        "GET",
        `/api/artists/${artist.id}/similar`,
      )
      expect(similar.length).toBeGreaterThan(0)
      const asked: Array<string> = []
      page.on("request", (request) => {
        const { pathname } = new URL(request.url())
        if (/^\/api\/artists\/[^/]+\/(top-tracks|similar)$/.test(pathname)) asked.push(pathname)
      })
      await go(page, `/artists/${artist.id}`, artist.name)
      // Top tracks: the caller's most played first, at most 10, playable as one queue from the artist.
      const top = page.getByRole("list", { name: `Top tracks of ${artist.name}` })
      await top.getByRole("listitem").first().waitFor()
      const titles = await top.getByRole("button", { name: /^Play / }).allInnerTexts()
      expect(titles).toEqual(ranked.slice(0, 10).map((track) => track.title))
      // Similar artists: a row of cards linking to their pages.
      const row = page.getByRole("region", { name: "Similar artists" })
      for (const other of similar)
        await expect(row.getByRole("link", { name: other.name, exact: true }).getAttribute("href")).resolves.toBe(
          `/artists/${other.id}`,
        )
      // Each loaded once: nothing asks again while the page sits there (no effect re-running on its own data).
      await page.waitForTimeout(1_500)
      expect(asked.sort()).toEqual([`/api/artists/${artist.id}/similar`, `/api/artists/${artist.id}/top-tracks`])
      await expectNoSidewaysScroll(page)
      await expectNoSeriousA11yViolations(page, `artist (${viewport.name})`)
      await shot(page, `polish-artist-${viewport.name}`)
      // Playing from the list plays the top tracks from that one, reported as the artist's.
      await top.getByRole("button", { name: `Play ${ranked[1]!.title}` }).click()
      await page.getByTestId("now-playing-title").filter({ hasText: ranked[1]!.title }).waitFor()
      const play = await eventually(
        async () =>
          (
            await call<{ items: ReadonlyArray<{ track_id: string; source: string | null }> }>(
              "GET",
              "/api/me/plays?limit=5",
            )
          ).items.find((item) => item.track_id === ranked[1]!.id && item.source === `artist:${artist.id}`),
        10_000,
        "the top-track play",
      )
      expect(play).toBeDefined()
      await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
      // A similar artist's card opens that artist's page; no plays of theirs: a short line instead of a list.
      // One the caller never played (the learned similarity may rank an artist an earlier test played first).
      let other: { id: string; name: string } | undefined
      for (const candidate of similar) {
        if (candidate.id === artist.id) continue
        const theirs = await call<{ tracks: ReadonlyArray<Track> }>("GET", `/api/artists/${candidate.id}/top-tracks`)
        if (theirs.tracks.length === 0) {
          other = candidate
          break
        }
      }
      if (other === undefined) throw new Error("no similar artist without plays of the caller's")
      await row.getByRole("link", { name: other.name, exact: true }).click()
      await page.getByRole("heading", { name: other.name, level: 1 }).waitFor()
      await page
        .getByRole("region", { name: "Top tracks" })
        .getByText(`the tracks you play most by ${other.name} show up here`, { exact: false })
        .waitFor()
      await page.waitForTimeout(1_000)
      expect(asked.filter((asked) => asked.includes(other.id)).sort()).toEqual([
        `/api/artists/${other.id}/similar`,
        `/api/artists/${other.id}/top-tracks`,
      ])
      await expectNoSidewaysScroll(page)
      await shot(page, `polish-similar-artist-${viewport.name}`)
      expect(errors).toEqual([])
      await context.close()
    })
  }
})
