/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BITEXACT, ffmpeg, sineInput } from "../../../server/fixtures/ffmpeg.js"
import { buildFlac, type FlacParts, splitFlac, type TagSet } from "../../../server/fixtures/tags.js"
import { fixtureLibrary } from "../../../server/test/support/library.js"
import {
  adminCall,
  audioState,
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
 * The library as its tags say, in the web player (issue 31: item 10 and the web halves of items 6–7): the Artists
 * page, credited artists as links, disc headers, edition labels, paging an artist's albums, the lyrics panel and
 * ReplayGain. The server scans the project's fixture library plus files written here with the fixtures' own tag
 * writer: credits, discs with subtitles, two editions, lyrics sidecars, ReplayGain tags, and 105 albums of one
 * artist (more than the 100 an artist's detail embeds). Each rule at phone and desktop size.
 */

// ---- the fixture files ---------------------------------------------------------------------------------------

const ALBUMS_OF_PROLIFIC = 105
const SYNCED_LINES = 30
/** Seconds between two synced lines (30 lines over the 12 s song). */
const LINE_EVERY = 0.4

const syncedLine = (index: number) => `Synced line ${String(index + 1).padStart(2, "0")} of the harbour song`

const lrc = () =>
  [
    "[ti:Synced Song]",
    "[ar:Lyra Lines]",
    ...Array.from({ length: SYNCED_LINES }, (_, index) => {
      const at = index * LINE_EVERY
      const minutes = Math.floor(at / 60)
      const seconds = (at % 60).toFixed(2).padStart(5, "0")
      return `[${String(minutes).padStart(2, "0")}:${seconds}]${syncedLine(index)}`
    }),
  ].join("\n")

const PLAIN_LYRICS = "Plain words without a clock\nNo timing here at all\n\nA second verse, plainly"

/** Writes the test's own files into `root` (FLAC with the fixtures' Vorbis comment writer). */
const writeModelLibrary = async (root: string) => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-model-"))
  const template = async (seconds: number, frequency: number): Promise<FlacParts> => {
    const file = path.join(work, `${seconds}.flac`)
    await ffmpeg([...sineInput(seconds, frequency), ...BITEXACT, "-c:a", "flac", "-f", "flac", file])
    return splitFlac(fs.readFileSync(file))
  }
  const short = await template(1, 440)
  const medium = await template(4, 523)
  const long = await template(12, 330)
  fs.rmSync(work, { recursive: true, force: true })
  const write = (relative: string, audio: FlacParts, tags: TagSet) => {
    const target = path.join(root, "Model", relative)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, buildFlac(audio, tags, "tonearm e2e"))
  }
  const gain = (trackDb: string, trackPeak: string, albumDb: string, albumPeak: string) =>
    [
      ["REPLAYGAIN_TRACK_GAIN", trackDb],
      ["REPLAYGAIN_TRACK_PEAK", trackPeak],
      ["REPLAYGAIN_ALBUM_GAIN", albumDb],
      ["REPLAYGAIN_ALBUM_PEAK", albumPeak],
    ] as const

  // Credits: a featured guest on one track; an album of two album artists.
  write("Alice Arden/Shared Light/01 Together.flac", short, {
    title: "Together",
    artist: "Alice Arden feat. Bob Brand",
    albumArtist: "Alice Arden",
    album: "Shared Light",
    track: { no: 1 },
    date: "2015",
  })
  write("Alice Arden/Shared Light/02 Alone.flac", short, {
    title: "Alone",
    artist: "Alice Arden",
    albumArtist: "Alice Arden",
    album: "Shared Light",
    track: { no: 2 },
    date: "2015",
  })
  write("Alice Arden/Duets/01 Two Voices.flac", short, {
    title: "Two Voices",
    artist: "Alice Arden / Carol Cho",
    albumArtist: "Alice Arden / Carol Cho",
    album: "Duets",
    track: { no: 1 },
    date: "2016",
  })
  // Two discs with subtitles.
  for (const [disc, subtitle, titles] of [
    [1, "Morning", ["Sunrise", "Coffee"]],
    [2, "Evening", ["Sunset", "Lamplight"]],
  ] as const)
    for (const [at, title] of titles.entries())
      write(`Dana Disc/Two Sides/${disc}-0${at + 1} ${title}.flac`, short, {
        title,
        artist: "Dana Disc",
        albumArtist: "Dana Disc",
        album: "Two Sides",
        track: { no: at + 1, of: 2 },
        disc: { no: disc, of: 2 },
        date: "2019",
        extra: [["DISCSUBTITLE", subtitle]],
      })
  // Two editions of one album: different release ids; one with a release comment.
  write("Eve Edition/Edition Album (2001)/01 Original Mix.flac", short, {
    title: "Original Mix",
    artist: "Eve Edition",
    albumArtist: "Eve Edition",
    album: "Edition Album",
    track: { no: 1 },
    date: "2001",
    mbids: { album: "0b1c2d3e-0000-4000-8000-000000000001" },
  })
  for (const [at, title] of ["Original Mix", "Bonus Cut"].entries())
    write(`Eve Edition/Edition Album (Deluxe)/0${at + 1} ${title}.flac`, short, {
      title,
      artist: "Eve Edition",
      albumArtist: "Eve Edition",
      album: "Edition Album",
      track: { no: at + 1 },
      date: "2011",
      mbids: { album: "0b1c2d3e-0000-4000-8000-000000000002" },
      extra: [["MUSICBRAINZ_ALBUMCOMMENT", "Deluxe Edition"]],
    })
  // Lyrics: a synced .lrc sidecar, an unsynced .txt sidecar, none.
  const lyra = (no: number, title: string, audio: FlacParts) =>
    write(`Lyra Lines/Sung Words/0${no} ${title}.flac`, audio, {
      title,
      artist: "Lyra Lines",
      albumArtist: "Lyra Lines",
      album: "Sung Words",
      track: { no },
      date: "2020",
    })
  lyra(1, "Synced Song", long)
  fs.writeFileSync(path.join(root, "Model/Lyra Lines/Sung Words/01 Synced Song.lrc"), lrc())
  lyra(2, "Plain Song", medium)
  fs.writeFileSync(path.join(root, "Model/Lyra Lines/Sung Words/02 Plain Song.txt"), PLAIN_LYRICS)
  lyra(3, "Silent Song", medium)
  // ReplayGain: −6 dB (peak 0.9) and +4 dB (peak 0.5) tracks on an album of −1 dB whose peak (1.25) limits it.
  write("Gain Gang/Loud Album/01 Hot.flac", medium, {
    title: "Hot",
    artist: "Gain Gang",
    albumArtist: "Gain Gang",
    album: "Loud Album",
    track: { no: 1 },
    date: "2021",
    extra: gain("-6.00 dB", "0.900000", "-1.00 dB", "1.250000"),
  })
  write("Gain Gang/Loud Album/02 Quiet.flac", medium, {
    title: "Quiet",
    artist: "Gain Gang",
    albumArtist: "Gain Gang",
    album: "Loud Album",
    track: { no: 2 },
    date: "2021",
    extra: gain("+4.00 dB", "0.500000", "-1.00 dB", "1.250000"),
  })
  // Sort names: a leading article, and a sort tag.
  write("The Zephyrs/Windward/01 Gust.flac", short, {
    title: "Gust",
    artist: "The Zephyrs",
    albumArtist: "The Zephyrs",
    album: "Windward",
    track: { no: 1 },
    date: "2010",
  })
  write("Ziggy Ahn/First Steps/01 Hello.flac", short, {
    title: "Hello",
    artist: "Ziggy Ahn",
    albumArtist: "Ziggy Ahn",
    album: "First Steps",
    track: { no: 1 },
    date: "2012",
    extra: [
      ["ARTISTSORT", "Ahn, Ziggy"],
      ["ALBUMARTISTSORT", "Ahn, Ziggy"],
    ],
  })
  // One artist with more albums than an artist's detail embeds; a guest on every one of them, and a guest each.
  for (let album = 1; album <= ALBUMS_OF_PROLIFIC; album++) {
    const volume = `Volume ${String(album).padStart(3, "0")}`
    for (const [at, guest] of ["Guest Star", `Guest ${String(album).padStart(3, "0")}`].entries())
      write(`Prolific Pat/${volume}/0${at + 1} Song ${at + 1}.flac`, short, {
        title: `${volume} Song ${at + 1}`,
        artist: `Prolific Pat feat. ${guest}`,
        albumArtist: "Prolific Pat",
        album: volume,
        track: { no: at + 1 },
        date: String(1900 + album),
      })
  }
}

// ---- API shapes (raw JSON) -----------------------------------------------------------------------------------

interface Credit {
  readonly id: string
  readonly name: string
  readonly role?: "main" | "featured"
}
interface Artist {
  readonly id: string
  readonly name: string
  readonly sort_name: string
  readonly album_count: number
  readonly track_count: number
}
interface AlbumRef {
  readonly id: string
  readonly title: string
  readonly artist_id: string
  readonly artist_name: string
  readonly artists: ReadonlyArray<Credit>
  readonly version: string | null
}
interface Track {
  readonly id: string
  readonly title: string
  readonly artist_name: string
  readonly artists: ReadonlyArray<Credit>
  readonly disc_number: number | null
  readonly replay_gain: {
    readonly track_gain_db: number | null
    readonly track_peak: number | null
    readonly album_gain_db: number | null
    readonly album_peak: number | null
  }
}
interface AlbumDetail extends AlbumRef {
  readonly tracks: ReadonlyArray<Track>
  readonly discs: ReadonlyArray<{ readonly number: number; readonly subtitle: string | null }>
}
interface ArtistDetail extends Artist {
  readonly albums: ReadonlyArray<AlbumRef>
  readonly albums_total: number
  readonly appears_on: ReadonlyArray<AlbumRef>
  readonly appears_on_total: number
}
interface Paged<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
}

let server: WebServer
let browser: Browser
let artists: ReadonlyArray<Artist>
let albums: ReadonlyArray<AlbumRef>

const call = <A>(route: string) => adminCall<A>(server, "GET", route)
const allPages = async <A>(route: string) => {
  const items: Array<A> = []
  for (;;) {
    const page = await call<Paged<A>>(`${route}${route.includes("?") ? "&" : "?"}offset=${items.length}&limit=500`)
    items.push(...page.items)
    if (page.items.length === 0 || items.length >= page.total) return items
  }
}
const artistNamed = (name: string) => {
  const artist = artists.find((candidate) => candidate.name === name)
  if (artist === undefined) throw new Error(`no artist ${name}`)
  return artist
}
const albumTitled = (title: string, version?: string) => {
  const album = albums.find(
    (candidate) => candidate.title === title && (version === undefined || candidate.version === version),
  )
  if (album === undefined) throw new Error(`no album ${title} ${version ?? ""}`)
  return album
}
const albumDetail = (title: string, version?: string) =>
  call<AlbumDetail>(`/api/albums/${albumTitled(title, version).id}`)

beforeAll(async () => {
  const { root } = await fixtureLibrary()
  await writeModelLibrary(root)
  server = await startServer({ libraryDir: root })
  browser = await launchBrowser()
  artists = await allPages<Artist>("/api/library/artists")
  albums = await allPages<AlbumRef>("/api/library/albums")
}, 300_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

// ---- page helpers --------------------------------------------------------------------------------------------

const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 800 },
] as const
type Viewport = (typeof VIEWPORTS)[number]

const openPage = async (viewport: Viewport) => {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } })
  const page = await context.newPage()
  const errors = collectErrors(page)
  await signIn(page, server.url)
  return { context, page, errors }
}

const go = (page: Page, route: string, heading: string) => openAt(page, `${server.url}${route}`, heading)

/** A link of the app's navigation: the sidebar's, or on a phone the menu's (opened from the bottom bar). */
const navLink = async (page: Page, name: string) => {
  const menu = page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Menu" })
  if (!(await menu.isVisible()))
    return page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true })
  if ((await menu.getAttribute("aria-expanded")) !== "true") await menu.click()
  return page.getByRole("navigation", { name: "Menu" }).getByRole("link", { name, exact: true })
}

/** On a phone, opens Now Playing from the mini player (where the bar's other controls are); elsewhere nothing. */
const openFullPlayer = async (page: Page) => {
  const open = page.getByRole("button", { name: /^Open Now Playing/ })
  if (!(await open.isVisible())) return
  await open.click()
  await page.getByRole("dialog", { name: "Now Playing" }).waitFor()
}

/** Closes Now Playing when it is open. */
const closeFullPlayer = async (page: Page) => {
  const sheet = page.getByRole("dialog", { name: "Now Playing" })
  if (!(await sheet.isVisible())) return
  await sheet.getByRole("button", { name: "Close Now Playing" }).click()
  await sheet.waitFor({ state: "detached" })
}

/** Through the app's own navigation (a page load would start a new player). */
const navTo = async (page: Page, name: string) => {
  await (await navLink(page, name)).click()
  await page.getByRole("heading", { name, level: 1 }).waitFor()
}

/** The viewport as it is, into test/e2e/screenshots and /tmp (git-ignored; looked at by eye). */
const shot = async (page: Page, name: string, fullPage = false) => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage })
  fs.mkdirSync("/tmp/tonearm-shots", { recursive: true })
  fs.copyFileSync(path.join(SCREENSHOTS, `${name}.png`), path.join("/tmp/tonearm-shots", `${name}.png`))
}

const pause = (page: Page) =>
  page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())

/** The page does not scroll sideways (boxes that scroll themselves, like the letter bar, may). */
const expectNoSidewaysScroll = async (page: Page) => {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth
    if (document.documentElement.scrollWidth <= width) return []
    const scrolled = (element: Element) => {
      for (let at = element.parentElement; at !== null; at = at.parentElement)
        if (getComputedStyle(at).overflowX !== "visible") return true
      return false
    }
    return Array.from(document.querySelectorAll("body *"))
      .filter((element) => element.getBoundingClientRect().right > width + 1 && !scrolled(element))
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}`)
  })
  if (overflow.length > 0) throw new Error(`scrolls sideways: ${overflow.join(", ")}`)
}

/** The links of a locator: their text and href. */
const links = (scope: Locator) =>
  scope
    .getByRole("link")
    .evaluateAll((anchors) => anchors.map((anchor) => [anchor.textContent ?? "", anchor.getAttribute("href") ?? ""]))

/** Requests the page makes whose path matches. */
const recordRequests = (page: Page, pattern: RegExp) => {
  const seen: Array<string> = []
  page.on("request", (request) => {
    const url = new URL(request.url())
    if (pattern.test(url.pathname)) seen.push(url.pathname + url.search)
  })
  return seen
}

/** The first letter the server sorts an artist under (its sort key folds case and accents). */
const letterOf = (sortName: string) => {
  const first = sortName
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .charAt(0)
  return first === "" || first < "a" ? "#" : first.toUpperCase()
}

// ---- the rules -----------------------------------------------------------------------------------------------

describe("the library model in the web player", () => {
  it("the fixture library has what the rules need", async () => {
    expect(artists.length).toBeGreaterThan(100)
    const pat = await call<ArtistDetail>(`/api/artists/${artistNamed("Prolific Pat").id}`)
    expect(pat.albums.length).toBe(100)
    expect(pat.albums_total).toBe(ALBUMS_OF_PROLIFIC)
    const together = (await albumDetail("Shared Light")).tracks.find((track) => track.title === "Together")!
    expect(together.artists.map((credit) => [credit.name, credit.role])).toEqual([
      ["Alice Arden", "main"],
      ["Bob Brand", "featured"],
    ])
    expect((await albumDetail("Two Sides")).discs).toEqual([
      { number: 1, subtitle: "Morning" },
      { number: 2, subtitle: "Evening" },
    ])
    expect(albums.filter((album) => album.title === "Edition Album").map((album) => album.version)).toEqual(
      expect.arrayContaining(["Deluxe Edition", "2001"]),
    )
    expect((await albumDetail("Loud Album")).tracks[0]!.replay_gain).toEqual({
      track_gain_db: -6,
      track_peak: 0.9,
      album_gain_db: -1,
      album_peak: 1.25,
    })
  })

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.name} ${viewport.width}×${viewport.height}`

    it(`the Artists page lists artists A–Z by sort name and pages to the end (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const asked = recordRequests(page, /^\/api\/library\/artists$/)
      await navTo(page, "Artists")
      await page.getByText(`${artists.length} artists`, { exact: true }).waitFor()
      // A–Z by sort name: the article moves to the end, a sort tag wins.
      const names = artists.map((artist) => artist.name)
      expect(names.indexOf("Ziggy Ahn")).toBeLessThan(names.indexOf("Alice Arden"))
      expect(names.indexOf("The Zephyrs")).toBeGreaterThan(names.indexOf("Prolific Pat"))
      await expectNoSidewaysScroll(page)
      await expectNoSeriousA11yViolations(page, `artists (${viewport.name})`)
      await shot(page, `model-artists-${viewport.name}`)
      // Scroll to the end, reading every row on the way: all of them, in the server's order.
      const list = page.getByRole("list", { name: "Artists" })
      const seen = new Map<number, { name: string; letter: string; counts: string; href: string }>()
      for (let guard = 0; guard < 200; guard++) {
        await eventually(
          async () => ((await list.getByText("…", { exact: true }).count()) === 0 ? true : undefined),
          10_000,
          "the rows in view to load",
        )
        const rows = await list.locator("li[data-artist-index]").evaluateAll((items) =>
          items.map((item) => ({
            at: Number(item.getAttribute("data-artist-index")),
            name: item.querySelector("a")?.textContent ?? "",
            href: item.querySelector("a")?.getAttribute("href") ?? "",
            letter: item.getAttribute("data-letter") ?? "",
            counts: item.querySelector(".counts")?.textContent ?? "",
          })),
        )
        for (const row of rows) seen.set(row.at, row)
        const done = await page.evaluate(() => window.scrollY + window.innerHeight >= document.body.scrollHeight - 2)
        if (done && seen.has(artists.length - 1)) break
        await page.mouse.wheel(0, 500)
        await page.waitForTimeout(50)
      }
      expect([...seen.keys()].sort((a, b) => a - b)).toEqual(artists.map((_, at) => at))
      expect([...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row.name)).toEqual(names)
      // Pages of the list were asked as it scrolled, not all at once.
      expect(asked.length).toBeGreaterThan(1)
      for (const [at, row] of seen) {
        const artist = artists[at]!
        expect(row.href).toBe(`/artists/${artist.id}`)
        expect(row.letter).toBe(letterOf(artist.sort_name))
      }
      const bob = artistNamed("Bob Brand")
      expect(bob.track_count).toBe(1)
      expect(seen.get(artists.indexOf(bob))!.counts).toBe("0 albums · 1 track")
      const ziggy = artistNamed("Ziggy Ahn")
      expect(seen.get(artists.indexOf(ziggy))!.letter).toBe("A")
      expect(seen.get(artists.indexOf(ziggy))!.counts).toBe("1 album · 1 track")
      expect(seen.get(artists.indexOf(artistNamed("The Zephyrs")))!.letter).toBe("Z")
      await shot(page, `model-artists-end-${viewport.name}`)
      // Letter jumps: to the first artist of the section, focused, on screen.
      for (const letter of ["A", "G", "Z"]) {
        const first = artists.find((artist) => letterOf(artist.sort_name) === letter)!
        await page.getByRole("button", { name: `Jump to ${letter}`, exact: true }).click()
        const link = list.getByRole("link", { name: first.name, exact: true })
        await eventually(
          async () => ((await link.evaluate((element) => element === document.activeElement)) ? true : undefined),
          10_000,
          `the jump to ${letter}`,
        )
        const box = (await link.boundingBox())!
        expect(box.y).toBeGreaterThanOrEqual(0)
        expect(box.y + box.height).toBeLessThanOrEqual(viewport.height)
        if (letter === "G") await shot(page, `model-artists-jump-g-${viewport.name}`)
      }
      // A row opens the artist's page.
      await list.getByRole("link", { name: "The Zephyrs", exact: true }).click()
      await page.getByRole("heading", { name: "The Zephyrs", level: 1 }).waitFor()
      expect(errors).toEqual([])
      await context.close()
    })

    it(`credited artists are links: a featured guest links to their page (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const shared = await albumDetail("Shared Light")
      const together = shared.tracks.find((track) => track.title === "Together")!
      const [alice, bob] = together.artists
      const expected = [
        ["Alice Arden", `/artists/${alice!.id}`],
        ["Bob Brand", `/artists/${bob!.id}`],
      ]
      // The album's track list: each credited name its own link, the guest after "feat.".
      await go(page, `/albums/${shared.id}`, "Shared Light")
      const row = page.getByRole("listitem").filter({ has: page.getByRole("button", { name: "Play Together" }) })
      await expect(links(row.locator(".t.muted"))).resolves.toEqual(expected)
      await expect(row.locator(".t.muted").textContent()).resolves.toBe("Alice Arden feat. Bob Brand")
      await expectNoSidewaysScroll(page)
      await shot(page, `model-credits-album-${viewport.name}`)
      // The player bar and the queue.
      await row.getByRole("button", { name: "Play Together" }).click()
      await openFullPlayer(page)
      const playing = page.getByTestId("now-playing-artists")
      await playing.getByRole("link", { name: "Bob Brand" }).waitFor()
      await pause(page)
      await expect(links(playing)).resolves.toEqual(expected)
      await shot(page, `model-credits-player-${viewport.name}`)
      await closeFullPlayer(page)
      await navTo(page, "Queue")
      const queued = page.getByRole("list", { name: "Queue" }).getByRole("listitem").first()
      await expect(links(queued)).resolves.toEqual(expected)
      // Search results: the track row and the album card.
      await navTo(page, "Search")
      await page.getByRole("searchbox", { name: "Search artists, albums and tracks" }).fill("together")
      const found = page
        .getByRole("list", { name: "Tracks found" })
        .getByRole("listitem")
        .filter({ hasText: "Together" })
        .first()
      await found.getByRole("link", { name: "Bob Brand", exact: true }).waitFor()
      await expect(links(found.locator(".t.muted")).then((all) => all.slice(0, 2))).resolves.toEqual(expected)
      // The guest's link opens the guest's page, where the album is under "Appears on".
      await found.getByRole("link", { name: "Bob Brand", exact: true }).click()
      await page.getByRole("heading", { name: "Bob Brand", level: 1 }).waitFor()
      await page
        .getByRole("region", { name: "Appears on" })
        .getByRole("link", { name: "Shared Light", exact: true })
        .waitFor()
      await expectNoSidewaysScroll(page)
      await shot(page, `model-credits-guest-${viewport.name}`)
      // An album of two album artists: the header and its card link both.
      const duets = await albumDetail("Duets")
      expect(duets.artists.map((artist) => artist.name)).toEqual(["Alice Arden", "Carol Cho"])
      await go(page, `/albums/${duets.id}`, "Duets")
      await expect(links(page.locator("header .album-artists"))).resolves.toEqual(
        duets.artists.map((artist) => [artist.name, `/artists/${artist.id}`]),
      )
      await go(page, `/artists/${alice!.id}`, "Alice Arden")
      const card = page.getByRole("region", { name: "Albums" }).getByRole("listitem").filter({ hasText: "Duets" })
      await expect(links(card).then((all) => all.slice(1))).resolves.toEqual(
        duets.artists.map((artist) => [artist.name, `/artists/${artist.id}`]),
      )
      await card.getByRole("link", { name: "Carol Cho", exact: true }).click()
      await page.getByRole("heading", { name: "Carol Cho", level: 1 }).waitFor()
      await expectNoSeriousA11yViolations(page, `credits (${viewport.name})`)
      expect(errors).toEqual([])
      await context.close()
    })

    it(`an album with two discs shows disc headers with subtitles (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const album = await albumDetail("Two Sides")
      await go(page, `/albums/${album.id}`, "Two Sides")
      await page.locator("header").getByText("2 discs · 4 tracks", { exact: false }).waitFor()
      const headings = await page.locator("main h2").allInnerTexts()
      expect(headings).toEqual(["Disc 1 — Morning", "Disc 2 — Evening"])
      for (const [disc, titles] of [
        ["Disc 1 — Morning", ["Sunrise", "Coffee"]],
        ["Disc 2 — Evening", ["Sunset", "Lamplight"]],
      ] as const) {
        const list = page.getByRole("region", { name: disc }).getByRole("list")
        await expect(list.getByRole("button", { name: /^Play / }).allInnerTexts()).resolves.toEqual([...titles])
        // Numbers within the disc (1, 2), not "2-1".
        await expect(list.locator(".num").allInnerTexts()).resolves.toEqual(["1", "2"])
      }
      await expectNoSidewaysScroll(page)
      await expectNoSeriousA11yViolations(page, `discs (${viewport.name})`)
      await shot(page, `model-discs-${viewport.name}`, true)
      // Playing from disc 2 plays the album from there: the queue is the whole album, in order.
      await page.getByRole("region", { name: "Disc 2 — Evening" }).getByRole("button", { name: "Play Sunset" }).click()
      await page.getByTestId("now-playing-title").filter({ hasText: "Sunset" }).waitFor()
      await pause(page)
      await navTo(page, "Queue")
      const queue = page.getByRole("list", { name: "Queue" })
      await expect(queue.getByRole("button", { name: /^Play / }).allInnerTexts()).resolves.toEqual(
        album.tracks.map((track) => track.title),
      )
      await expect(
        queue
          .locator("li[aria-current=true]")
          .getByRole("button", { name: /^Play / })
          .textContent(),
      ).resolves.toBe("Sunset")
      expect(errors).toEqual([])
      await context.close()
    })

    it(`editions show their version label (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const deluxe = albumTitled("Edition Album", "Deluxe Edition")
      const original = albumTitled("Edition Album", "2001")
      // The album page: the label next to the title.
      await go(page, `/albums/${deluxe.id}`, "Edition Album")
      await expect(page.getByTestId("album-version").textContent()).resolves.toBe("Deluxe Edition")
      const title = (await page.getByRole("heading", { name: "Edition Album", level: 1 }).boundingBox())!
      const label = (await page.getByTestId("album-version").boundingBox())!
      // Beside the title (or just under it when the title fills a phone's line).
      expect(label.y).toBeLessThan(title.y + title.height + 4)
      await expectNoSidewaysScroll(page)
      await shot(page, `model-edition-${viewport.name}`)
      await go(page, `/albums/${original.id}`, "Edition Album")
      await expect(page.getByTestId("album-version").textContent()).resolves.toBe("2001")
      // Album cards (the artist's page) and the album list tell the two apart.
      await go(page, `/artists/${deluxe.artist_id}`, "Eve Edition")
      const cards = page.getByRole("region", { name: "Albums" })
      await cards.getByRole("link", { name: "Edition Album Deluxe Edition", exact: true }).waitFor()
      await cards.getByRole("link", { name: "Edition Album 2001", exact: true }).waitFor()
      await expectNoSidewaysScroll(page)
      await expectNoSeriousA11yViolations(page, `editions (${viewport.name})`)
      await shot(page, `model-edition-cards-${viewport.name}`)
      await go(page, "/search?q=edition%20album", "Search")
      const found = page.getByRole("region", { name: "Albums" })
      await found.getByRole("link", { name: "Edition Album Deluxe Edition", exact: true }).waitFor()
      await found.getByRole("link", { name: "Edition Album 2001", exact: true }).waitFor()
      await found.getByRole("link", { name: "Edition Album Deluxe Edition", exact: true }).click()
      await page.getByTestId("album-version").filter({ hasText: "Deluxe Edition" }).waitFor()
      expect(errors).toEqual([])
      await context.close()
    })

    it(`the artist page pages all albums beyond the first 100 (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const pat = await call<ArtistDetail>(`/api/artists/${artistNamed("Prolific Pat").id}`)
      const everything = await allPages<AlbumRef>(`/api/library/albums?artist_id=${pat.id}&role=album_artist`)
      expect(everything).toHaveLength(ALBUMS_OF_PROLIFIC)
      const asked = recordRequests(page, /^\/api\/library\/albums$/)
      await go(page, `/artists/${pat.id}`, "Prolific Pat")
      const row = page.getByRole("region", { name: "Albums" })
      await row.getByText(`Showing 100 of ${ALBUMS_OF_PROLIFIC} albums`).waitFor()
      await expect(row.getByRole("listitem").count()).resolves.toBe(100)
      await row.getByRole("button", { name: `Show all ${ALBUMS_OF_PROLIFIC} albums` }).click()
      await row.getByText(`All ${ALBUMS_OF_PROLIFIC} albums`).waitFor()
      const titles = await row.locator(".card-title").allInnerTexts()
      expect(titles).toEqual(everything.map((album) => album.title))
      expect(
        asked.some((request) => request.includes(`artist_id=${pat.id}`) && request.includes("role=album_artist")),
      ).toBe(true)
      await expectNoSidewaysScroll(page)
      await row.getByRole("link", { name: "Volume 105", exact: true }).scrollIntoViewIfNeeded()
      await shot(page, `model-artist-all-albums-${viewport.name}`)
      // The guest on every one of them: "Appears on" pages the same way.
      const star = await call<ArtistDetail>(`/api/artists/${artistNamed("Guest Star").id}`)
      expect(star.appears_on.length).toBe(100)
      expect(star.appears_on_total).toBe(ALBUMS_OF_PROLIFIC)
      await go(page, `/artists/${star.id}`, "Guest Star")
      const appears = page.getByRole("region", { name: "Appears on" })
      await appears.getByRole("button", { name: `Show all ${ALBUMS_OF_PROLIFIC} albums` }).click()
      await appears.getByText(`All ${ALBUMS_OF_PROLIFIC} albums`).waitFor()
      await expect(appears.getByRole("listitem").count()).resolves.toBe(ALBUMS_OF_PROLIFIC)
      expect(
        asked.some((request) => request.includes(`artist_id=${star.id}`) && request.includes("role=appears_on")),
      ).toBe(true)
      await expectNoSeriousA11yViolations(page, `all albums (${viewport.name})`)
      expect(errors).toEqual([])
      await context.close()
    })

    it(`the lyrics panel follows synced lyrics and seeks on click (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const album = await albumDetail("Sung Words")
      const [synced, plain] = album.tracks
      const asked = recordRequests(page, /^\/api\/tracks\/[^/]+\/lyrics$/)
      await go(page, `/albums/${album.id}`, "Sung Words")
      await page.getByRole("button", { name: "Play Synced Song" }).click()
      await page.getByTestId("now-playing-title").filter({ hasText: "Synced Song" }).waitFor()
      await page.getByRole("button", { name: "Lyrics" }).click()
      const panel = page.getByRole("complementary", { name: "Lyrics" })
      const lines = panel.getByRole("list", { name: "Lyrics of Synced Song" })
      await lines.getByRole("button").first().waitFor()
      await expect(lines.getByRole("button").count()).resolves.toBe(SYNCED_LINES)
      const currentIndex = () =>
        lines
          .getByRole("button")
          .evaluateAll((buttons) => buttons.findIndex((button) => button.getAttribute("aria-current") === "true"))
      // Playback moves the highlight forward on its own.
      await eventually(async () => ((await currentIndex()) >= 3 ? true : undefined), 10_000, "the highlight to move")
      // Further on, the panel scrolls to keep the current line in view.
      await page.evaluate(() => {
        ;(document.getElementById("tonearm-audio") as HTMLAudioElement).currentTime = 8.1
      })
      const inView = async (index: number) => {
        const body = (await panel.locator(".lyrics-body").boundingBox())!
        const line = (await lines.getByRole("button").nth(index).boundingBox())!
        return line.y >= body.y - 1 && line.y + line.height <= body.y + body.height + 1
      }
      await eventually(
        async () => {
          const at = await currentIndex()
          return at >= 20 && (await inView(at)) ? true : undefined
        },
        10_000,
        "the panel to follow line 21",
      )
      await expect(panel.locator(".lyrics-body").evaluate((body) => body.scrollTop)).resolves.toBeGreaterThan(0)
      await pause(page)
      await shot(page, `model-lyrics-synced-${viewport.name}`)
      // A click on a line seeks there and highlights it.
      const target = 6
      await lines.getByRole("button", { name: syncedLine(target), exact: true }).click()
      await eventually(
        async () => (Math.abs((await audioState(page)).currentTime - target * LINE_EVERY) < 0.05 ? true : undefined),
        5_000,
        "the seek",
      )
      await eventually(async () => ((await currentIndex()) === target ? true : undefined), 5_000, "line 7 current")
      await eventually(async () => ((await inView(target)) ? true : undefined), 5_000, "line 7 in view")
      await expectNoSeriousA11yViolations(page, `lyrics (${viewport.name})`)
      await shot(page, `model-lyrics-seek-${viewport.name}`)
      // Unsynced lyrics are text; each track's lyrics were asked once.
      await page.getByRole("button", { name: "Next track" }).click()
      await page.getByTestId("now-playing-title").filter({ hasText: "Plain Song" }).waitFor()
      await pause(page)
      const text = panel.getByTestId("lyrics-text")
      await text.getByText("No timing here at all").waitFor()
      await expect(text.getByRole("button").count()).resolves.toBe(0)
      await shot(page, `model-lyrics-plain-${viewport.name}`)
      // Closing and opening again asks nothing new (Escape closes, focus returns to the button).
      await page.keyboard.press("Escape")
      await panel.waitFor({ state: "detached" })
      await expect(
        page.getByRole("button", { name: "Lyrics" }).evaluate((button) => button === document.activeElement),
      ).resolves.toBe(true)
      await page.getByRole("button", { name: "Lyrics" }).click()
      await text.getByText("No timing here at all").waitFor()
      await page.waitForTimeout(1_500)
      expect(asked.sort()).toEqual([`/api/tracks/${plain!.id}/lyrics`, `/api/tracks/${synced!.id}/lyrics`].sort())
      expect(errors).toEqual([])
      await context.close()
    })

    it(`lyrics: a track without lyrics shows the empty state (${size})`, async () => {
      // The queue is kept on the server across pages: none saved, so the new page starts with nothing playing.
      await adminCall(server, "PUT", "/api/me/play-queue", { track_ids: [] })
      const { context, page, errors } = await openPage(viewport)
      const album = await albumDetail("Sung Words")
      const silent = album.tracks.find((track) => track.title === "Silent Song")!
      const asked = recordRequests(page, /^\/api\/tracks\/[^/]+\/lyrics$/)
      // The panel opened with nothing playing says so.
      await page.getByRole("button", { name: "Lyrics" }).click()
      const panel = page.getByRole("complementary", { name: "Lyrics" })
      await panel.getByText("Nothing is playing.", { exact: false }).waitFor()
      await go(page, `/albums/${album.id}`, "Sung Words")
      await page.getByRole("button", { name: "Play Silent Song" }).click()
      await page.getByTestId("now-playing-title").filter({ hasText: "Silent Song" }).waitFor()
      await pause(page)
      await page.getByRole("button", { name: "Lyrics" }).click()
      await panel.getByTestId("lyrics-empty").getByText("No lyrics for this track.").waitFor()
      // No request loop: the 404 is asked once.
      await page.waitForTimeout(2_000)
      expect(asked).toEqual([`/api/tracks/${silent.id}/lyrics`])
      await expectNoSidewaysScroll(page)
      await expectNoSeriousA11yViolations(page, `no lyrics (${viewport.name})`)
      await shot(page, `model-lyrics-empty-${viewport.name}`)
      await panel.getByRole("button", { name: "Close lyrics" }).click()
      await panel.waitFor({ state: "detached" })
      expect(errors).toEqual([])
      await context.close()
    })

    it(`replay gain: album mode applies album gain, never above peak (${size})`, async () => {
      const { context, page, errors } = await openPage(viewport)
      const album = await albumDetail("Loud Album")
      const [hot, quiet] = album.tracks
      const volume = async () =>
        await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).volume)
      const expectVolume = async (expected: number, what: string) =>
        eventually(async () => (Math.abs((await volume()) - expected) < 0.005 ? true : undefined), 5_000, what)
      // The setting, in Playback settings; kept in this browser.
      await navTo(page, "Playback")
      await page.getByRole("radio", { name: /^Album/ }).check()
      expect(await page.evaluate(() => localStorage.getItem("tonearm.replay-gain"))).toBe("album")
      await expectNoSidewaysScroll(page)
      await expectNoSeriousA11yViolations(page, `playback settings (${viewport.name})`)
      // (A page load: the setting survives it.)
      await go(page, `/albums/${album.id}`, "Loud Album")
      await page.locator("main").getByRole("button", { name: "Play", exact: true }).click()
      await page.getByTestId("now-playing-title").filter({ hasText: "Hot" }).waitFor()
      await pause(page)
      // Album gain −1 dB would be ×0.891; the album peak 1.25 allows at most ×0.8.
      const peakLimited = 1 / hot!.replay_gain.album_peak!
      await expectVolume(peakLimited, "album gain, peak-limited")
      expect((await volume()) * hot!.replay_gain.album_peak!).toBeLessThanOrEqual(1 + 1e-9)
      await navTo(page, "Playback")
      await page
        .getByTestId("replay-gain-now")
        .getByText("its album gain, −1.00 dB, limited to −1.94 dB so that its peak (1.25) never clips", {
          exact: false,
        })
        .waitFor()
      await shot(page, `model-replay-gain-${viewport.name}`, true)
      // Track mode: −6 dB (×0.501) for Hot.
      await page.getByRole("radio", { name: /^Track/ }).check()
      await expectVolume(10 ** (-6 / 20), "track gain")
      // +4 dB (×1.585, under its peak's limit of ×2) for Quiet: as far as the listener's volume leaves room.
      await page.getByRole("button", { name: "Next track" }).click()
      await page.getByTestId("now-playing-title").filter({ hasText: "Quiet" }).waitFor()
      await pause(page)
      await expectVolume(1, "a boost, capped at the element's 1")
      // Volume 0.5 (Shift+↓ five times: the slider is hidden on a phone).
      for (let step = 0; step < 5; step++) await page.keyboard.press("Shift+ArrowDown")
      await expectVolume(0.5 * 10 ** (4 / 20), "a boost within the listener's volume")
      expect((await volume()) * quiet!.replay_gain.track_peak!).toBeLessThanOrEqual(0.5 + 1e-9)
      // Auto: album gain for the album played in order, track gain once shuffle reorders it.
      await page.getByRole("radio", { name: /^Auto/ }).check()
      await expectVolume(0.5 * peakLimited, "auto: album gain")
      await openFullPlayer(page)
      await page.getByRole("button", { name: "Shuffle" }).click()
      await expectVolume(0.5 * 10 ** (4 / 20), "auto: track gain when shuffled")
      await page.getByRole("button", { name: "Shuffle" }).click()
      await closeFullPlayer(page)
      // Off: the listener's volume alone.
      await page.getByRole("radio", { name: /^Off/ }).check()
      await expectVolume(0.5, "off")
      expect(errors).toEqual([])
      await context.close()
    })
  }
})
