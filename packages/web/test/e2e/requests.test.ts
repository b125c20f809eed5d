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

/** Request music (listeners) and the enrichment and requests admin pages (issue 12). */
let server: WebServer
let browser: Browser
let listener: SignedIn

const MBID = "0e0e0e0e-1111-4222-8333-444455556666"
const OTHER = "0f0f0f0f-1111-4222-8333-444455556666"

const openPage = async (username = "admin", dialogAnswer?: string) => {
  const context = await newContext(browser)
  const page = await context.newPage()
  const errors = collectErrors(page)
  page.on("dialog", (dialog) => void dialog.accept(dialogAnswer))
  await signIn(page, server.url, username)
  return { context, page, errors }
}

const go = (page: Page, path: string, heading: string) => openAt(page, `${server.url}${path}`, heading)

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

describe("requests and enrichment pages", () => {
  it("a listener requests an artist by MusicBrainz id, sees it waiting, and cancels another", async () => {
    const { context, page, errors } = await openPage("listener")
    await page.getByRole("link", { name: "Request music", exact: true }).click()
    await page.getByRole("heading", { name: "Request music", level: 1 }).waitFor()
    await page.getByLabel("MusicBrainz id").fill(MBID)
    await page.getByLabel("Name").fill("The Requested")
    await page.getByRole("button", { name: "Request", exact: true }).click()
    await page.getByRole("status").filter({ hasText: "Requested The Requested: waiting for approval." }).waitFor()
    await page.locator(`tr[data-request="${MBID}"]`).getByText("Waiting for approval").waitFor()
    // Prefilled from a link (?mbid=&name=), then cancelled from the list.
    await go(page, `/requests?mbid=${OTHER}&name=Second%20Thoughts`, "Request music")
    expect(await page.getByLabel("Name").inputValue()).toBe("Second Thoughts")
    await page.getByRole("button", { name: "Request", exact: true }).click()
    const other = page.locator(`tr[data-request="${OTHER}"]`)
    await other.getByText("Waiting for approval").waitFor()
    await expectNoSeriousA11yViolations(page, "requests")
    await screenshot(page, "requests")
    await other.getByRole("button", { name: "Cancel Second Thoughts" }).click()
    await other.getByText("Cancelled").waitFor()
    const mine = await server.run(listener.client.requests.list())
    expect(mine.map((row) => [row.mbid, row.status]).sort()).toEqual(
      [
        [MBID, "pending"],
        [OTHER, "cancelled"],
      ].sort(),
    )
    // A malformed id is refused with the server's message.
    await page.getByLabel("MusicBrainz id").fill("not-an-id")
    await page.getByLabel("Name").fill("Nobody")
    await page.getByRole("button", { name: "Request", exact: true }).click()
    await page.getByRole("status").filter({ hasText: "Could not request Nobody" }).waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("an admin approves a request; without a manager it stays approved and unconfirmed", async () => {
    const { context, page, errors } = await openPage()
    await page.getByRole("link", { name: "Requests", exact: true }).click()
    await page.getByRole("heading", { name: "Requests", level: 1 }).waitFor()
    const row = page.locator(`tr[data-request="${MBID}"]`)
    await row.getByText("The Requested").waitFor()
    await expectNoSeriousA11yViolations(page, "admin-requests")
    await screenshot(page, "admin-requests")
    await row.getByRole("button", { name: "Approve The Requested" }).click()
    await page
      .getByRole("status")
      .filter({ hasText: "The Requested approved; the manager has not confirmed yet" })
      .waitFor()
    const approved = await eventually(
      async () =>
        (await server.run(listener.client.requests.list())).find(
          (request) => request.mbid === MBID && request.status === "approved",
        ),
      5_000,
      "the approval",
    )
    expect(approved.manager_add_confirmed_at).toBeNull()
    expect(errors).toEqual([])
    await context.close()
  })

  it("the enrichment page: enable a provider, test one, refetch covers, and the manager's missing defaults", async () => {
    const { context, page, errors } = await openPage()
    await go(page, "/admin/enrichment", "Enrichment")
    await page.getByRole("table").getByText("Cover Art Archive").waitFor()
    await expectNoSeriousA11yViolations(page, "enrichment")
    await screenshot(page, "enrichment")
    await page.getByLabel("Enable MusicBrainz").check()
    await page.getByRole("status").filter({ hasText: "MusicBrainz enabled." }).waitFor()
    await page.getByText("Providers (version 1)").waitFor()
    const sources = await server.run(server.admin.client.tagSources.list())
    expect(sources.providers.find((source) => source.id === "musicbrainz")?.enabled).toBe(true)
    await page.getByLabel("Enable MusicBrainz").uncheck()
    await page.getByText("Providers (version 2)").waitFor()
    await page.getByRole("button", { name: "Test Cover Art Archive" }).click()
    await page.getByRole("status").filter({ hasText: "Cover Art Archive: not working" }).waitFor()
    await page.getByRole("button", { name: "Fetch missing covers" }).click()
    await page
      .getByRole("status")
      .filter({ hasText: /missing covers/i })
      .waitFor()
    await page.getByLabel("URL").fill("http://127.0.0.1:9")
    await page.getByRole("button", { name: "Save manager" }).click()
    await page.getByRole("status").filter({ hasText: "Manager settings not saved" }).waitFor()
    await page.getByLabel("Root folder").fill("/music")
    await page.getByLabel("Quality profile id").fill("1")
    await page.getByLabel("Metadata profile id").fill("1")
    await page.getByRole("button", { name: "Save manager" }).click()
    await page.getByRole("status").filter({ hasText: "Manager settings saved." }).waitFor()
    expect((await server.run(server.admin.client.manager.get())).root_folder_path).toBe("/music")
    expect(errors).toEqual([])
    await context.close()
  })

  it("the admin pages are not for listeners", async () => {
    const { context, page } = await openPage("listener")
    expect(await page.getByRole("link", { name: "Enrichment", exact: true }).count()).toBe(0)
    await go(page, "/admin/enrichment", "Not allowed")
    await context.close()
  })
})
