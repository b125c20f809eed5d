/// <reference lib="dom" />
/**
 * Web player budgets (issue 10), measured in Debian's Chromium against a real server on loopback:
 *
 *   1. initial JavaScript: the entry chunk plus its static imports (index.html's module script and its
 *      modulepreload links), gzipped (level 9). Target ≤ 150 KB.
 *   2. Home time-to-interactive with a generated 20k-track library (24,000 by default, so the album list below has
 *      2,000 entries): navigation start → every Home section rendered and the main thread free (a
 *      requestAnimationFrame after the sections). Target < 1 s. Baseline: the same navigation to the server's
 *      plain /forgot-password page (tiny HTML, no app), in the same run.
 *   4. (run first) Sign-in → first album card painted on `/albums` (issue 25 item 9), in fresh browsers:
 *      from the sign-in form's submit to the frame after the first card. Target ≤ 1 s on a 100k-track library
 *      (`--tracks 100000`). Baseline: sign-in → the Queue page (no library data), in the same run.
 *   3. Scrolling the album list (`/albums`, virtualised) from top to bottom, 160 px per frame: frame times from
 *      requestAnimationFrame, dropped frames (> 1.5 × the baseline's median frame) and p95. Baseline: the same
 *      rAF loop on the idle page with no scrolling, in the same run.
 *
 *   pnpm bench:web [-- --tracks 24000] [--seed 1] [--library DIR] [--runs 5] [--json]
 *
 * The library is the project's synthetic one (server/fixtures/synthetic.ts), generated once into
 * `<tmp>/tonearm-bench-library-<tracks>-<seed>` (shared with bench:idle) and reused. The database is a throwaway
 * one (TONEARM_BENCH_DATABASE_URL, else an embedded PostgreSQL).
 */
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { parseArgs } from "node:util"
import { gzipSync } from "node:zlib"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Logger, LogLevel, Option, Redacted } from "effect"
import { benchDatabase, benchSettings } from "../../server/bench/benchSupport.js"
import { generateSyntheticLibrary } from "../../server/fixtures/synthetic.js"
import { TonearmConfig } from "../../server/src/config/TonearmConfig.js"
import { makeDatabaseLive, pgClientLayer } from "../../server/src/db/Database.js"
import { Scanner } from "../../server/src/library/index.js"
import { HttpAppLive } from "../../server/src/main.js"
import { ensureWebBuilt, launchBrowser, WEB } from "../test/e2e/webBuild.js"

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== "--"),
  options: {
    tracks: { type: "string", default: "24000" },
    seed: { type: "string", default: "1" },
    library: { type: "string" },
    runs: { type: "string", default: "5" },
    json: { type: "boolean", default: false },
  },
})
const log = (line: string) => (values.json ? process.stderr : process.stdout).write(`${line}\n`)
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const percentile = (xs: ReadonlyArray<number>, p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!

// ---- 1. initial JavaScript --------------------------------------------------------------------------------------

const initialJs = () => {
  const dist = path.join(WEB, "dist")
  const html = fs.readFileSync(path.join(dist, "index.html"), "utf8")
  const files = [
    ...html.matchAll(/<script type="module"[^>]*src="([^"]+)"/g),
    ...html.matchAll(/<link rel="modulepreload"[^>]*href="([^"]+)"/g),
  ].map((match) => match[1]!)
  const sizes = files.map((file) => {
    const bytes = fs.readFileSync(path.join(dist, file))
    return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
  })
  return {
    files: sizes,
    raw: sizes.reduce((sum, file) => sum + file.raw, 0),
    gzip: sizes.reduce((sum, file) => sum + file.gzip, 0),
  }
}

// ---- the library and the server ---------------------------------------------------------------------------------

const libraryDir = async (): Promise<string> => {
  if (values.library !== undefined) return path.resolve(values.library)
  const tracks = Number(values.tracks)
  const dir = path.join(os.tmpdir(), `tonearm-bench-library-${tracks}-${values.seed}`)
  const done = path.join(dir, ".complete")
  if (fs.existsSync(done)) {
    log(`library: reusing ${dir}`)
    return dir
  }
  const started = performance.now()
  const generated = await generateSyntheticLibrary({ out: dir, tracks, seed: Number(values.seed) })
  fs.writeFileSync(done, `${generated.files}\n`)
  log(`library: generated ${generated.files} files in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return dir
}

const USER = "bench"
const PASSWORD = "bench-password-1"

const main = Effect.gen(function* () {
  ensureWebBuilt()
  const js = initialJs()
  log(
    `initial JS: ${(js.gzip / 1024).toFixed(1)} KB gzipped (${(js.raw / 1024).toFixed(1)} KB raw) in ${js.files.length} file(s); target ≤ 150 KB`,
  )

  const library = yield* Effect.promise(libraryDir)
  const databaseUrl = yield* benchDatabase
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-bench-web-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true })))
  const server = HttpApiBuilder.serve().pipe(
    Layer.provideMerge(HttpAppLive),
    Layer.provideMerge(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(makeDatabaseLive(pgClientLayer(Redacted.make(databaseUrl)))),
    Layer.provideMerge(Layer.succeed(TonearmConfig, benchSettings(dataDir, library))),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning)),
  )
  const context = yield* Layer.build(server)
  const address = Context.get(context, HttpServer.HttpServer).address
  const url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  const scanStarted = performance.now()
  const summary = yield* Effect.flatMap(Scanner, (scanner) => scanner.scan({ full: true })).pipe(
    Effect.provide(context),
    Effect.map(Option.getOrThrow),
  )
  log(`scan: ${JSON.stringify(summary).slice(0, 160)} in ${((performance.now() - scanStarted) / 1000).toFixed(1)} s`)
  const register = yield* Effect.promise(() =>
    fetch(`${url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: USER, password: PASSWORD }),
    }).then((response) => response.json() as Promise<{ token: string }>),
  )
  const albumsTotal = yield* Effect.promise(() =>
    fetch(`${url}/api/library/albums?limit=1`, { headers: { authorization: `Bearer ${register.token}` } })
      .then((response) => response.json() as Promise<{ total: number }>)
      .then((page) => page.total),
  )
  log(`library: ${albumsTotal} albums`)

  const browser = yield* Effect.acquireRelease(
    Effect.promise(() => launchBrowser()),
    (b) => Effect.promise(() => b.close()),
  )
  const cookie = { name: "tonearm_session", value: register.token, url }
  const runs = Number(values.runs)

  // ---- 4. sign-in → first album card on /albums (issue 25 item 9) --------------------------------------------
  // A fresh browser at /albums with no session: the sign-in form, then the moment the submit happens to the
  // frame after the first album card is in the page (so it has been painted). Baseline, same run and same way:
  // sign-in → the Queue page's heading, a page that asks nothing of the library (the same sign-in request, the
  // same shell start-up; the sign-in form has a heading of its own, hence the heading's text).
  /** `ready`: a condition (JavaScript, in the page) that holds once the page is there. */
  const signInTo = async (path: string, ready: string) => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const page = await ctx.newPage()
    await page.goto(`${url}${path}`)
    await page.getByLabel("Username").fill(USER)
    await page.getByLabel("Password").fill(PASSWORD)
    // A string, not a function (tsx helpers are unknown in the page): the clock starts at the form's submit.
    await page.evaluate(`(() => {
      document.addEventListener("submit", () => {
        window.__tonearmSubmit = performance.now()
        const check = () => {
          if (${ready})
            requestAnimationFrame(() => { window.__tonearmReady = performance.now() })
          else requestAnimationFrame(check)
        }
        requestAnimationFrame(check)
      }, { capture: true, once: true })
    })()`)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page
      .waitForFunction(() => (window as { __tonearmReady?: number }).__tonearmReady, undefined, { timeout: 30_000 })
      .catch(async (error: unknown) => {
        const shown = await page.evaluate("(document.querySelector('main') ?? document.body).textContent.slice(0, 200)")
        log(`sign-in → ${path} never showed ${ready}: ${shown}`)
        throw error
      })
    const ms = (await page.evaluate("window.__tonearmReady - window.__tonearmSubmit")) as number
    await ctx.close()
    return ms
  }
  const FIRST_ALBUM = `document.querySelector(".album-list li a") !== null`
  const QUEUE_HEADING = `[...document.querySelectorAll("main h1")].some((h) => h.textContent === "Queue")`
  const albumsAfterSignIn: Array<number> = []
  const queueAfterSignIn: Array<number> = []
  yield* Effect.promise(async () => {
    await signInTo("/albums", FIRST_ALBUM) // warm the server's album pages, as a second visitor finds them
    for (let run = 0; run < runs; run++) {
      queueAfterSignIn.push(await signInTo("/queue", QUEUE_HEADING))
      albumsAfterSignIn.push(await signInTo("/albums", FIRST_ALBUM))
    }
  })
  const firstAlbums = median(albumsAfterSignIn)
  const signInBaseline = median(queueAfterSignIn)
  log(
    `Sign-in → first album card on /albums (${albumsTotal} albums): median ${firstAlbums.toFixed(0)} ms over ${runs} fresh browsers (min ${Math.min(...albumsAfterSignIn).toFixed(0)}, max ${Math.max(...albumsAfterSignIn).toFixed(0)}); baseline sign-in → Queue page ${signInBaseline.toFixed(0)} ms; target ≤ 1000 ms`,
  )

  // ---- 2. Home time-to-interactive --------------------------------------------------------------------------
  const timeTo = async (path: string, ready: string) => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await ctx.addCookies([cookie])
    const page = await ctx.newPage()
    // Checked on every animation frame from the first script on: the frame after `ready` holds is when the
    // page is painted and its main thread answers.
    // (A string, not a function: tsx would add its __name helper to a named inner function, unknown in the page.)
    await page.addInitScript(`(() => {
      const check = () => {
        if (document.querySelector(${JSON.stringify(ready)}) !== null)
          requestAnimationFrame(() => { window.__tonearmReady = performance.now() })
        else requestAnimationFrame(check)
      }
      requestAnimationFrame(check)
    })()`)
    await page.goto(`${url}${path}`, { waitUntil: "commit" })
    const ms = await page
      .waitForFunction(() => (window as { __tonearmReady?: number }).__tonearmReady, undefined, { timeout: 30_000 })
      .catch(async (error: unknown) => {
        log(
          `${path} never showed ${ready}: ${await page.evaluate((selector) => [document.querySelectorAll(selector).length, (window as { __tonearmReady?: number }).__tonearmReady, document.querySelectorAll("section.row").length, document.querySelector("main")?.textContent?.slice(0, 200)], ready)}`,
        )
        throw error
      })
    const value = (await ms.jsonValue()) as number
    await ctx.close()
    return value
  }
  // Every section of /api/home rendered (seven rows), the page no longer loading.
  const homeReady = `main ${Array.from({ length: 7 }, () => "section.row").join(" ~ ")}`
  const baselineTimes: Array<number> = []
  const homeTimes: Array<number> = []
  yield* Effect.promise(async () => {
    try {
      await timeTo("/", homeReady) // warm the server's caches and the browser's HTTP cache of nothing (new contexts)
      for (let run = 0; run < runs; run++) {
        baselineTimes.push(await timeTo("/forgot-password", "form"))
        homeTimes.push(await timeTo("/", homeReady))
      }
    } catch (error) {
      // One figure that cannot be measured must not lose the others (a 100k scan takes minutes).
      log(`Home interactive: not measured (${String(error).split("\n")[0]})`)
    }
  })
  // How much of it is the server's own answer: GET /api/home from Node, same loopback, same runs.
  const apiTimes: Array<number> = []
  yield* Effect.promise(async () => {
    for (let run = 0; run < runs; run++) {
      const started = performance.now()
      await fetch(`${url}/api/home`, { headers: { authorization: `Bearer ${register.token}` } }).then((response) =>
        response.arrayBuffer(),
      )
      apiTimes.push(performance.now() - started)
    }
  })
  log(`GET /api/home alone: median ${median(apiTimes).toFixed(0)} ms`)
  const home = homeTimes.length > 0 ? median(homeTimes) : Number.NaN
  const baseline = baselineTimes.length > 0 ? median(baselineTimes) : Number.NaN
  if (homeTimes.length > 0)
    log(
      `Home interactive: median ${home.toFixed(0)} ms over ${runs} cold loads (min ${Math.min(...homeTimes).toFixed(0)}, max ${Math.max(...homeTimes).toFixed(0)}); baseline /forgot-password ${baseline.toFixed(0)} ms; ratio ${(home / baseline).toFixed(1)}×; target < 1000 ms`,
    )

  // ---- 3. scrolling the album list ---------------------------------------------------------------------------
  const frames = yield* Effect.promise(async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    await ctx.addCookies([cookie])
    const page = await ctx.newPage()
    await page.goto(`${url}/albums`)
    await page.locator(".album-list li a").first().waitFor()
    // A string for the same reason as above (no tsx helpers inside page code).
    const record = (scrolling: boolean) =>
      page.evaluate(`new Promise((resolve) => {
        const deltas = []
        let last = performance.now()
        let count = 0
        const bottom = document.documentElement.scrollHeight - innerHeight
        const step = () => {
          const now = performance.now()
          deltas.push(now - last)
          last = now
          count++
          if (${scrolling}) window.scrollBy(0, 160)
          const done = ${scrolling} ? window.scrollY >= bottom - 1 : count >= 300
          if (done || count > 5000)
            resolve({ deltas: deltas.slice(1), rows: document.querySelectorAll(".album-list li").length, scrolled: window.scrollY })
          else requestAnimationFrame(step)
        }
        requestAnimationFrame(step)
      })`) as Promise<{ deltas: Array<number>; rows: number; scrolled: number }>
    const idle = await record(false)
    await page.evaluate(() => window.scrollTo(0, 0))
    const scrolled = await record(true)
    const loadedAtEnd = await page.locator(".album-list li a").count()
    await ctx.close()
    return { idle, scrolled, loadedAtEnd }
  })
  const frameBudget = median(frames.idle.deltas)
  const dropped = (deltas: ReadonlyArray<number>) =>
    deltas.filter((delta) => delta > 1.5 * frameBudget).length / deltas.length
  const scroll = {
    frames: frames.scrolled.deltas.length,
    p95: percentile(frames.scrolled.deltas, 95),
    dropped: dropped(frames.scrolled.deltas),
    baselineP95: percentile(frames.idle.deltas, 95),
    baselineDropped: dropped(frames.idle.deltas),
    renderedRows: frames.scrolled.rows,
  }
  log(
    `Album list (${albumsTotal} entries, ${scroll.renderedRows} rows in the DOM at the end): ${scroll.frames} frames scrolled; p95 frame ${scroll.p95.toFixed(1)} ms vs idle baseline ${scroll.baselineP95.toFixed(1)} ms (${(scroll.p95 / scroll.baselineP95).toFixed(2)}×); dropped frames ${(scroll.dropped * 100).toFixed(1)}% vs baseline ${(scroll.baselineDropped * 100).toFixed(1)}%; frame budget ${frameBudget.toFixed(1)} ms`,
  )
  if (values.json)
    console.log(
      JSON.stringify({
        initialJsGzipBytes: js.gzip,
        initialJsRawBytes: js.raw,
        initialJsFiles: js.files,
        homeInteractiveMs: { median: home, runs: homeTimes, baselineMedian: baseline, baselineRuns: baselineTimes },
        apiHomeMs: { median: median(apiTimes), runs: apiTimes },
        signInToFirstAlbumMs: {
          median: firstAlbums,
          runs: albumsAfterSignIn,
          baselineMedian: signInBaseline,
          baselineRuns: queueAfterSignIn,
        },
        albums: albumsTotal,
        scroll,
      }),
    )
})

Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
