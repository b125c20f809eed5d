/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type Effect, ManagedRuntime } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import type { TonearmSettings } from "../../../server/src/config/TonearmConfig.js"
import { PASSWORD, type SignedIn, signUpFirstAdmin } from "../../../server/test/support/accounts.js"
import { fixtureLibrary, scanNow } from "../../../server/test/support/library.js"
import { serverUrl, TestServerLive } from "../../../server/test/support/TestServer.js"
import { ensureWebBuilt, launchBrowser as launchChromium } from "./webBuild.js"

export { PASSWORD }

const here = path.dirname(fileURLToPath(import.meta.url))
export const SCREENSHOTS = path.join(here, "screenshots")

export { CHROMIUM, ensureWebBuilt, webBuildStale } from "./webBuild.js"

/** This worker's Chromium: launched by the first e2e file the worker runs, kept for the files after it. */
let sharedBrowser: Promise<Browser> | undefined

/**
 * A browser for one test file: the worker's one Chromium (test workers keep their modules from file to file), of
 * which the file sees only the contexts it makes. Its `close` closes those contexts, not Chromium (which ends
 * with the worker), so files stay independent: no page, cookie or storage outlives the file that made it.
 * Launching Chromium once per worker instead of once per file saves a browser start per e2e file.
 */
export const launchBrowser = async (): Promise<Browser> => {
  const current = sharedBrowser === undefined ? undefined : await sharedBrowser.catch(() => undefined)
  if (current === undefined || !current.isConnected()) sharedBrowser = launchChromium()
  const browser = await sharedBrowser!
  const contexts = new Set<BrowserContext>()
  const track = (context: BrowserContext) => {
    contexts.add(context)
    context.on("close", () => contexts.delete(context))
    return context
  }
  return new Proxy(browser, {
    get: (target, property) => {
      if (property === "newContext")
        return async (options?: Parameters<Browser["newContext"]>[0]) => track(await target.newContext(options))
      if (property === "newPage")
        return async (options?: Parameters<Browser["newPage"]>[0]) => {
          const context = track(await target.newContext(options))
          return context.newPage()
        }
      if (property === "contexts") return () => [...contexts]
      if (property === "close")
        return async () => {
          await Promise.all([...contexts].map((context) => context.close().catch(() => undefined)))
        }
      const value = Reflect.get(target, property, target)
      return typeof value === "function" ? value.bind(target) : value
    },
  })
}

export interface WebServer {
  readonly url: string
  readonly admin: SignedIn
  /** Runs an effect against the server (its HttpClient, its database). */
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Promise<A>
  readonly runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>
  readonly close: () => Promise<void>
}

/**
 * A real Tonearm server (fresh database, the ffmpeg-made fixture library scanned) serving the built web app. With
 * `libraryDir` in the overrides, that library is scanned instead (a test's own fixture files).
 */
export const startEmptyServer = async (overrides: Partial<TonearmSettings> = {}): Promise<Omit<WebServer, "admin">> => {
  ensureWebBuilt()
  const root = overrides.libraryDir ?? (await fixtureLibrary()).root
  const runtime = ManagedRuntime.make(TestServerLive({ libraryDir: root, ...overrides }))
  const url = await runtime.runPromise(serverUrl)
  await runtime.runPromise(scanNow())
  return {
    url,
    run: (effect) => runtime.runPromise(effect as Effect.Effect<never, never, never>),
    runtime: runtime as unknown as ManagedRuntime.ManagedRuntime<unknown, unknown>,
    close: () => runtime.dispose(),
  }
}

/** The same, with its first account ("admin", the tests' password) made. */
export const startServer = async (overrides: Partial<TonearmSettings> = {}): Promise<WebServer> => {
  const server = await startEmptyServer(overrides)
  const admin = await server.run(signUpFirstAdmin("admin"))
  return { ...server, admin }
}

/** The admin's own JSON API with the bearer token the harness made: the parsed body, or throws on a non-2xx. */
export const adminCall = async <A = unknown>(server: WebServer, method: string, route: string, body?: unknown) => {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${server.admin.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`)
  const text = await response.text()
  return (text === "" ? undefined : JSON.parse(text)) as A
}

/** Opens a page of the app and waits for its title heading. */
export const openAt = async (page: Page, url: string, heading: string) => {
  await page.goto(url)
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor()
}

/** Signs in through the sign-in form and waits for Home. */
export const signIn = async (page: Page, url: string, username = "admin", password = PASSWORD) => {
  await page.goto(`${url}/`)
  await page.getByLabel("Username").fill(username)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { name: "Home", level: 1 }).waitFor()
}

/** The two sizes every page is tested at (issue 25): a touch phone and a desktop. */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } as const
export const DESKTOP = { viewport: { width: 1440, height: 900 } } as const
export type ScreenSize = typeof PHONE | typeof DESKTOP
export const SIZES = [
  ["phone", PHONE],
  ["desktop", DESKTOP],
] as const

/** A listener account of their own, made by the server's admin (the tests' password). */
export const newListener = (server: WebServer, username: string) =>
  adminCall(server, "POST", "/api/admin/users", { username, password: PASSWORD })

/** `username` signed in on a new page of `context`, its event stream open; with the errors the page logs. */
export const signedInPage = async (server: Pick<WebServer, "url">, context: BrowserContext, username = "admin") => {
  const page = await context.newPage()
  const errors = collectErrors(page)
  await signIn(page, server.url, username)
  await page.waitForFunction(() => document.documentElement.dataset.eventStream === "open")
  return { page, errors }
}

export const screenshot = async (page: Page, name: string) => {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: false })
}

export const newContext = (browser: Browser): Promise<BrowserContext> =>
  browser.newContext({ viewport: { width: 1280, height: 800 } })

/** Errors the page logged: a test fails on any (a broken chunk, an unhandled rejection). */
export const collectErrors = (page: Page) => {
  const errors: Array<string> = []
  page.on("pageerror", (error) => errors.push(error.message))
  return errors
}

let axeText: string | undefined
const axeSource = () => {
  axeText ??= fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
  return axeText
}

/** Runs axe-core in the page and fails on any serious or critical violation (named, with its first targets). */
export const expectNoSeriousA11yViolations = async (page: Page, name: string) => {
  // Evaluated through the debugging protocol, not added as a <script>: the app's content security policy (no
  // inline script) would refuse a script tag, as it should.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource())
  const violations = (await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected as a global script
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] })
    return result.violations
  })) as Array<{ id: string; impact: string; help: string; nodes: Array<{ target: Array<string> }> }>
  const serious = violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${name}: ${violation.id} (${violation.impact}) ${violation.help} at ${violation.nodes
          .slice(0, 3)
          .map((node) => node.target.join(" "))
          .join(", ")}`,
    )
  if (serious.length > 0) throw new Error(serious.join("\n"))
}

/** The one audio element of the app. */
export const audioState = (page: Page) =>
  page.evaluate(() => {
    const audio = document.getElementById("tonearm-audio") as HTMLAudioElement
    return { currentTime: audio.currentTime, paused: audio.paused, src: audio.currentSrc, ended: audio.ended }
  })

/** Slows playback so the fixtures' 0.5–2 s tracks last long enough to act on them mid-track. */
export const slowPlayback = (page: Page, rate = 0.25) =>
  page.evaluate((value) => {
    const audio = document.getElementById("tonearm-audio") as HTMLAudioElement
    audio.defaultPlaybackRate = value
    audio.playbackRate = value
  }, rate)

/** Polls `check` until it returns a value that is not undefined (or throws after `timeoutMs`). */
export const eventually = async <A>(
  check: () => Promise<A | undefined>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Runs the admin rebuild of one user's recommendations and waits until it is done (throws when it failed). */
export const rebuildNow = async (server: WebServer, username: string) => {
  const started = await adminCall<{ id: string }>(server, "POST", "/api/admin/recommendation-rebuilds", { username })
  const run = await eventually(
    async () => {
      const state = await adminCall<{ state: string }>(
        server,
        "GET",
        `/api/admin/recommendation-rebuilds/${started.id}`,
      )
      return state.state === "running" ? undefined : state
    },
    60_000,
    `the rebuild of ${username}`,
  )
  if (run.state !== "done") throw new Error(`the rebuild of ${username} ended ${run.state}`)
}
