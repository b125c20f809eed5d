/// <reference lib="dom" />
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { collectErrors, launchBrowser, SIZES, screenshot, startEmptyServer, type WebServer } from "./support.js"

let server: Omit<WebServer, "admin">
let browser: Browser

beforeAll(async () => {
  // The test's browser speaks through "the proxy": loopback is the test config's trusted proxy, and the context
  // adds the user header a proxy such as Authelia or oauth2-proxy would.
  server = await startEmptyServer({ proxyAuthHeader: "remote-user" })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("sign-in by a trusted reverse proxy", () => {
  for (const [name, size] of SIZES) {
    it(`at ${name} size the web player signs in as the proxy's user, creating the account on first sight`, async () => {
      const context = await browser.newContext({ ...size, extraHTTPHeaders: { "remote-user": `proxied-${name}` } })
      const page = await context.newPage()
      const errors = collectErrors(page)
      await page.goto(`${server.url}/`)
      await page.getByRole("heading", { name: "Home", level: 1 }).waitFor()
      // On a phone the account line sits in the closed menu: present, not shown.
      await page.getByText(`Signed in as proxied-${name}`).waitFor({ state: "attached" })
      await screenshot(page, `proxy-sign-in-${name}`)
      expect(errors).toEqual([])
      await context.close()
    })
  }

  it("without the proxy's header the sign-in form stays", async () => {
    const context = await browser.newContext(SIZES[1][1])
    const page = await context.newPage()
    await page.goto(`${server.url}/`)
    await page.getByRole("heading", { name: "Sign in to Tonearm" }).waitFor()
    await page.getByLabel("Username").waitFor()
    await context.close()
  })
})
