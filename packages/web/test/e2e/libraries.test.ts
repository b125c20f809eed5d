import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { syntheticLibrary } from "../../../server/test/support/listening.js"
import {
  adminCall,
  collectErrors,
  eventually,
  expectNoSeriousA11yViolations,
  launchBrowser,
  newListener,
  openAt,
  PASSWORD,
  SIZES,
  screenshot,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

/** Several libraries (issue 27): the admin's Libraries card and per-user access, and the listener's switcher. */
let server: WebServer
let browser: Browser
let second: string

const call = <A = unknown>(method: string, route: string, body?: unknown) => adminCall<A>(server, method, route, body)

interface LibraryScan {
  readonly library_id: number
  readonly state: string
  readonly finished_at: string | null
}

/** Waits until a library's scan has ended. */
const scanned = (libraryId: number) =>
  eventually(
    async () => {
      const status = await call<{ libraries: Array<LibraryScan> }>("GET", "/api/admin/scan")
      const scan = status.libraries.find((one) => one.library_id === libraryId)
      return scan !== undefined && scan.state !== "running" && scan.finished_at !== null ? scan : undefined
    },
    60_000,
    `library ${libraryId}'s scan`,
  )

const noHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  second = await syntheticLibrary(12, 31)
  await call("POST", "/api/admin/libraries", { name: "Audiobooks", path: second })
  await scanned(2)
  // Made after the second library: hears both.
  await newListener(server, "kid")
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("libraries", () => {
  for (const [name, size] of SIZES) {
    it(`${name}: the admin's Libraries card lists each library with its scan; no horizontal scroll; axe`, async () => {
      const context = await browser.newContext(size)
      const page = await context.newPage()
      const errors = collectErrors(page)
      await signIn(page, server.url)
      await openAt(page, `${server.url}/admin/library`, "Library")
      const table = page.getByRole("table", { name: "Libraries" })
      await table.waitFor()
      const row = table.locator('tr[data-library="Audiobooks"]')
      await row.waitFor()
      expect(await row.textContent()).toContain(second)
      expect(await row.locator(".scan-state").textContent()).toBe("idle")
      expect(await noHorizontalScroll(page)).toBe(true)
      await expectNoSeriousA11yViolations(page, `libraries admin ${name}`)
      await screenshot(page, `libraries-admin-${name}`)
      expect(errors).toEqual([])
      await context.close()
    })
  }

  it("the admin adds a library from the form, it is scanned, and removes it", async () => {
    const context = await browser.newContext(SIZES[1][1])
    const page = await context.newPage()
    const errors = collectErrors(page)
    page.on("dialog", (dialog) => void dialog.accept())
    await signIn(page, server.url)
    await openAt(page, `${server.url}/admin/library`, "Library")
    const third = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-e2e-third-"))
    fs.cpSync(second, third, { recursive: true })
    const form = page.getByRole("form", { name: "Add a library" })
    await form.getByLabel("Folder on the server").fill(third)
    await form.getByLabel("Name (optional)").fill("Copies")
    await form.getByRole("button", { name: "Add library" }).click()
    await page.getByRole("status").filter({ hasText: "Added Copies" }).waitFor()
    const listed = await call<{ items: Array<{ id: number; name: string }> }>("GET", "/api/admin/libraries")
    const copies = listed.items.find((library) => library.name === "Copies")!
    await scanned(copies.id)
    const row = page.locator('tr[data-library="Copies"]')
    await row.locator(".scan-state", { hasText: "idle" }).waitFor({ timeout: 30_000 })
    await page.getByRole("button", { name: "Remove Copies" }).click()
    await row.waitFor({ state: "detached" })
    const after = await call<{ items: Array<{ name: string }> }>("GET", "/api/admin/libraries")
    expect(after.items.map((library) => library.name)).not.toContain("Copies")
    expect(errors).toEqual([])
    await context.close()
  })

  it("the Users page gives and takes a listener's libraries", async () => {
    const context = await browser.newContext(SIZES[1][1])
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    await openAt(page, `${server.url}/admin/users`, "Users")
    const users = await call<Array<{ id: string; username: string }>>("GET", "/api/admin/users")
    const kid = users.find((user) => user.username === "kid")!
    const box = page.getByRole("checkbox", { name: "Audiobooks for kid" })
    await box.waitFor()
    expect(await box.isChecked()).toBe(true)
    await box.uncheck()
    await page.getByRole("status").filter({ hasText: "kid no longer hears Audiobooks." }).waitFor()
    expect(await call("GET", `/api/admin/users/${kid.id}/libraries`)).toEqual({ library_ids: [1] })
    await page.getByRole("checkbox", { name: "Audiobooks for kid" }).check()
    await page.getByRole("status").filter({ hasText: "kid hears Audiobooks." }).waitFor()
    expect(await call("GET", `/api/admin/users/${kid.id}/libraries`)).toEqual({ library_ids: [1, 2] })
    await screenshot(page, "libraries-user-access-desktop")
    expect(errors).toEqual([])
    await context.close()
  })

  for (const [name, size] of SIZES) {
    it(`${name}: a listener with two libraries switches Albums to one; no horizontal scroll`, async () => {
      const context = await browser.newContext(size)
      const page = await context.newPage()
      const errors = collectErrors(page)
      await signIn(page, server.url, "kid", PASSWORD)
      await openAt(page, `${server.url}/albums`, "Albums")
      const onlySecond = await call<{ total: number; items: Array<{ title: string }> }>(
        "GET",
        "/api/library/albums?library_id=2&limit=500",
      )
      const every = await call<{ total: number }>("GET", "/api/library/albums?limit=1")
      expect(onlySecond.total).toBeGreaterThan(0)
      expect(onlySecond.total).toBeLessThan(every.total)
      if (name === "phone") await page.getByRole("button", { name: "Menu" }).click()
      const switcher = page.getByRole("combobox", { name: "Library" })
      await switcher.waitFor()
      await switcher.selectOption({ label: "Audiobooks" })
      if (name === "phone") await page.getByRole("button", { name: "Close menu" }).click()
      await page
        .getByText(new RegExp(`^${onlySecond.total} albums?$`))
        .first()
        .waitFor()
      expect(await noHorizontalScroll(page)).toBe(true)
      await expectNoSeriousA11yViolations(page, `library switcher ${name}`)
      await screenshot(page, `libraries-switcher-${name}`)
      // Back to every library.
      if (name === "phone") await page.getByRole("button", { name: "Menu" }).click()
      await page.getByRole("combobox", { name: "Library" }).selectOption({ label: "All libraries" })
      expect(errors).toEqual([])
      await context.close()
    })
  }
})
