import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { arrangePlays, libraryTracks } from "../../../server/test/support/listening.js"
import {
  adminCall,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAt,
  rebuildNow,
  SIZES,
  screenshot,
  signedInPage,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * Pick reasons (issue 28 item 3): on a system mix every entry has a "Why …?" button whose line shows on hover
 * (desktop) or tap (phone), on the mix's own page and opened as a playlist; a user playlist has none.
 */
let server: WebServer
let browser: Browser

const call = <A = unknown>(method: string, path: string, body?: unknown) => adminCall<A>(server, method, path, body)

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  const tracks = await server.run(libraryTracks)
  await server.run(arrangePlays(server.admin.user.id, tracks.slice(0, 12), { times: 3, daysAgo: 2 }))
  await rebuildNow(server, "admin")
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

interface Row {
  readonly id: string
  readonly name: string
  readonly system_variant: string | null
  readonly locked: boolean
}
interface Detail {
  readonly tracks: ReadonlyArray<{
    readonly reason: { readonly text: string } | null
    readonly track: { title: string }
  }>
}

describe("pick reasons on system playlist entries", () => {
  for (const [name, size] of SIZES) {
    it(`${name}: the reason shows on ${name === "phone" ? "tap" : "hover"}, on the mix page and as a playlist`, async () => {
      const rows = await call<ReadonlyArray<Row>>("GET", "/api/playlists")
      const mix = rows.find((row) => row.system_variant !== null && !row.locked)
      expect(mix).toBeDefined()
      const detail = await call<Detail>("GET", `/api/playlists/${mix!.id}`)
      const first = detail.tracks[0]!
      expect(first.reason).not.toBeNull()

      // axe is injected as a script, which the server's Content-Security-Policy would refuse
      const context = await browser.newContext(size)
      const { page, errors } = await signedInPage(server, context)
      await openAt(page, `${server.url}/playlists/${mix!.id}`, mix!.name)
      const why = page.getByRole("button", { name: `Why ${first.track.title}?` }).first()
      await why.waitFor()
      const note = page.locator(`#${await why.getAttribute("aria-controls")}`)
      expect(await note.isVisible()).toBe(false)
      if (name === "phone") {
        await why.tap()
        await note.waitFor({ state: "visible" })
        expect(await why.getAttribute("aria-expanded")).toBe("true")
      } else {
        await why.hover()
        await note.waitFor({ state: "visible" })
      }
      expect(await note.textContent()).toContain(first.reason!.text)
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      await expectNoSeriousA11yViolations(page, `pick reason ${name}`)
      await screenshot(page, `pick-reason-${name}`)
      if (name === "phone") {
        await why.tap()
        await note.waitFor({ state: "hidden" })
      } else {
        await page.mouse.move(0, 0)
        await note.waitFor({ state: "hidden" })
      }

      // A user playlist's entries have no reason, so no button.
      const mine = await call<{ id: string }>("POST", "/api/playlists", {
        name: `Mine ${name}`,
        track_ids: [
          (
            await call<Detail & { tracks: ReadonlyArray<{ track: { id: string } }> }>(
              "GET",
              `/api/playlists/${mix!.id}`,
            )
          ).tracks[0]!.track.id,
        ],
      })
      await openAt(page, `${server.url}/playlists/${mine.id}`, `Mine ${name}`)
      await page
        .getByRole("button", { name: /^Play / })
        .first()
        .waitFor()
      expect(await page.getByRole("button", { name: /^Why / }).count()).toBe(0)
      expect(errors).toEqual([])
      await context.close()
    })
  }

  for (const [name, size] of SIZES) {
    it(`${name}: the tuning page shows a listener's list per weight and re-ranks it under what-if weights`, async () => {
      const context = await browser.newContext(size)
      const { page, errors } = await signedInPage(server, context)
      await openAt(page, `${server.url}/admin/tuning`, "Recommendation tuning")
      const sample = page.locator("section.tuning-sample")
      await sample.getByLabel("Listener", { exact: true }).selectOption("admin")
      await sample.getByLabel("List", { exact: true }).selectOption("for_you")
      await sample.getByRole("button", { name: "Show the list" }).click()
      const table = sample.getByRole("table", { name: /^Score parts of / })
      await table.waitFor()
      const rows = table.locator("tbody tr")
      expect(await rows.count()).toBeGreaterThanOrEqual(15)
      expect(await sample.locator("tr[data-moved='no']").count()).toBe(await rows.count())
      await sample.getByText(/^Share of the list's score: similarity \d+% · taste \d+%/).waitFor()
      // Turning the taste weight off re-ranks the list: some rows move.
      await sample.getByLabel("taste_weight", { exact: true }).fill("0")
      await eventually(
        async () =>
          (await sample.locator("tr[data-moved='up'], tr[data-moved='down']").count()) > 0 ? true : undefined,
        5_000,
        "rows to move",
      )
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      await expectNoSeriousA11yViolations(page, `tuning sample ${name}`)
      await screenshot(page, `tuning-sample-${name}`)
      expect(errors).toEqual([])
      await context.close()
    })
  }

  it("the For You page shows each entry's reason on hover", async () => {
    const context = await browser.newContext(SIZES[1][1])
    const { page, errors } = await signedInPage(server, context)
    await openAt(page, `${server.url}/for-you`, "For You")
    const why = page.locator(".system-mix .track-row .reason-button").first()
    await why.waitFor()
    await why.hover()
    const note = page.locator(`#${await why.getAttribute("aria-controls")}`)
    await note.waitFor({ state: "visible" })
    expect((await note.textContent())!.length).toBeGreaterThan(5)
    expect(errors).toEqual([])
    await context.close()
  })
})
