/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  collectErrors,
  launchBrowser,
  newContext,
  PASSWORD,
  screenshot,
  signIn,
  startEmptyServer,
  type WebServer,
} from "./support.js"

let server: Omit<WebServer, "admin">
let browser: Browser

beforeAll(async () => {
  // No account yet: the first visitor makes it, as after `pnpm tonearm serve` on a new machine.
  server = await startEmptyServer()
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("the web app at /", () => {
  it("on a new server, the first visitor creates the first account from the sign-in page and is its admin", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    const errors = collectErrors(page)
    await page.goto(`${server.url}/`)
    await page.getByRole("button", { name: "New here? Create an account" }).click()
    await page.getByRole("heading", { name: "Create a Tonearm account" }).waitFor()
    await page.getByLabel("Username").fill("admin")
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.getByRole("heading", { name: "Home", level: 1 }).waitFor()
    await page.getByText("Signed in as admin").waitFor()
    // The first account is the admin: the admin pages are in the navigation.
    await page.getByRole("heading", { name: "Admin", level: 2 }).waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("signs in with the cookie session and renders Home with every section of /api/home", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    const errors = collectErrors(page)
    await signIn(page, server.url)
    await page.getByRole("heading", { name: "Recently added", level: 2 }).waitFor()
    for (const title of [
      "Recently added",
      "Last played",
      "Most played",
      "Rediscover albums",
      "Rediscover artists",
      "You might like: albums",
      "You might like: artists",
    ])
      await expect(page.getByRole("heading", { name: title, level: 2 }).count()).resolves.toBe(1)
    await page.locator(".row .card").first().waitFor()
    const cookies = await context.cookies()
    expect(cookies.map((cookie) => cookie.name)).toContain("tonearm_session")
    await screenshot(page, "home")
    // A reload keeps the session (the cookie) and a deep link lands in the app (SPA fallback).
    await page.goto(`${server.url}/genres`)
    await page.getByRole("heading", { name: "Genres", level: 1 }).waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("serves hashed assets immutable, index.html no-cache, and keeps /api 404s as the JSON envelope", async () => {
    const index = await fetch(`${server.url}/`)
    expect(index.headers.get("cache-control")).toBe("no-cache")
    const html = await index.text()
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1]
    expect(asset).toBeDefined()
    const script = await fetch(`${server.url}${asset}`)
    expect(script.status).toBe(200)
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(script.headers.get("content-type")).toContain("javascript")
    const deep = await fetch(`${server.url}/albums/some-id`, { headers: { accept: "text/html" } })
    expect(deep.status).toBe(200)
    expect(await deep.text()).toContain('<div id="app">')
    const api = await fetch(`${server.url}/api/nothing-here`, { headers: { accept: "text/html" } })
    expect(api.status).toBe(404)
    expect(await api.json()).toMatchObject({ error: { code: "not_found" } })
    const missingAsset = await fetch(`${server.url}/assets/gone-123.js`)
    expect(missingAsset.status).toBe(404)
    const forgot = await fetch(`${server.url}/forgot-password`, { headers: { accept: "text/html" } })
    expect(await forgot.text()).toContain("Reset your password")
  })
})
