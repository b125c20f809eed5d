/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import { Effect, Option } from "effect"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { logIn } from "../../../server/test/support/accounts.js"
import { type FakeHttpService, startFakeHttpService } from "../../../server/test/support/fakeHttp.js"
import {
  collectErrors,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  newContext,
  PASSWORD,
  screenshot,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

let server: WebServer
let browser: Browser
let mail: FakeHttpService

beforeAll(async () => {
  mail = await startFakeHttpService()
  server = await startServer({ mailWebhookUrl: Option.some(`${mail.url}/mail`) })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
  await mail?.close()
})

describe("browsing, playlists and the account in the web player", () => {
  it("follows a genre quick-jump link with a slash in it: the genre travels as ?genre=Rock%2FPop", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    await page.getByRole("link", { name: "Genres", exact: true }).click()
    await page.getByRole("heading", { name: "Genres", level: 1 }).waitFor()
    const link = page.getByRole("link", { name: /^Rock\/Pop \(/ })
    await expect(link.getAttribute("href")).resolves.toBe("/albums?genre=Rock%2FPop")
    await screenshot(page, "genres")
    await link.click()
    await page.getByRole("heading", { name: "Albums: Rock/Pop", level: 1 }).waitFor()
    expect(new URL(page.url()).search).toBe("?genre=Rock%2FPop")
    const expected = await server.run(server.admin.client.library.albums({ urlParams: { genre: "Rock/Pop" } }))
    expect(expected.total).toBeGreaterThan(0)
    for (const album of expected.items) await page.getByRole("link", { name: album.title, exact: true }).waitFor()
    // Reloading the deep link lands on the same filtered page (SPA fallback, the query kept).
    await page.reload()
    await page.getByRole("heading", { name: "Albums: Rock/Pop", level: 1 }).waitFor()
    // Genre chips on an album page link the same way.
    await page.getByRole("link", { name: expected.items[0]!.title, exact: true }).click()
    await page.getByRole("list", { name: "Genres" }).getByRole("link", { name: "Rock/Pop" }).waitFor()
    await expect(
      page.getByRole("list", { name: "Genres" }).getByRole("link", { name: "Rock/Pop" }).getAttribute("href"),
    ).resolves.toBe("/albums?genre=Rock%2FPop")
    // A year quick-jump from the years index.
    await page.getByRole("link", { name: "Years", exact: true }).click()
    await page.getByRole("heading", { name: "Years", level: 1 }).waitFor()
    await screenshot(page, "years")
    expect(errors).toEqual([])
    await context.close()
  })

  it("searches as you type (the address keeps the query) and likes an album and an artist, listed on Likes", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    const albums = await server.run(server.admin.client.library.albums({ urlParams: { limit: 1 } }))
    const album = albums.items[0]!
    await page.getByRole("link", { name: "Search", exact: true }).click()
    const box = page.getByRole("searchbox", { name: "Search artists, albums and tracks" })
    await box.pressSequentially(album.title.slice(0, 4), { delay: 30 })
    await page.getByRole("region", { name: "Albums" }).getByRole("link", { name: album.title, exact: true }).waitFor()
    expect(new URL(page.url()).searchParams.get("q")).toBe(album.title.slice(0, 4))
    await screenshot(page, "search")
    await page.getByRole("region", { name: "Albums" }).getByRole("link", { name: album.title, exact: true }).click()
    await page.getByRole("heading", { name: album.title, level: 1 }).waitFor()
    await page.getByRole("button", { name: `Like ${album.title}` }).click()
    await page.getByRole("link", { name: album.artist_name, exact: true }).first().click()
    await page.getByRole("heading", { name: album.artist_name, level: 1 }).waitFor()
    await page.getByRole("button", { name: `Like ${album.artist_name}` }).click()
    await page.getByRole("link", { name: "Likes", exact: true }).click()
    await page.getByRole("region", { name: "Albums" }).getByRole("link", { name: album.title, exact: true }).waitFor()
    await page
      .getByRole("region", { name: "Artists" })
      .getByRole("link", { name: album.artist_name, exact: true })
      .waitFor()
    const likes = await server.run(server.admin.client.likes.list())
    expect(likes.albums.map((liked) => liked.id)).toContain(album.id)
    expect(likes.artists.map((liked) => liked.id)).toContain(album.artist_id)
    // A plain search play carries no source (the baseline of the recommendation metrics).
    const detail = await server.run(server.admin.client.library.album({ path: { id: album.id } }))
    const track = detail.tracks[0]!
    await page.getByRole("link", { name: "Search", exact: true }).click()
    await page.getByRole("searchbox", { name: "Search artists, albums and tracks" }).fill(track.title)
    await page
      .getByRole("list", { name: "Tracks found" })
      .getByRole("button", { name: `Play ${track.title}` })
      .first()
      .click()
    const play = await eventually(
      async () =>
        (await server.run(server.admin.client.plays.history({ urlParams: { limit: 20 } }))).items.find(
          (item) => item.track_id === track.id,
        ),
      10_000,
      "the search play",
    )
    expect(play).toMatchObject({ source: null, device_class: "web" })
    await page.evaluate(() => (document.getElementById("tonearm-audio") as HTMLAudioElement).pause())
    expect(errors).toEqual([])
    await context.close()
  })

  it("makes a playlist, adds tracks from a track list, reorders by drag, buttons and keyboard, renames and deletes it", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    await signIn(page, server.url)
    const client = server.admin.client
    const album = await server.run(
      Effect.gen(function* () {
        const albums = yield* client.library.albums({ urlParams: { limit: 200 } })
        for (const ref of albums.items) {
          const detail = yield* client.library.album({ path: { id: ref.id } })
          if (detail.tracks.length >= 3) return detail
        }
        throw new Error("no album with three tracks")
      }),
    )
    await page.getByRole("link", { name: "Playlists", exact: true }).click()
    await page.getByLabel("New playlist name").fill("Road trip")
    await page.getByRole("button", { name: "Create playlist" }).click()
    await page.getByRole("heading", { name: "Road trip", level: 1 }).waitFor()
    const playlistId = new URL(page.url()).pathname.split("/").pop()!
    // Add three tracks from the album's track list, each through its ⋯ menu.
    await page.goto(`${server.url}/albums/${album.id}`)
    for (const track of album.tracks.slice(0, 3)) {
      await page.getByRole("button", { name: `More for ${track.title}` }).click()
      await page.getByRole("menuitem", { name: "Add to Road trip" }).click()
    }
    const entries = async () =>
      (await server.run(client.playlists.get({ path: { id: playlistId as never } }))).tracks.map(
        (entry) => entry.track.id,
      )
    await eventually(async () => ((await entries()).length === 3 ? true : undefined), 10_000, "three entries")
    const [a, b, c] = album.tracks.map((track) => track.id)
    expect(await entries()).toEqual([a, b, c])
    await page.getByRole("link", { name: "Playlists", exact: true }).click()
    await page.getByRole("link", { name: "Road trip" }).click()
    await page.getByRole("heading", { name: "Road trip", level: 1 }).waitFor()
    await page.getByRole("list", { name: "Tracks of Road trip" }).getByRole("listitem").nth(2).waitFor()
    await screenshot(page, "playlist")
    // Buttons: move the first down.
    await page.getByRole("button", { name: `Move ${album.tracks[0]!.title} down` }).click()
    await eventually(async () => ((await entries()).join() === [b, a, c].join() ? true : undefined), 10_000, "b a c")
    // Keyboard: Alt+↓ on the handle of the (now) first entry.
    await page.getByRole("button", { name: new RegExp(`^Reorder ${album.tracks[1]!.title}:`) }).focus()
    await page.keyboard.press("Alt+ArrowDown")
    await eventually(async () => ((await entries()).join() === [a, b, c].join() ? true : undefined), 10_000, "a b c")
    // Drag and drop: the last entry onto the first.
    const rows = page.getByRole("list", { name: "Tracks of Road trip" }).getByRole("listitem")
    await rows.nth(2).dragTo(rows.nth(0))
    await eventually(async () => ((await entries()).join() === [c, a, b].join() ? true : undefined), 10_000, "c a b")
    await expectNoSeriousA11yViolations(page, "playlist")
    // Remove one, rename, delete.
    await page.getByRole("button", { name: `Remove ${album.tracks[0]!.title}` }).click()
    await eventually(async () => ((await entries()).join() === [c, b].join() ? true : undefined), 10_000, "c b")
    await page.getByRole("button", { name: "Rename" }).click()
    await page.getByLabel("Playlist name").fill("Night drive")
    await page.getByRole("button", { name: "Save name" }).click()
    await page.getByRole("heading", { name: "Night drive", level: 1 }).waitFor()
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: "Delete playlist" }).click()
    await page.getByRole("heading", { name: "Playlists", level: 1 }).waitFor()
    await expect(server.run(client.playlists.list())).resolves.toEqual([])
    await context.close()
  })

  it("resets a password through the mailed link, without a session, then signs in with the new one", async () => {
    await server.run(
      server.admin.client.adminUsers.create({
        payload: { username: "carol", password: PASSWORD, email: "carol@example.test", is_admin: false },
      }),
    )
    const context = await newContext(browser)
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    // Registration is closed on this server (it has its admin): the sign-in page says so when one tries.
    await page.getByRole("button", { name: "New here? Create an account" }).click()
    await page.getByLabel("Username").fill("mallory")
    await page.getByLabel("Password").fill("a long enough password")
    await page.getByRole("button", { name: "Create account" }).click()
    await page.getByText("Registration is closed on this server").waitFor()
    await page.getByRole("button", { name: "I have an account: sign in" }).click()
    await page.getByRole("link", { name: "Forgot your password?" }).click()
    await page.getByLabel("Username or email").fill("carol")
    await page.getByRole("button", { name: "Send me a reset link" }).click()
    await page.getByText("a reset link is on its way").waitFor()
    const message = await eventually(
      async () => mail.requests.find((request) => request.body.includes("carol@example.test")),
      10_000,
      "the reset mail",
    )
    const link = /https?:\/\/\S+\/reset-password\/[A-Za-z0-9_-]+/.exec(
      (JSON.parse(message.body) as { text: string }).text,
    )?.[0]
    expect(link).toBeDefined()
    // The mailed link is on the public URL; open its path on the server under test.
    await page.goto(`${server.url}${new URL(link!).pathname}`)
    await page.getByLabel(/New password/).fill("a brand new password")
    await page.getByRole("button", { name: "Set password" }).click()
    await page.getByText("Password changed").waitFor()
    await signIn(page, server.url, "carol", "a brand new password")
    await context.close()
  })

  it("lists the sessions with the current one marked, revokes one, and signs out the others", async () => {
    const other = await server.run(logIn("admin", PASSWORD, { "user-agent": "Other device" }))
    const third = await server.run(logIn("admin", PASSWORD, { "user-agent": "Third device" }))
    const context = await newContext(browser)
    const page = await context.newPage()
    await signIn(page, server.url)
    await page.getByRole("link", { name: "Sessions", exact: true }).click()
    await page.getByRole("heading", { name: "Sessions", level: 1 }).waitFor()
    await page.getByRole("cell", { name: /\(this session\)/ }).waitFor()
    await expect(
      page
        .getByRole("row", { name: /this session/ })
        .getByRole("button")
        .count(),
    ).resolves.toBe(0)
    await screenshot(page, "sessions")
    await expectNoSeriousA11yViolations(page, "sessions")
    await page.getByRole("button", { name: "Revoke session on Other device" }).click()
    await page.getByText("Session revoked.").waitFor()
    const status = async (token: string) =>
      (await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${token}` } })).status
    expect(await status(other.token)).toBe(401)
    expect(await status(third.token)).toBe(200)
    await page.getByRole("button", { name: "Sign out all other sessions" }).click()
    await page.getByText(/Signed out \d+ other session/).waitFor()
    expect(await status(third.token)).toBe(401)
    // This session still works; signing out returns to the sign-in page.
    await page.getByRole("button", { name: "Sign out", exact: true }).click()
    await page.getByRole("heading", { name: "Sign in to Tonearm" }).waitFor()
    await context.close()
  })

  it("has no serious or critical axe violations on the main pages, and writes their screenshots", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByRole("heading", { name: "Sign in to Tonearm" }).waitFor()
    await expectNoSeriousA11yViolations(page, "sign-in")
    await screenshot(page, "sign-in")
    await signIn(page, server.url)
    // The admin's API token was signed out with the others above: a fresh one.
    const { client } = await server.run(logIn("admin", PASSWORD))
    const albums = await server.run(client.library.albums({ urlParams: { limit: 1 } }))
    const album = albums.items[0]!
    const pages: ReadonlyArray<readonly [string, string, string]> = [
      ["home", "/", "Home"],
      ["albums", "/albums", "Albums"],
      ["album", `/albums/${album.id}`, album.title],
      ["artist", `/artists/${album.artist_id}`, album.artist_name],
      ["genres", "/genres", "Genres"],
      ["years", "/years", "Years"],
      ["search", "/search?q=a", "Search"],
      ["queue", "/queue", "Queue"],
      ["likes", "/likes", "Likes"],
      ["playlists", "/playlists", "Playlists"],
      ["sessions", "/sessions", "Sessions"],
    ]
    for (const [name, path, heading] of pages) {
      await page.goto(`${server.url}${path}`)
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor()
      await page.locator("main").getByText("Loading…").waitFor({ state: "detached" })
      if (name === "search")
        await page
          .getByRole("heading", { name: /Albums|Tracks|Artists/, level: 2 })
          .first()
          .waitFor()
      await expectNoSeriousA11yViolations(page, name)
      await screenshot(page, name)
    }
    // The help overlay too.
    await page.keyboard.press("Shift+?")
    await page.getByRole("heading", { name: "Keyboard shortcuts" }).waitFor()
    await expectNoSeriousA11yViolations(page, "shortcuts")
    await context.close()
  })
})
