import * as fs from "node:fs"
import type { ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Config, Effect, Runtime } from "effect"

/**
 * How long a connection may hold unsent response bytes without taking any (`TONEARM_IDLE_WRITE_TIMEOUT_MS`,
 * default 60 s): then it is closed. A player reading at playback speed drains its socket every second or two.
 */
export const idleWriteTimeoutMs = Config.integer("TONEARM_IDLE_WRITE_TIMEOUT_MS").pipe(
  Config.validate({ message: "must be a positive number of milliseconds", validation: (n) => n >= 1 }),
  Config.withDefault(60_000),
)

interface Watched {
  /** When the socket was first seen refusing more bytes with no drain since (performance.now()), else undefined. */
  since: number | undefined
  /** What the kernel and the socket held then (`queued`): a change means the client took bytes meanwhile. */
  queued: string | undefined
}

/**
 * The bytes the kernel holds unsent or unacknowledged for each established TCP connection, by "localPort:remotePort"
 * (Linux's /proc/net/tcp and tcp6, `tx_queue`); undefined where there is no /proc (then drains alone decide). Read
 * at most once a sweep, and only when a connection starts or ends a wait.
 */
const kernelQueues = (): Map<string, string> | undefined => {
  const queues = new Map<string, string>()
  let found = false
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string
    try {
      text = fs.readFileSync(file, "latin1")
    } catch {
      continue
    }
    found = true
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 5 || fields[3] !== "01") continue
      const local = Number.parseInt(fields[1]!.split(":")[1] ?? "", 16)
      const remote = Number.parseInt(fields[2]!.split(":")[1] ?? "", 16)
      queues.set(`${local}:${remote}`, fields[4]!.split(":")[0]!)
    }
  }
  return found ? queues : undefined
}

/** The socket's own buffer and, on Linux, the kernel's queue for it: unchanged while the client takes nothing. */
const queuedOf = (socket: Socket, queues: Map<string, string> | undefined) =>
  `${socket.writableLength}/${queues?.get(`${socket.localPort}:${socket.remotePort}`) ?? "?"}`

/**
 * The idle-write timeout (issue 29 item 6): a client that opens a stream, a transcode, an event stream or any
 * large answer and stops reading fills the kernel's buffers, then the socket's own; from then on `write` returns
 * false and no `drain` comes. A connection in that state (Node's `writableNeedDrain`) for the whole timeout is
 * destroyed: the request's fiber is interrupted as for a client that left, so its ffmpeg is killed and its
 * transcode slot freed, and its file handle closed. Measured on backpressure, not on the time a response takes: a
 * slow reader that still takes bytes changes what the kernel holds for it (or drains) and is never cut. One timer
 * per server checks the open connections every quarter of the timeout (at most every second).
 */
export const IdleWriteTimeoutLive = HttpApiBuilder.middleware(
  Effect.gen(function* () {
    const timeoutMs = yield* idleWriteTimeoutMs
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const watched = new Map<Socket, Watched>()

    const sweep = () => {
      const now = performance.now()
      let queues: Map<string, string> | undefined | null = null
      const kernel = () => {
        if (queues === null) queues = kernelQueues()
        return queues
      }
      for (const [socket, state] of watched) {
        if (socket.destroyed) {
          watched.delete(socket)
        } else if (!socket.writableNeedDrain) {
          state.since = undefined
        } else if (state.since === undefined) {
          state.since = now
          state.queued = queuedOf(socket, kernel())
        } else if (now - state.since >= timeoutMs) {
          // No drain for the whole timeout. The kernel wakes a writer only once a third of its (auto-tuned, up to
          // megabytes) send buffer is free, so a slow reader can go long between drains while still taking bytes:
          // what the kernel and the socket hold tells. Changed: it took bytes, watch it anew.
          const queued = queuedOf(socket, kernel())
          if (queued !== state.queued) {
            state.since = now
            state.queued = queued
            continue
          }
          watched.delete(socket)
          socket.destroy()
          runFork(
            Effect.logInfo(
              `closed a connection from ${socket.remoteAddress ?? "?"}: it took no bytes for ${timeoutMs} ms`,
            ),
          )
        }
      }
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => setInterval(sweep, Math.max(10, Math.min(1000, Math.floor(timeoutMs / 4)))).unref()),
      (timer) => Effect.sync(() => clearInterval(timer)),
    )

    const watch = (socket: Socket) => {
      if (watched.has(socket) || socket.destroyed) return
      const state: Watched = { since: undefined, queued: undefined }
      watched.set(socket, state)
      socket.on("drain", () => {
        state.since = undefined
      })
      socket.once("close", () => watched.delete(socket))
    }

    const middleware: HttpApiBuilder.MiddlewareFn<never> = (app) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        // Only requests served by Node's HTTP server have a socket to watch.
        const socket = (NodeHttpServerRequest.toServerResponse(request) as ServerResponse | undefined)?.socket
        if (socket !== null && socket !== undefined) watch(socket)
        return app
      })
    return middleware
  }),
)
