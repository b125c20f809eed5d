import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { ManagedRuntime } from "effect"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signUpFirstAdmin } from "../../../server/test/support/accounts.js"
import { serverUrl, TestServerLive } from "../../../server/test/support/TestServer.js"
import { launchBrowser, newContext } from "./support.js"

/**
 * A browser client of Subsonic on another origin (contract "Subsonic compatibility: additions", CORS): a page
 * served from a second loopback port calls Tonearm's /rest with fetch, and Chromium lets it read the answers.
 * No web app is needed, so none is built: only Tonearm, a one-page server and Chromium.
 */
let libraryDir = ""
let runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>
let tonearm = ""
let appPassword = ""
let pageServer: http.Server
let pageOrigin = ""
let browser: Browser

beforeAll(async () => {
  libraryDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-cors-library-"))
  runtime = ManagedRuntime.make(TestServerLive({ libraryDir })) as unknown as ManagedRuntime.ManagedRuntime<
    unknown,
    unknown
  >
  tonearm = await runtime.runPromise(serverUrl)
  const admin = await runtime.runPromise(signUpFirstAdmin("admin"))
  const created = await fetch(`${tonearm}/api/me/subsonic-password`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
    body: "{}",
  })
  appPassword = ((await created.json()) as { password: string }).password
  pageServer = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end("<!doctype html><html lang=en><title>Another origin</title><p>A Subsonic web client</p></html>")
  })
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve))
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => (pageServer === undefined ? resolve(undefined) : pageServer.close(resolve)))
  await runtime?.dispose()
  if (libraryDir !== "") fs.rmSync(libraryDir, { recursive: true, force: true })
})

const tokenAuth = (password: string) => {
  const s = "c0ffee42"
  return {
    u: "admin",
    t: createHash("md5")
      .update(password + s)
      .digest("hex"),
    s,
  }
}

/** What the page's fetch got: the status and the JSON body, or the error fetch threw. */
type Fetched = { ok: true; status: number; body: unknown } | { ok: false; error: string }

describe("Subsonic from a page on another origin", () => {
  it("CORS: a page on another origin reads /rest answers with fetch, preflighted ones and errors included", async () => {
    const context = await newContext(browser)
    const page = await context.newPage()
    await page.goto(`${pageOrigin}/`)
    expect(new URL(page.url()).origin).not.toBe(new URL(tonearm).origin)

    const pageFetch = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
      page.evaluate(
        async ([target, options]) => {
          try {
            const response = await fetch(target, options)
            return { ok: true, status: response.status, body: await response.json() } as const
          } catch (error) {
            return { ok: false, error: String(error) } as const
          }
        },
        [url, init] as const,
      ) as Promise<Fetched>
    const params = (extra: Record<string, string>) =>
      new URLSearchParams({ v: "1.16.1", c: "test", f: "json", ...extra }).toString()
    const statusOf = (fetched: Fetched) =>
      fetched.ok ? (fetched.body as { "subsonic-response": { status: string } })["subsonic-response"] : fetched

    // A simple GET, as the brief's web client makes it: token auth in the query.
    const ping = await pageFetch(`${tonearm}/rest/ping?${params(tokenAuth(appPassword))}`)
    expect(ping).toMatchObject({ ok: true, status: 200 })
    expect(statusOf(ping)).toMatchObject({ status: "ok", type: "tonearm" })

    // A web client on reload sends p= empty beside its token: still signed in.
    const reload = await pageFetch(`${tonearm}/rest/ping.view?${params({ p: "", ...tokenAuth(appPassword) })}`)
    expect(statusOf(reload)).toMatchObject({ status: "ok" })

    // A header outside the safelist (subsonic-api sends Content-Type: application/json on GETs) makes the
    // browser preflight with OPTIONS first; the answer lets the GET through.
    const preflighted = await pageFetch(`${tonearm}/rest/getMusicFolders.view?${params(tokenAuth(appPassword))}`, {
      headers: { "content-type": "application/json", "x-requested-with": "XMLHttpRequest" },
    })
    expect(statusOf(preflighted)).toMatchObject({ status: "ok" })

    // A form POST (OpenSubsonic formPost) from the page.
    const posted = await pageFetch(`${tonearm}/rest/ping.view`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: params(tokenAuth(appPassword)),
    })
    expect(statusOf(posted)).toMatchObject({ status: "ok" })

    // Failures are readable too: the page learns why (40), not just that the request failed.
    const wrong = await pageFetch(`${tonearm}/rest/ping.view?${params(tokenAuth("not the app password"))}`)
    expect(statusOf(wrong)).toMatchObject({ status: "failed", error: { code: 40 } })

    // The JSON API is not opened to other origins: the same page can't read it.
    const closed = await pageFetch(`${tonearm}/healthz`)
    expect(closed.ok).toBe(false)
    await context.close()
  })
})
