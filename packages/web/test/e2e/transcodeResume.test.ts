/// <reference lib="dom" />
// page.evaluate callbacks run in the browser: they see the DOM.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ffmpeg } from "../../../server/fixtures/ffmpeg.js"
import {
  audioState,
  collectErrors,
  eventually,
  launchBrowser,
  openAt,
  SIZES,
  signIn,
  startServer,
  type WebServer,
} from "./support.js"

/**
 * A paused transcode cut by the server is resumed, not skipped (issue 29): the server closes a connection that takes
 * no bytes for TONEARM_IDLE_WRITE_TIMEOUT_MS (here 2 s), which is what a browser paused on a transcode longer than
 * its buffer looks like. Chromium plays on from the paused position with what reached it before the cut, then
 * reports the track ended minutes before its length; the web player asks the transcode again from there
 * (`timeOffset`) and plays on at that position, at phone and desktop size, instead of going on to the next track.
 */

const IDLE_MS = 2000
let server: WebServer
let browser: Browser
let root: string
let albumId = ""
let trackId = ""

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-resume-"))
  const file = path.join(root, "Long Noise/Half An Hour/01 Long Noise.wav")
  fs.mkdirSync(path.dirname(file), { recursive: true })
  // Thirty minutes of white noise (incompressible) in ADPCM: Chromium opens the .wav but cannot decode it, so the
  // player transcodes it to Opus, about 30 MB at 128 kbit/s: far more than Chromium buffers ahead of a pause.
  await ffmpeg([
    ...["-f", "lavfi", "-i", "anoisesrc=d=1800:c=white:r=22050:a=0.5"],
    ...["-metadata", "title=Long Noise", "-metadata", "artist=Static", "-metadata", "album=Half An Hour"],
    ...["-metadata", "track=1", "-ac", "1", "-c:a", "adpcm_ms", file],
  ])
  // Read when the server's layers are built: set for that moment only (test workers share process.env).
  const before = process.env.TONEARM_IDLE_WRITE_TIMEOUT_MS
  process.env.TONEARM_IDLE_WRITE_TIMEOUT_MS = String(IDLE_MS)
  try {
    server = await startServer({ libraryDir: root })
  } finally {
    if (before === undefined) delete process.env.TONEARM_IDLE_WRITE_TIMEOUT_MS
    else process.env.TONEARM_IDLE_WRITE_TIMEOUT_MS = before
  }
  browser = await launchBrowser()
  const found = await server.run(
    Effect.gen(function* () {
      const page = yield* server.admin.client.library.albums({ urlParams: { limit: 10 } })
      const ref = page.items.find((item) => item.title === "Half An Hour")
      return ref === undefined ? undefined : yield* server.admin.client.library.album({ path: { id: ref.id } })
    }),
  )
  if (found === undefined) throw new Error("the long track was not scanned")
  albumId = found.id
  trackId = found.tracks[0]!.id
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
  if (root !== undefined) fs.rmSync(root, { recursive: true, force: true })
})

/**
 * The position the player shows: the seek slider's value (desktop, whole seconds), or on a phone the mini player's
 * progress line (its share of the track's 30 minutes).
 */
const shownPosition = (page: Page) =>
  page.evaluate(() => {
    const slider = document.querySelector<HTMLInputElement>('input[aria-label="Seek"]')
    if (slider !== null) return Number(slider.value)
    const line = document.querySelector<HTMLElement>(".mini-progress > div")
    const ratio = Number(/scaleX\(([^)]+)\)/.exec(line?.style.transform ?? "")?.[1] ?? Number.NaN)
    return ratio * 1800
  })

/** The server's ffmpeg processes transcoding this test's library (Linux: read from /proc). */
const transcoders = () =>
  fs.readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      return path.basename(args[0] ?? "") === "ffmpeg" && args.some((arg) => arg.startsWith(root))
    } catch {
      return false // gone meanwhile
    }
  })

const player = (page: Page) => page.getByRole("region", { name: "Player" })

describe("a transcode the server cut during a long pause", () => {
  for (const [name, size] of SIZES) {
    it(`resumes from where it was paused instead of skipping the track (${name})`, async () => {
      const context = await browser.newContext({ ...size, serviceWorkers: "block" })
      const page = await context.newPage()
      const errors = collectErrors(page)
      // Every stream request the page makes.
      const streams: Array<{ url: string; at: number }> = []
      page.on("request", (request) => {
        if (request.url().includes(`/tracks/${trackId}/stream`)) streams.push({ url: request.url(), at: Date.now() })
      })
      await signIn(page, server.url)
      await openAt(page, `${server.url}/albums/${albumId}`, "Half An Hour")
      await page.getByRole("main").getByRole("button", { name: "Play", exact: true }).click()

      // Playing the transcode (the ADPCM original fails first) a few seconds in.
      await eventually(
        async () => {
          const state = await audioState(page)
          return state.src.includes("format=") && state.currentTime > 3 && !state.paused ? true : undefined
        },
        30_000,
        "the transcode to play",
      )
      await player(page).getByRole("button", { name: "Pause", exact: true }).click()
      await eventually(async () => ((await audioState(page)).paused ? true : undefined), 5_000, "the pause")
      const pausedAt = await shownPosition(page)
      const asked = streams.length

      // The browser buffers a little and stops reading; the server's ffmpeg fills the socket's buffers, and 2 s
      // after the last byte was taken the server cuts the connection, which kills that ffmpeg. The browser hears of
      // it only when it reads again.
      const pausedTime = Date.now()
      expect(transcoders().length).toBeGreaterThan(0)
      await eventually(
        async () => (transcoders().length === 0 ? true : undefined),
        90_000,
        "the server to cut the paused transcode",
      )
      const cutAfterS = (Date.now() - pausedTime) / 1000
      // What the element does from here: its errors and each stream it loads, with the position shown then.
      await page.evaluate(() => {
        const log: Array<string> = []
        const audio = document.getElementById("tonearm-audio") as HTMLAudioElement
        for (const type of ["error", "loadstart", "playing", "waiting", "stalled"])
          audio.addEventListener(type, () =>
            log.push(`${type} ${audio.currentTime.toFixed(1)} ${audio.src.split("?")[1] ?? ""}`),
          )
        ;(window as unknown as { resumeLog: Array<string> }).resumeLog = log
      })
      const resumedTime = Date.now()
      await player(page).getByRole("button", { name: "Play", exact: true }).click()
      const justAfter = await eventually(
        async () => {
          const state = await audioState(page)
          return state.paused ? undefined : await shownPosition(page)
        },
        10_000,
        "playback to go on",
      )
      // Played on until the stream is asked again, and then on from there on the same track. The cut connection
      // still delivers what the kernel had queued for it (minutes of audio), so the browser meets its end only
      // later: played at 16× until then.
      await page.evaluate(() => {
        const audio = document.getElementById("tonearm-audio") as HTMLAudioElement
        audio.defaultPlaybackRate = 16
        audio.playbackRate = 16
      })
      const events = () => page.evaluate(() => (window as unknown as { resumeLog: Array<string> }).resumeLog)
      const reask = await eventually(
        async () => streams.slice(asked).find((request) => new URL(request.url).searchParams.has("timeOffset")),
        60_000,
        "the transcode to be asked again",
      ).catch(async (error) => {
        throw new Error(
          `${error}: ${(await events()).join(" | ")}; ${JSON.stringify(await audioState(page))}; ${await shownPosition(page)}; ${streams.map((r) => r.url.split("?")[1]).join(",")}; ${JSON.stringify(await page.getByRole("status").allTextContents())}`,
        )
      })
      await page.evaluate(() => {
        const audio = document.getElementById("tonearm-audio") as HTMLAudioElement
        audio.defaultPlaybackRate = 1
        audio.playbackRate = 1
      })
      // Playing on from a re-asked stream: the first one, or a later one if a loaded machine made that stall too.
      const { after, offset } = await eventually(
        async () => {
          const state = await audioState(page)
          const shown = await shownPosition(page)
          const from = state.src.includes(trackId) ? new URL(state.src).searchParams.get("timeOffset") : null
          return !state.paused && from !== null && shown >= Number(from) + 2
            ? { after: shown, offset: Number(from) }
            : undefined
        },
        60_000,
        "playback from the re-asked stream",
      ).catch(async (error) => {
        throw new Error(`${error}: ${(await events()).join(" | ")}; ${JSON.stringify(await audioState(page))}`)
      })
      expect(Number(new URL(reask.url).searchParams.get("timeOffset"))).toBeGreaterThanOrEqual(pausedAt - 1)
      console.log(
        `[measure] ${name}: paused at ${pausedAt.toFixed(1)} s, the server cut it ${cutAfterS.toFixed(1)} s later;` +
          ` resumed at ${justAfter.toFixed(1)} s; asked again ${((reask.at - resumedTime) / 1000).toFixed(1)} s after` +
          ` the resume with timeOffset=${offset}; then shown ${after.toFixed(1)} s. Element: ${(await events()).join(" | ")}`,
      )
      expect(await page.getByRole("status").filter({ hasText: "Could not play" }).count()).toBe(0)
      expect(await page.getByTestId("now-playing-title").textContent()).toBe("Long Noise")
      // The position after the resume is the paused one, and the re-ask starts from where playback had got to.
      expect(Math.abs(justAfter - pausedAt)).toBeLessThan(3)
      expect(offset).toBeGreaterThanOrEqual(pausedAt - 1)
      expect(after).toBeLessThan(offset + 60)
      expect(errors).toEqual([])
      await context.close()
    }, 300_000)
  }
})
