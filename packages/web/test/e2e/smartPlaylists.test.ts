import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  adminCall,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  openAt,
  SIZES,
  screenshot,
  signedInPage,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * Smart playlists (issue 28 item 5): from Playlists to the rule editor; conditions added, changed and removed;
 * sort and limit; the live count agrees with the server's; saved, refreshed and listed with "Edit rules".
 */
let server: WebServer
let browser: Browser

const call = <A = unknown>(method: string, path: string, body?: unknown) => adminCall<A>(server, method, path, body)

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

interface Summary {
  readonly id: string
  readonly name: string
  readonly track_count: number
  readonly rules: { readonly conditions: ReadonlyArray<unknown>; readonly limit: number }
}

describe("smart playlist rule editor", () => {
  for (const [name, size] of SIZES) {
    it(`${name}: make a smart playlist from Playlists with a live count, save, refresh and edit it`, async () => {
      const context = await browser.newContext(size)
      const { page, errors } = await signedInPage(server, context)
      await openAt(page, `${server.url}/playlists`, "Playlists")
      await page.getByRole("link", { name: "New smart playlist" }).click()
      await page.getByRole("heading", { name: "New smart playlist" }).waitFor()
      // A condition still without its value asks for one, rather than quoting the server's schema back.
      await page.getByTestId("smart-preview").getByText("Give every condition a value").waitFor()

      const title = `Rock mix ${name}`
      await page.getByLabel("Name", { exact: true }).fill(title)
      await page.getByLabel("Condition 1 field").selectOption("genre")
      await page.getByLabel("Condition 1 operator").selectOption("contains")
      await page.getByLabel("Condition 1 value").fill("rock")
      // A second condition, changed to another field, then removed again.
      await page.getByRole("button", { name: "Add condition" }).click()
      await page.getByLabel("Condition 2 field").selectOption("year")
      expect(await page.getByLabel("Condition 2 operator").inputValue()).toBe("is")
      await page.getByLabel("Condition 2 operator").selectOption("in_range")
      await page.getByLabel("Condition 2 up to").waitFor()
      await page.getByRole("button", { name: "Remove condition 2" }).click()
      expect(await page.getByLabel("Condition 2 field").count()).toBe(0)
      await page.getByLabel("Sort by").selectOption("title")
      await page.getByLabel("Limit").fill("3")

      const rules = {
        match: "all",
        conditions: [{ field: "genre", op: "contains", value: "rock" }],
        sort: { field: "title", order: "asc" },
        limit: 3,
      }
      const expected = await call<{ matching: number; count: number }>("POST", "/api/smart-playlists/preview", {
        rules,
      })
      expect(expected.matching).toBeGreaterThan(0)
      const preview = page.getByTestId("smart-preview")
      await eventually(async () => {
        expect(await preview.textContent()).toContain(`the playlist holds ${expected.count}`)
        return true
      })
      expect(await preview.textContent()).toMatch(new RegExp(`^${expected.matching} tracks? match`))
      // Rules the server refuses say so, live.
      await page.getByLabel("Limit").fill("0")
      await eventually(async () => {
        expect(await preview.textContent()).toContain("Not yet valid")
        return true
      })
      expect(await preview.textContent()).toContain("limit must be between 1 and 1000")
      await page.getByLabel("Limit").fill("3")
      await eventually(async () => {
        expect(await preview.textContent()).toContain(`the playlist holds ${expected.count}`)
        return true
      })
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      await expectNoSeriousA11yViolations(page, `smart playlist editor ${name}`)
      await screenshot(page, `smart-playlist-${name}`)

      await page.getByRole("button", { name: "Save" }).click()
      await page.getByRole("heading", { name: "Smart playlist rules" }).waitFor()
      const saved = (await call<ReadonlyArray<Summary>>("GET", "/api/smart-playlists")).find((s) => s.name === title)
      expect(saved).toBeDefined()
      expect(saved!.track_count).toBe(expected.count)
      expect(saved!.rules).toMatchObject(rules)
      expect(page.url()).toContain(`/smart-playlists/${saved!.id}`)
      // The saved rules load back into the editor.
      await eventually(async () => {
        expect(await page.getByLabel("Condition 1 value").inputValue()).toBe("rock")
        return true
      })
      await page.getByRole("button", { name: "Refresh" }).click()
      await page.getByRole("status").filter({ hasText: "Refreshed" }).waitFor()

      // Listed among the playlists, with a way back to its rules; its tracks open as a playlist.
      await openAt(page, `${server.url}/playlists`, "Playlists")
      const row = page.getByRole("listitem").filter({ hasText: title })
      await row.getByRole("link", { name: "Edit rules" }).click()
      await page.getByRole("heading", { name: "Smart playlist rules" }).waitFor()
      await page.getByRole("link", { name: "Open playlist" }).click()
      await page.getByRole("heading", { name: title }).waitFor()
      await page
        .getByRole("list", { name: `Tracks of ${title}` })
        .getByRole("listitem")
        .first()
        .waitFor()
      expect(
        await page
          .getByRole("list", { name: `Tracks of ${title}` })
          .getByRole("listitem")
          .count(),
      ).toBe(expected.count)
      // Its tracks come from the rules: no handle to drag, no way to remove one, a way back to the rules.
      expect(await page.locator(".drag-handle").count()).toBe(0)
      expect(await page.locator("[draggable=true]").count()).toBe(0)
      await page.getByRole("link", { name: "Edit rules" }).waitFor()
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
      expect(errors).toEqual([])
      await context.close()
    })
  }
})
