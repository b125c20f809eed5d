import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium } from "playwright-core"

/**
 * What the e2e tests and the web bench share, with no test-runner import: building the app when stale, and
 * launching Debian's Chromium.
 */

/** packages/web, and the repository root. */
export const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const ROOT = path.resolve(WEB, "../..")

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
  path.join(WEB, "public"),
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

/**
 * Debian's Chromium. Its contexts block the service worker unless a test asks for it (`serviceWorkers: "allow"`):
 * precaching the whole build in every context costs each test time, and a worker hides stream requests from
 * `page.route`. The offline tests allow it.
 */
export const launchBrowser = async (): Promise<Browser> => {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: the web tests drive Debian's Chromium (apt-get install -y chromium)`)
  const browser = await chromium.launch({
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
  const newContext = browser.newContext.bind(browser)
  browser.newContext = (options) => newContext({ serviceWorkers: "block", ...options })
  return browser
}
