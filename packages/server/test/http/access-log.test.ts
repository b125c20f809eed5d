import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { makeTonearmClient } from "@tonearm/client-sdk"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { accessLog } from "../../src/http/accessLog.js"
import { HttpAppLive } from "../../src/main.js"
import { PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { serverUrl, testConfig } from "../support/TestServer.js"

/** A ten-minute WAV (26 MB): far more than the socket buffers, so the server is mid-write when the client leaves. */
const library = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-access-log-"))
fs.mkdirSync(path.join(library, "Tone", "Long"), { recursive: true })
execFileSync("ffmpeg", [
  ...["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi"],
  ...["-i", "sine=frequency=440:duration=600:sample_rate=22050", "-ac", "1", "-c:a", "pcm_s16le"],
  path.join(library, "Tone", "Long", "01 Tone.wav"),
])

interface Line {
  readonly level: string
  readonly message: string
}
const lines: Array<Line> = []
const recorder = Logger.make<unknown, void>(({ logLevel, message }) => {
  lines.push({
    level: logLevel.label,
    message: Array.isArray(message) ? message.map(String).join(" ") : String(message),
  })
})

/** The server as main.ts serves it (with the access log), every log line recorded from debug up. */
const ServerWithAccessLog = HttpApiBuilder.serve(accessLog).pipe(
  Layer.provideMerge(HttpAppLive),
  Layer.provideMerge(NodeHttpServer.layerTest),
  Layer.provideMerge(TestDatabaseLive),
  Layer.provideMerge(testConfig({ libraryDir: library })),
  Layer.provide(Logger.replace(Logger.defaultLogger, recorder)),
  Layer.provide(Logger.minimumLogLevel(LogLevel.Debug)),
)

/** GET, read the first chunk, then close the connection mid-response. */
const leaveMidResponse = (route: string, token: string) =>
  Effect.gen(function* () {
    const base = new URL(yield* serverUrl)
    yield* Effect.async<void>((resume) => {
      const request = http.get(
        { host: base.hostname, port: base.port, path: route, headers: { authorization: `Bearer ${token}` } },
        (response) => {
          response.once("data", () => {
            request.destroy()
            resume(Effect.void)
          })
        },
      )
      request.on("error", () => {})
    })
  })

/** GET and close the connection after `ms`, before any answer. */
const leaveAfter = (route: string, token: string, ms: number) =>
  Effect.gen(function* () {
    const base = new URL(yield* serverUrl)
    const request = http.get({
      host: base.hostname,
      port: base.port,
      path: route,
      headers: { authorization: `Bearer ${token}` },
    })
    request.on("error", () => {})
    yield* Effect.sleep(ms)
    request.destroy()
  })

const waitForLine = (pattern: RegExp) =>
  Effect.gen(function* () {
    for (let attempt = 0; attempt < 60; attempt++) {
      if (lines.some((line) => pattern.test(line.message))) return
      yield* Effect.sleep("50 millis")
    }
  })

/** This process's open file descriptors whose file name ends with `name`. */
const openDescriptorsOf = (name: string) =>
  fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith(name)
    } catch {
      return false
    }
  })

const atWarningOrAbove = () => lines.filter((line) => ["WARN", "ERROR", "FATAL"].includes(line.level))

layer(ServerWithAccessLog, { excludeTestServices: true, timeout: "90 seconds" })("access log", (it) => {
  it.effect("a client that leaves while its request waits on the database is one debug line, not an error", () =>
    Effect.gen(function* () {
      yield* signUpFirstAdmin("admin")
      yield* scanNow()
      const client = yield* makeTonearmClient()
      const { token } = yield* client.auth.login({ payload: { username: "admin", password: PASSWORD } })
      const sql = yield* SqlClient.SqlClient
      lines.length = 0
      // A session touched within the last second is read, not written: make this one due a touch.
      yield* sql`UPDATE sessions SET last_seen_at = last_seen_at - interval '1 minute'`
      // Every session is locked, so the request's authentication waits until its client has gone; the statement
      // then runs to its end (never cancelled, see client-abort.test.ts) and the request ends as interrupted.
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`
          yield* leaveAfter("/api/library/genres", token, 300)
          yield* Effect.sleep("200 millis")
        }),
      )
      yield* waitForLine(/client closed the connection/)
      const closed = lines.filter((line) => line.message.includes("client closed the connection"))
      expect(closed).toHaveLength(1)
      expect(closed[0]!.level).toBe("DEBUG")
      expect(closed[0]!.message).toMatch(/^GET \/api\/library\/genres client closed the connection after \d+ms$/)
      expect(atWarningOrAbove()).toEqual([])
    }),
  )

  it.effect("a client that leaves mid-stream (original or transcoded) logs nothing at warning or above", () =>
    Effect.gen(function* () {
      const client = yield* makeTonearmClient()
      const { token } = yield* client.auth.login({ payload: { username: "admin", password: PASSWORD } })
      const sql = yield* SqlClient.SqlClient
      const [track] = yield* sql<{ id: string }>`SELECT id FROM tracks`
      lines.length = 0
      yield* leaveMidResponse(`/api/tracks/${track!.id}/stream`, token)
      yield* leaveMidResponse(`/api/tracks/${track!.id}/stream?format=mp3&maxBitRate=320`, token)
      yield* Effect.sleep("300 millis")
      expect(atWarningOrAbove()).toEqual([])
      // Nor does it leave the file open (the server runs in this process).
      expect(openDescriptorsOf("01 Tone.wav")).toEqual([])
    }),
  )

  it.effect("a completed request is one debug line with its status", () =>
    Effect.gen(function* () {
      lines.length = 0
      const base = yield* serverUrl
      yield* Effect.promise(() => fetch(`${base}/healthz`).then((response) => response.text()))
      expect(lines.some((line) => line.level === "DEBUG" && /^GET \/healthz 200 \d+ms$/.test(line.message))).toBe(true)
    }),
  )
})
