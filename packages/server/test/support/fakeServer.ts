import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface FakeRequest {
  readonly method: string
  /** Path and query, as sent. */
  readonly url: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** When it arrived (Date.now()). */
  readonly at: number
}

export interface FakeAnswer {
  readonly status?: number
  /** An object is sent as JSON; a string or bytes as they are. */
  readonly body?: unknown
  readonly headers?: Record<string, string>
  /** Close the connection without answering (a server that drops a kept-alive connection as it is reused). */
  readonly hangUp?: true
}

export type FakeHandler = (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>

interface Route {
  readonly method: string
  readonly path: RegExp | string
  readonly handler: FakeHandler
}

/**
 * A small fake of an external HTTP service on loopback (MusicBrainz, Last.fm, ListenBrainz, the Cover Art
 * Archive, Lidarr): routes by method and path, records every request with its arrival time, and can be
 * stopped and started again on the same port mid-test (an outage). Unrouted requests answer 404.
 */
export class FakeServer {
  readonly requests: Array<FakeRequest> = []
  private routes: Array<Route> = []
  private server: Server | undefined
  private port = 0

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Adds a route; a later route for the same method and path wins. */
  on(method: string, path: RegExp | string, handler: FakeHandler): this {
    this.routes.unshift({ method: method.toUpperCase(), path, handler })
    return this
  }

  /** Requests whose path matches. */
  hits(path: RegExp | string): Array<FakeRequest> {
    return this.requests.filter((request) =>
      typeof path === "string" ? request.path === path : path.test(request.path),
    )
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = createServer((request, response) => {
        let body = ""
        request.on("data", (chunk) => {
          body += chunk
        })
        request.on("end", () => {
          const parsed = new URL(request.url ?? "/", "http://fake")
          const recorded: FakeRequest = {
            method: request.method ?? "",
            url: request.url ?? "",
            path: parsed.pathname,
            query: parsed.searchParams,
            headers: request.headers,
            body,
            at: Date.now(),
          }
          this.requests.push(recorded)
          const route = this.routes.find(
            (candidate) =>
              candidate.method === recorded.method &&
              (typeof candidate.path === "string"
                ? candidate.path === recorded.path
                : candidate.path.test(recorded.path)),
          )
          Promise.resolve(
            route === undefined ? { status: 404, body: { error: "not routed" } } : route.handler(recorded),
          )
            .then((answer) => {
              if (answer.hangUp) return void request.socket.destroy()
              const payload =
                answer.body === undefined
                  ? ""
                  : typeof answer.body === "string" || answer.body instanceof Uint8Array
                    ? answer.body
                    : JSON.stringify(answer.body)
              const isJson =
                answer.body !== undefined && typeof answer.body === "object" && !(answer.body instanceof Uint8Array)
              response.writeHead(answer.status ?? 200, {
                ...(isJson ? { "content-type": "application/json" } : {}),
                ...answer.headers,
              })
              response.end(payload)
            })
            .catch(() => {
              response.writeHead(500)
              response.end()
            })
        })
      })
      server.keepAliveTimeout = 1
      server.once("error", reject)
      server.listen(this.port, "127.0.0.1", () => {
        this.port = (server.address() as AddressInfo).port
        this.server = server
        resolve()
      })
    })
  }

  /** Stops answering (connections refused) until `start` is called again; the port is kept. */
  stop(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (server === undefined) return Promise.resolve()
    return new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
  }
}

/** A started fake server that is stopped when the scope closes. */
export const fakeServer = (configure: (server: FakeServer) => void = () => {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = new FakeServer()
      configure(server)
      await server.start()
      return server
    }),
    (server) => Effect.promise(() => server.stop()),
  )

/** Starts a fake server outside any scope (for a whole test file); stop it in afterAll. */
export const startFakeServer = async (configure: (server: FakeServer) => void = () => {}): Promise<FakeServer> => {
  const server = new FakeServer()
  configure(server)
  await server.start()
  return server
}

/** A tiny valid JPEG (1×1), as a cover provider would send. */
export const TINY_JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  "base64",
)
