import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { SqlClient } from "@effect/sql"
import { type Effect, ManagedRuntime } from "effect"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import type { TonearmSettings } from "../../../server/src/config/TonearmConfig.js"
import { PASSWORD, type SignedIn, signUpFirstAdmin } from "../../../server/test/support/accounts.js"
import { fixtureLibrary, scanNow } from "../../../server/test/support/library.js"
import { serverUrl, TestServerLive } from "../../../server/test/support/TestServer.js"

export { PASSWORD }

const here = path.dirname(fileURLToPath(import.meta.url))
export const WEB = path.resolve(here, "../..")
const ROOT = path.resolve(WEB, "../..")
export const SCREENSHOTS = path.join(here, "screenshots")

const newestMtime = (target: string): number => {
  const stat = fs.statSync(target, { throwIfNoEntry: false })
  if (stat === undefined) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)))
  return newest
}

/** What the built app is made of: when any is newer than dist/index.html, the build is stale. */
const INPUTS = [
  path.join(WEB, "src"),
  path.join(WEB, "index.html"),
  path.join(WEB, "vite.config.ts"),
  path.join(WEB, "package.json"),
  path.join(ROOT, "packages/client-sdk/src"),
  path.join(ROOT, "packages/core/src"),
]

export const webBuildStale = () => {
  const built = fs.statSync(path.join(WEB, "dist", "index.html"), { throwIfNoEntry: false })?.mtimeMs ?? -1
  return built < 0 || INPUTS.some((input) => newestMtime(input) > built)
}

/**
 * Builds packages/web when dist is missing or older than its sources, so `pnpm test` works on a fresh clone.
 * Test files run in parallel: one builds under a lock directory, the others wait for it.
 */
export const ensureWebBuilt = () => {
  const lock = path.join(WEB, ".build-lock")
  const deadline = Date.now() + 180_000
  for (;;) {
    try {
      fs.mkdirSync(lock)
      break
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > 180_000 || Date.now() > deadline) fs.rmSync(lock, { recursive: true, force: true })
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250)
    }
  }
  try {
    if (!webBuildStale()) return
    const vite = path.join(WEB, "node_modules", ".bin", "vite")
    const result = spawnSync(vite, ["build", "--logLevel", "warn"], { cwd: WEB, stdio: "inherit" })
    if (result.status !== 0) throw new Error("building packages/web failed (see above)")
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/** Debian's Chromium, never a downloaded browser (stack notes, "Browsers"). */
export const CHROMIUM = process.env.TONEARM_CHROMIUM ?? "/usr/bin/chromium"

export const launchBrowser = (): Promise<Browser> => {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: the web tests drive Debian's Chromium (apt-get install -y chromium)`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
      "--autoplay-policy=no-user-gesture-required",
    ],
  })
}

export interface WebServer {
  readonly url: string
  readonly admin: SignedIn
  readonly run: <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) => Promise<A>
  readonly runtime: ManagedRuntime.ManagedRuntime<unknown, unknown>
  readonly close: () => Promise<void>
}

/**
 * A real Tonearm server (fresh database, the real-audio fixture library scanned) serving the built web app,
 * with its first account ("admin", the tests' password) made.
 */
export const startServer = async (overrides: Partial<TonearmSettings> = {}): Promise<WebServer> => {
  ensureWebBuilt()
  const { root } = await fixtureLibrary()
  const runtime = ManagedRuntime.make(TestServerLive({ libraryDir: root, ...overrides }))
  const url = await runtime.runPromise(serverUrl)
  const admin = await runtime.runPromise(signUpFirstAdmin("admin"))
  await runtime.runPromise(scanNow())
  return {
    url,
    admin,
    run: (effect) => runtime.runPromise(effect as Effect.Effect<never, never, never>),
    runtime: runtime as unknown as ManagedRuntime.ManagedRuntime<unknown, unknown>,
    close: () => runtime.dispose(),
  }
}

/** Signs in through the sign-in form and waits for Home. */
export const signIn = async (page: Page, url: string, username = "admin", password = PASSWORD) => {
  await page.goto(`${url}/`)
  await page.getByLabel("Username").fill(username)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { name: "Home", level: 1 }).waitFor()
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

/** Runs axe-core in the page and fails on any serious or critical violation (named, with its first targets). */
export const expectNoSeriousA11yViolations = async (page: Page, name: string) => {
  const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js")
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: axePath })
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
