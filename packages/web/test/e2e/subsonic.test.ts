import { createHash } from "node:crypto"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  collectErrors,
  expectNoSeriousA11yViolations,
  launchBrowser,
  newContext,
  screenshot,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

let server: WebServer
let browser: Browser

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const ping = async (params: Record<string, string>) => {
  const response = await fetch(`${server.url}/rest/ping.view?${new URLSearchParams({ ...params, f: "json" })}`)
  return ((await response.json()) as { "subsonic-response": { status: string; error?: { code: number } } })[
    "subsonic-response"
  ]
}

describe("Subsonic apps settings page", () => {
  it("generates an app password (shown once) that signs a Subsonic app in; creates, lists and revokes an API key", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    await page.goto(`${server.url}/settings/subsonic`)
    await page.getByRole("heading", { name: "Subsonic apps", level: 1 }).waitFor()

    await page.getByRole("button", { name: "Generate app password" }).click()
    const password = await page.getByTestId("app-password").inputValue()
    expect(password.length).toBeGreaterThan(16)
    const salt = "c0ffee"
    const token = createHash("md5")
      .update(password + salt)
      .digest("hex")
    expect((await ping({ u: "admin", t: token, s: salt })).status).toBe("ok")

    await page.getByLabel("Key name").fill("Symfonium")
    await page.getByRole("button", { name: "Create API key" }).click()
    const key = await page.getByTestId("api-key").inputValue()
    await page.locator("tr[data-key-id]").filter({ hasText: "Symfonium" }).waitFor()
    expect((await ping({ apiKey: key })).status).toBe("ok")
    await screenshot(page, "subsonic-settings")
    await expectNoSeriousA11yViolations(page, "subsonic settings")

    await page.getByRole("button", { name: "Revoke API key Symfonium" }).click()
    await page.getByText('API key "Symfonium" revoked.').waitFor()
    await page.getByText("No API keys yet.").waitFor()
    await expect(page.locator("tr[data-key-id]").count()).resolves.toBe(0)
    expect((await ping({ apiKey: key })).error?.code).toBe(44)
    expect(errors).toEqual([])
    await context.close()
  })
})
