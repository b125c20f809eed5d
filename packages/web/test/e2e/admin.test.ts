import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TonearmConfig } from "../../../server/src/config/TonearmConfig.js"
import { arrangePlays, libraryTracks } from "../../../server/test/support/listening.js"
import {
  adminCall,
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

/** The admin pages (issue 10 part 5) against a real server, and what a listener who is not an admin sees. */
let server: WebServer
let browser: Browser

const call = <A = unknown>(method: string, path: string, body?: unknown) => adminCall<A>(server, method, path, body)

const openPage = async (username = "admin") => {
  const context = await newContext(browser)
  const page = await context.newPage()
  const errors = collectErrors(page)
  page.on("dialog", (dialog) => void dialog.accept())
  await signIn(page, server.url, username)
  return { context, page, errors }
}

const go = (page: Page, path: string, heading: string) => openAt(page, `${server.url}${path}`, heading)

beforeAll(async () => {
  server = await startServer()
  browser = await launchBrowser()
  await call("POST", "/api/admin/users", { username: "listener", password: PASSWORD })
  const tracks = await server.run(libraryTracks)
  // Plays over several weeks, some skipped, so the trends have more than one point per family.
  for (const [at, daysAgo] of [3, 10, 17, 24].entries()) {
    await server.run(arrangePlays(server.admin.user.id, tracks.slice(at * 2, at * 2 + 6), { times: 2, daysAgo }))
    await server.run(arrangePlays(server.admin.user.id, tracks.slice(12 + at, 13 + at), { daysAgo, skipped: true }))
  }
})
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe("admin pages", () => {
  it("starts a scan and follows its progress to idle; lists scan errors and cover sources", async () => {
    const { context, page, errors } = await openPage()
    await go(page, "/admin/library", "Library")
    const progress = page.getByLabel("Scan progress")
    await progress.waitFor()
    const before = await call<{ started_at: string }>("GET", "/api/admin/scan")
    await page.getByRole("button", { name: "Full rescan" }).click()
    await page
      .getByRole("status")
      .filter({ hasText: /Full scan started|already running/ })
      .waitFor()
    // The page follows the scan until it is idle again, with the new run's counts.
    const after = await eventually(
      async () => {
        const status = await call<{ started_at: string; files_seen: number; state: string }>("GET", "/api/admin/scan")
        return status.state === "idle" && status.started_at !== before.started_at ? status : undefined
      },
      30_000,
      "the scan to finish",
    )
    await page.locator('[aria-label="Scan progress"][data-state="idle"]').waitFor({ timeout: 30_000 })
    await progress.getByText(String(after.files_seen), { exact: true }).first().waitFor()
    // The fixture library holds files that cannot be indexed: they are listed by path.
    await page.getByRole("heading", { name: "Files that could not be indexed" }).waitFor()
    await page.getByText("_junk/random.mp3").waitFor()
    await page.getByRole("heading", { name: "Cover sources" }).waitFor()
    await page.getByRole("rowheader", { name: "embedded" }).waitFor()
    await page.getByText("No missing tracks.").waitFor()

    // A file vanishes: the next scan lists its track as missing, and it can be purged from here.
    const libraryDir = await server.run(
      Effect.map(TonearmConfig, (config) => config.libraryDir) as unknown as Effect.Effect<string>,
    )
    const audio = (fs.readdirSync(libraryDir, { recursive: true }) as Array<string>)
      .filter((file) => /\.(mp3|flac|ogg|m4a|opus)$/i.test(file) && !file.startsWith("_junk") && !/Broken/.test(file))
      .sort()
    const gone = { file: path.join(libraryDir, audio[audio.length - 1]!) }
    fs.rmSync(gone.file)
    await page.getByRole("button", { name: "Scan for changes" }).click()
    const purgeOne = page.locator(".admin-card tbody").getByRole("button", { name: /^Purge / })
    await purgeOne.waitFor({ timeout: 30_000 })
    await expectNoSeriousA11yViolations(page, "admin library")
    await screenshot(page, "admin-library")
    await purgeOne.click()
    await page.getByRole("status").filter({ hasText: "Purged 1 track." }).waitFor()
    await page.getByText("No missing tracks.").waitFor()
    expect(errors).toEqual([])
    await context.close()
  })

  it("changes a tuning value, shows it in the audit list, refuses an out-of-bounds value with the server's message, resets", async () => {
    const { context, page, errors } = await openPage()
    await go(page, "/admin/tuning", "Recommendation tuning")
    const radio = page.locator('form[data-scope="radio"]')
    const weight = radio.getByLabel("radio taste_weight")
    await expect(weight.inputValue()).resolves.toBe("1")
    await weight.fill("2.5")
    await radio.getByRole("button", { name: "Save radio" }).click()
    const audit = page.getByRole("table", { name: "Tuning audit" })
    await audit.getByText("taste_weight: 1 → 2.5").waitFor()
    const tuned = await call<{ scopes: { radio: { current: { taste_weight: number } } } }>(
      "GET",
      "/api/admin/recommendation-tuning",
    )
    expect(tuned.scopes.radio.current.taste_weight).toBe(2.5)
    await expectNoSeriousA11yViolations(page, "admin tuning")
    await screenshot(page, "admin-tuning")

    // Out of bounds: the server's 400 message is shown, nothing changes.
    await weight.fill("9")
    await radio.getByRole("button", { name: "Save radio" }).click()
    const alert = radio.getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/taste_weight|between|5/)
    // A curve out of order is refused the same way.
    const taste = page.locator('form[data-scope="taste"]')
    await taste.getByLabel("taste completion_curve").fill("0,-1 0.8,0 0.5,0.5 1,1")
    await taste.getByRole("button", { name: "Save taste" }).click()
    await taste
      .getByRole("alert")
      .getByText(/strictly increasing/)
      .waitFor()

    await radio.getByRole("button", { name: "Reset radio to shipped" }).click()
    await audit.getByText("taste_weight: 2.5 → 1").waitFor()
    // The audit and the tuning are two reloads; wait for the input to show the shipped value.
    await eventually(async () => ((await weight.inputValue()) === "1" ? true : undefined), 10_000, "taste_weight 1")
    await expect(weight.inputValue()).resolves.toBe("1")
    const audits = await call<ReadonlyArray<{ scope: string }>>("GET", "/api/admin/recommendation-tuning/audit")
    expect(audits.map((row) => row.scope)).toEqual(["radio", "radio"])

    // A rebuild started here runs to done.
    await page.getByLabel("Username (empty: everyone)").fill("admin")
    await page.getByRole("button", { name: "Start rebuild" }).click()
    await page.locator('.rebuild-status[data-state="done"]').waitFor({ timeout: 60_000 })
    expect(errors).toEqual([])
    await context.close()
  })

  it("trusted proxies round-trip: set, reload, see it, put it back", async () => {
    const { context, page, errors } = await openPage()
    await go(page, "/admin/proxies", "Trusted proxies")
    const hops = page.getByLabel("Trusted hops")
    await page.getByTestId("hops").waitFor()
    const original = await hops.inputValue()
    await hops.fill("2")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByRole("status").filter({ hasText: "trusting 2 hops" }).waitFor()
    await page.reload()
    await page.getByTestId("hops").filter({ hasText: "2" }).waitFor()
    await expect(page.getByLabel("Trusted hops").inputValue()).resolves.toBe("2")
    await expect(call<{ hops: number }>("GET", "/api/admin/trusted-proxies")).resolves.toMatchObject({ hops: 2 })
    // A value the server refuses says why.
    await page.getByLabel("Trusted hops").fill("-1")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByRole("status").filter({ hasText: "Not saved" }).waitFor()
    await page.getByLabel("Trusted hops").fill(original)
    await page.getByRole("button", { name: "Save" }).click()
    await page
      .getByRole("status")
      .filter({ hasText: `trusting ${original}` })
      .waitFor()
    await expectNoSeriousA11yViolations(page, "admin proxies")
    await screenshot(page, "admin-proxies")
    expect(errors).toEqual([])
    await context.close()
  })

  it("users: create an account, mint its reset link, delete it", async () => {
    const { context, page, errors } = await openPage()
    await go(page, "/admin/users", "Users")
    await page.getByLabel("Username").fill("carol")
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByLabel("Email (optional)").fill("carol@example.org")
    await page.getByRole("button", { name: "Create account" }).click()
    await page.getByRole("status").filter({ hasText: "Created carol." }).waitFor()
    await page.locator('tr[data-user="carol"]').waitFor()
    await page.getByRole("button", { name: "Reset link for carol" }).click()
    await page.locator(".reset-link code").filter({ hasText: "/reset-password" }).waitFor()
    await expectNoSeriousA11yViolations(page, "admin users")
    await screenshot(page, "admin-users")
    // A duplicate name is refused with the server's message.
    await page.getByLabel("Username").fill("carol")
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.getByRole("status").filter({ hasText: "Could not create the account" }).waitFor()
    await page.getByRole("button", { name: "Delete carol" }).click()
    await page.locator('tr[data-user="carol"]').waitFor({ state: "detached" })
    const users = await call<ReadonlyArray<{ username: string }>>("GET", "/api/admin/users")
    expect(users.map((user) => user.username).sort()).toEqual(["admin", "listener"])
    expect(errors).toEqual([])
    await context.close()
  })

  it("trends: weekly rates per family as SVG charts", async () => {
    const { context, page, errors } = await openPage()
    await go(page, "/admin/trends", "Recommendation trends")
    await page.getByRole("img", { name: "Skip rate per week" }).waitFor()
    await page.getByRole("img", { name: "Taste-hit rate per week" }).waitFor()
    // issue 28 item 6: first listens and intra-list diversity per family
    await page.getByRole("img", { name: "Share of first listens per week" }).waitFor()
    await page.getByRole("img", { name: /^Intra-list diversity per week/ }).waitFor()
    // Four weeks of plays: points in the plain-plays series of every chart.
    expect(await page.locator("figure.chart circle").count()).toBeGreaterThanOrEqual(4)
    await expectNoSeriousA11yViolations(page, "admin trends")
    await screenshot(page, "admin-trends")
    expect(errors).toEqual([])
    await context.close()
  })

  it("a listener sees no Admin navigation and gets 'Not allowed' on an admin address", async () => {
    const { context, page, errors } = await openPage("listener")
    const nav = page.getByRole("navigation", { name: "Main" })
    await nav.getByRole("link", { name: "Home" }).waitFor()
    expect(await nav.getByRole("heading", { name: "Admin" }).count()).toBe(0)
    expect(await nav.getByRole("link", { name: "Tuning" }).count()).toBe(0)
    for (const path of ["/admin/tuning", "/admin/users", "/admin/library", "/admin/proxies", "/admin/trends"]) {
      await go(page, path, "Not allowed")
    }
    await screenshot(page, "admin-not-allowed")
    expect(errors).toEqual([])
    await context.close()
  })
})
