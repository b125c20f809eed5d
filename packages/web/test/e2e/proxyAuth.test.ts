/// <reference lib="dom" />
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  collectErrors,
  launchBrowser,
  PASSWORD,
  SIZES,
  screenshot,
  startEmptyServer,
  type WebServer,
} from "./support.js"

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

  it("without the proxy's header the sign-in form stays, and signing in logs no console error", async () => {
    // An account to sign in with, made by the admin (whoever the proxy named first).
    const admin = (await (
      await fetch(`${server.url}/api/auth/proxy-login`, { method: "POST", headers: { "remote-user": "proxied-phone" } })
    ).json()) as { token: string }
    await fetch(`${server.url}/api/admin/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
      body: JSON.stringify({ username: "by-form", password: PASSWORD }),
    })
    const context = await browser.newContext(SIZES[1][1])
    const page = await context.newPage()
    const consoleErrors: Array<string> = []
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text())
    })
    const asked: Array<string> = []
    page.on("request", (request) => asked.push(new URL(request.url()).pathname))
    const options = page.waitForResponse((response) => response.url().endsWith("/api/auth/options"))
    await page.goto(`${server.url}/`)
    await page.getByRole("heading", { name: "Sign in to Tonearm" }).waitFor()
    expect(await (await options).json()).toMatchObject({ proxy: null })
    await page.waitForLoadState("networkidle")
    // The page asks the proxy's sign-in only when the server says the request came through the proxy: no 403.
    expect(asked).not.toContain("/api/auth/proxy-login")
    expect(consoleErrors.filter((text) => text.includes("403"))).toEqual([])
    // Signing in with the form logs nothing at all.
    const before = consoleErrors.length
    await page.getByLabel("Username").fill("by-form")
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Home", level: 1 }).waitFor()
    await page.waitForLoadState("networkidle")
    expect(consoleErrors.slice(before)).toEqual([])
    expect(asked).not.toContain("/api/auth/proxy-login")
    await context.close()
  })

  it("after signing out, the page does not sign straight back in: it offers to continue as the proxy's user", async () => {
    const context = await browser.newContext({ ...SIZES[1][1], extraHTTPHeaders: { "remote-user": "proxied-out" } })
    const page = await context.newPage()
    const errors = collectErrors(page)
    await page.goto(`${server.url}/`)
    await page.getByRole("heading", { name: "Home", level: 1 }).waitFor()
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByRole("heading", { name: "Sign in to Tonearm" }).waitFor()
    const again = page.getByRole("button", { name: "Continue as proxied-out" })
    await again.waitFor()
    // A reload keeps it so (the browser keeps the sign-out mark): still the sign-in page.
    await page.reload()
    await again.waitFor()
    expect(await page.getByRole("heading", { name: "Home", level: 1 }).count()).toBe(0)
    await screenshot(page, "proxy-signed-out-desktop")
    await again.click()
    await page.getByRole("heading", { name: "Home", level: 1 }).waitFor()
    await page.getByText("Signed in as proxied-out").waitFor({ state: "attached" })
    // Signed in through the proxy again, the sign-out mark is gone: the next visit signs in on its own again.
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain("tonearm_signed_out")
    expect(errors).toEqual([])
    await context.close()
  })
})
