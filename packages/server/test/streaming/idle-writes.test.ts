import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import { makeLibrary } from "../support/library.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

// Issue 29 item 6: the idle-write timeout. A client that opens a stream or a transcode and stops reading is cut
// once its connection has refused bytes (no drain) for TONEARM_IDLE_WRITE_TIMEOUT_MS, freeing the transcode slot.

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-idle-writes-"))
const ffmpeg = (args: ReadonlyArray<string>, out: string) => {
  execFileSync("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", ...args, path.join(folder, out)])
  return path.join(folder, out)
}
// Ten minutes of tone: a 320 kbit/s transcode of it is 24 MB, far more than every buffer between the two ends.
const tone = ffmpeg(
  ["-f", "lavfi", "-i", "sine=frequency=440:duration=600:sample_rate=22050", "-c:a", "flac"],
  "t.flac",
)
// Two minutes of white noise (incompressible): a 10 MB original, again more than the buffers hold.
const noise = ffmpeg(
  ["-f", "lavfi", "-i", "anoisesrc=d=120:c=white:r=44100:a=0.5", "-ac", "1", "-c:a", "flac"],
  "n.flac",
)
const library = makeLibrary({ "Tone/Ten Minutes/01 Tone.flac": tone, "Noise/Two Minutes/01 Noise.flac": noise })

const IDLE_MS = 1000

const settings = Layer.setConfigProvider(
  ConfigProvider.fromMap(
    new Map(
      Object.entries({
        // One transcoder and a short wait: a held slot shows as a 503 for the next listener.
        TONEARM_TRANSCODE_CONCURRENCY: "1",
        TONEARM_TRANSCODE_WAIT_MS: "300",
        TONEARM_IDLE_WRITE_TIMEOUT_MS: String(IDLE_MS),
      }),
    ),
  ).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv())),
)

const trackId = (suffix: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string; path: string }>`SELECT id, path FROM tracks`
    const row = rows.find((candidate) => candidate.path.endsWith(suffix))
    if (row === undefined) throw new Error(`no track ending with ${suffix}`)
    return row.id
  })

/**
 * A raw socket client that sends a GET, takes the first body bytes and then stops reading (`pause`: the kernel's
 * receive buffer fills, then the server's send buffer, then the server's socket refuses writes). `readSlowly`
 * instead takes what arrived every `everyMs`, as a player at playback speed does. `finished` answers when the
 * server ended the connection (seen once the client reads again), with the bytes received.
 */
const client = (route: string, token: string, mode: { readonly readSlowly?: number } = {}) =>
  Effect.gen(function* () {
    const base = new URL(yield* serverUrl)
    return yield* Effect.async<{
      status: number
      received: () => number
      closed: () => boolean
      resume: () => void
      finished: Promise<number>
      close: () => void
    }>((resume) => {
      const socket = net.connect({ host: base.hostname, port: Number(base.port) })
      let head = Buffer.alloc(0)
      let status = 0
      let received = 0
      let timer: NodeJS.Timeout | undefined
      const finished = new Promise<number>((done) =>
        socket.once("close", () => {
          clearInterval(timer)
          done(received)
        }),
      )
      socket.on("error", () => {})
      socket.write(`GET ${route} HTTP/1.1\r\nHost: ${base.host}\r\nAuthorization: Bearer ${token}\r\n\r\n`)
      socket.on("data", (chunk: Buffer) => {
        received += chunk.length
        // A slow reader takes one chunk (at most 64 KiB) per tick, then stops again.
        if (status !== 0 && timer !== undefined) socket.pause()
        if (status !== 0) return
        head = Buffer.concat([head, chunk])
        if (!head.includes("\r\n\r\n")) return
        status = Number(head.toString("latin1").split(" ")[1])
        socket.pause()
        if (mode.readSlowly !== undefined) {
          // One chunk a tick: bytes keep flowing, never at the server's pace.
          timer = setInterval(() => socket.resume(), mode.readSlowly)
        }
        resume(
          Effect.succeed({
            status,
            received: () => received,
            closed: () => socket.destroyed || socket.readableEnded,
            resume: () => {
              clearInterval(timer)
              socket.resume()
            },
            finished,
            close: () => socket.destroy(),
          }),
        )
      })
    })
  })

/** This process's ffmpeg children (the test server runs in-process). */
const ffmpegChildren = () =>
  fs.readdirSync("/proc").filter((entry) => {
    if (!/^\d+$/.test(entry)) return false
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      return comm === "ffmpeg" && ppid === process.pid
    } catch {
      return false
    }
  }).length

const waitUntil = (check: () => boolean, seconds: number) =>
  Effect.gen(function* () {
    for (let waited = 0; waited < seconds * 20 && !check(); waited++) yield* Effect.sleep("50 millis")
    return check()
  })

layer(
  Layer.mergeAll(AdminLive(), ScannedLive).pipe(
    Layer.provideMerge(TestServerLive({ libraryDir: library }).pipe(Layer.provide(settings))),
  ),
  {
    excludeTestServices: true,
    timeout: "120 seconds",
  },
)("idle-write timeout", (it) => {
  it.effect(
    "a transcode whose client stops reading is cut after the idle-write timeout, freeing its slot",
    () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const other = yield* aUser("other")
        const route = `/api/tracks/${yield* trackId("01 Tone.flac")}/stream?format=mp3&maxBitRate=320`
        const started = performance.now()
        const stalled = yield* client(route, admin.token)
        expect(stalled.status).toBe(200)
        expect(ffmpegChildren()).toBe(1)
        // While the stalled client holds the only transcoder, another listener is told to come back.
        const refused = yield* client(route, other.token)
        expect(refused.status).toBe(503)
        refused.close()
        // The server fills the buffers, waits IDLE_MS with no drain, then closes: ffmpeg is killed.
        expect(yield* waitUntil(() => ffmpegChildren() === 0, 30)).toBe(true)
        expect(performance.now() - started).toBeGreaterThanOrEqual(IDLE_MS)
        // The slot is free: the other listener's transcode starts.
        const next = yield* client(route, other.token)
        expect(next.status).toBe(200)
        next.close()
        // The stalled client, reading again, gets what was in flight and then the end: far short of 24 MB.
        stalled.resume()
        const got = yield* Effect.promise(() => stalled.finished)
        expect(got).toBeLessThan(20_000_000)
        expect(yield* waitUntil(() => ffmpegChildren() === 0, 10)).toBe(true)
      }),
    { timeout: 60_000 },
  )

  it.effect("an original whose client stops reading is cut too", () =>
    Effect.gen(function* () {
      const admin = yield* Admin
      const id = yield* trackId("01 Noise.flac")
      const size = fs.statSync(path.join(library, "Noise/Two Minutes/01 Noise.flac")).size
      expect(size).toBeGreaterThan(8_000_000)
      const stalled = yield* client(`/api/tracks/${id}/stream`, admin.token)
      expect(stalled.status).toBe(200)
      // Buffers fill within a moment; then, after IDLE_MS with no drain, the server closes. Uncut, the client would
      // get the whole file once it reads again (and the connection would stay open for keep-alive).
      yield* Effect.sleep(`${IDLE_MS * 6} millis`)
      stalled.resume()
      const got = yield* Effect.promise(() => stalled.finished)
      expect(got).toBeGreaterThan(0)
      expect(got).toBeLessThan(size)
    }),
  )

  it.effect(
    "a slow reader that keeps taking bytes is never cut",
    () =>
      Effect.gen(function* () {
        const { token } = yield* aUser("slow")
        const route = `/api/tracks/${yield* trackId("01 Tone.flac")}/stream?format=mp3&maxBitRate=320`
        // It takes one chunk every 200 ms (about 320 KB/s, far slower than ffmpeg writes: the server's writes are
        // refused most of the time), so its connection drains now and then, well inside the 1 s timeout.
        const slow = yield* client(route, token, { readSlowly: 200 })
        expect(slow.status).toBe(200)
        const early = slow.received()
        yield* Effect.sleep("5 seconds")
        // Not cut, and still taking bytes (its ffmpeg may have finished meanwhile on a fast machine: the server holds
        // the rest of the transcode for it, so the count of ffmpeg children tells nothing here).
        expect(slow.closed()).toBe(false)
        expect(slow.received()).toBeGreaterThan(early + 500_000)
        slow.close()
        expect(yield* waitUntil(() => ffmpegChildren() === 0, 10)).toBe(true)
      }),
    { timeout: 60_000 },
  )
})
