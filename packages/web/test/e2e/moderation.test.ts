import { UserId } from "@tonearm/core"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { logIn, type SignedIn } from "../../../server/test/support/accounts.js"
import {
  collectErrors,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  newContext,
  openAt,
  PASSWORD,
  screenshot,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

/** The moderation pages (issue 13): quarantine, playback errors, diagnostics, and the track menu's flag action. */
let server: WebServer
let browser: Browser
let listener: SignedIn

const openPage = async (username = "admin", dialogAnswer?: string) => {
  const context = await newContext(browser)
  const page = await context.newPage()
  const errors = collectErrors(page)
  page.on("dialog", (dialog) => void dialog.accept(dialogAnswer))
  await signIn(page, server.url, username)
  return { context, page, errors }
}

const go = (page: Page, path: string, heading: string) => openAt(page, `${server.url}${path}`, heading)

/** An album with at least two tracks. */
const someAlbum = () =>
  server.run(
    Effect.gen(function* () {
      const client = server.admin.client
      const albums = yield* client.library.albums({ urlParams: { limit: 200 } })
      for (const ref of albums.items) {
        const detail = yield* client.library.album({ path: { id: ref.id } })
        if (detail.tracks.length >= 2) return detail
      }
      throw new Error("no album with two tracks")
    }),
  )

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  await server.run(server.admin.client.adminUsers.create({ payload: { username: "listener", password: PASSWORD } }))
  listener = await server.run(logIn("listener"))
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("moderation pages", () => {
  it("a listener flags a track from its menu; the admin sees it in Quarantine and keeps it", async () => {
    const album = await someAlbum()
    const track = album.tracks[0]!
    const listenerPage = await openPage("listener", "crackles at the start")
    await listenerPage.page.goto(`${server.url}/albums/${album.id}`)
    // The ⋯ menu: opened again if the first click landed while the page was still settling.
    const flagItem = listenerPage.page.getByRole("menuitem", { name: "Flag as broken…" })
    await eventually(
      async () => {
        if (!(await flagItem.isVisible())) {
          await listenerPage.page.getByRole("button", { name: `More for ${track.title}` }).click()
          await flagItem.waitFor({ timeout: 1000 })
        }
        return true
      },
      15_000,
      "the track menu",
    )
    await listenerPage.page.getByRole("menuitem", { name: "Flag as broken…" }).click()
    const flagged = await eventually(
      async () => {
        const page = await server.run(server.admin.client.moderation.list({ urlParams: { resolved: false } }))
        return page.items.find((item) => item.track_id === track.id)
      },
      10_000,
      "the flag",
    )
    expect(flagged).toMatchObject({ username: "listener", reason: "crackles at the start" })
    expect(listenerPage.errors).toEqual([])
    await listenerPage.context.close()

    const { context, page, errors } = await openPage()
    await page.getByRole("link", { name: "Quarantine", exact: true }).click()
    await page.getByRole("heading", { name: "Quarantine", level: 1 }).waitFor()
    const row = page.locator(`tr[data-flag="${flagged.id}"]`)
    await row.getByText("crackles at the start").waitFor()
    await expectNoSeriousA11yViolations(page, "quarantine")
    await screenshot(page, "quarantine")
    await row.getByRole("button", { name: `Keep: ${track.title}` }).click()
    await page
      .getByRole("status")
      .filter({ hasText: `${track.title}: kept (1 flag resolved).` })
      .waitFor()
    await row.waitFor({ state: "detached" })
    await page.getByLabel("Show resolved flags").check()
    await page
      .locator(`tr[data-flag="${flagged.id}"]`)
      .getByText(/^kept /)
      .waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("lists playback errors with their names and resolves one with a chosen resolution", async () => {
    const album = await someAlbum()
    const track = album.tracks[1]!
    const reported = await server.run(
      listener.client.playbackErrors.report({
        payload: { track_id: track.id, kind: "stalled", client_id: "web-e2e", message: "buffering forever" },
      }),
    )
    const { context, page, errors } = await openPage()
    await go(page, "/admin/playback-errors", "Playback errors")
    const row = page.locator(`tr[data-error="${reported.id}"]`)
    await row.getByText("buffering forever").waitFor()
    expect(await row.getByRole("rowheader").textContent()).toBe(track.title)
    await expectNoSeriousA11yViolations(page, "playback-errors")
    await screenshot(page, "playback-errors")
    await row.getByLabel(`Resolution for ${track.title}`).selectOption("ignored")
    await row.getByRole("button", { name: `Resolve ${track.title}` }).click()
    await page.getByRole("status").filter({ hasText: "resolved as ignored" }).waitFor()
    await row.waitFor({ state: "detached" })
    const resolved = await server.run(server.admin.client.adminPlaybackErrors.list({ urlParams: { resolved: true } }))
    expect(resolved.items.find((item) => item.id === reported.id)?.resolution).toBe("ignored")
    expect(errors).toEqual([])
    await context.close()
  })

  it("shows the device overview and the diagnostics timeline, filtered by kind", async () => {
    await server.run(
      server.admin.client.adminUsers.setDebugMode({
        path: { id: UserId.make(listener.user.id) },
        payload: { enabled: true },
      }),
    )
    await server.run(
      listener.client.diagnostics.report({
        payload: {
          events: [
            { kind: "playback", device_id: "pixel-8", occurred_at: "2026-11-24T10:00:00Z", data: { state: "playing" } },
            { kind: "power", device_id: "pixel-8", occurred_at: "2026-11-24T10:01:00Z", data: { battery: 14 } },
            { kind: "upnp_sync", device_id: "pixel-8", occurred_at: "2026-11-24T10:02:00Z", data: { drift_ms: 40 } },
          ],
        },
      }),
    )
    const { context, page, errors } = await openPage()
    await go(page, "/admin/diagnostics", "Diagnostics")
    const devices = page.getByRole("table", { name: "Devices" })
    await devices.getByRole("rowheader", { name: "pixel-8" }).waitFor()
    const timeline = page.getByRole("table", { name: "Timeline" })
    await eventually(
      async () => ((await timeline.locator("tbody tr").count()) === 3 ? true : undefined),
      10_000,
      "3 rows",
    )
    await expectNoSeriousA11yViolations(page, "diagnostics")
    await screenshot(page, "diagnostics")
    const filters = page.getByRole("form", { name: "Timeline filters" })
    await filters.getByLabel("Kind").selectOption("power")
    await filters.getByRole("button", { name: "Show" }).click()
    await eventually(
      async () => ((await timeline.locator("tbody tr").count()) === 1 ? true : undefined),
      10_000,
      "1 row",
    )
    await timeline.getByText('{"battery":14}').waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("a listener who is not an admin gets Not allowed on the moderation pages", async () => {
    const { context, page } = await openPage("listener")
    for (const path of ["/admin/quarantine", "/admin/playback-errors", "/admin/diagnostics"]) {
      await go(page, path, "Not allowed")
    }
    expect(await page.getByRole("link", { name: "Quarantine", exact: true }).count()).toBe(0)
    await context.close()
  })
})
