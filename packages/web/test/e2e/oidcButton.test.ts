/// <reference lib="dom" />

import { Redacted } from "effect"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { collectErrors, launchBrowser, SIZES, screenshot, startEmptyServer, type WebServer } from "./support.js"

let server: Omit<WebServer, "admin">
let browser: Browser

beforeAll(async () => {
  // The button only needs the configuration; the sign-in itself is tested against a real provider in oidc.test.
  server = await startEmptyServer({
    oidc: {
      issuer: "http://127.0.0.1:9/",
      clientId: "tonearm",
      clientSecret: Redacted.make("secret"),
      redirectUrl: "http://tonearm.test/api/auth/oidc/callback",
      name: "Test ID",
    },
  })
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("OpenID Connect on the sign-in page", () => {
  for (const [name, size] of SIZES) {
    it(`at ${name} size the sign-in page offers "Sign in with" the configured provider`, async () => {
      const context = await browser.newContext(size)
      const page = await context.newPage()
      const errors = collectErrors(page)
      await page.goto(`${server.url}/`)
      const button = page.getByRole("link", { name: "Sign in with Test ID" })
      await button.waitFor()
      expect(await button.getAttribute("href")).toBe("/api/auth/oidc/start")
      await screenshot(page, `oidc-button-${name}`)
      expect(errors).toEqual([])
      await context.close()
    })
  }
})
