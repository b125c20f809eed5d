import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

/** A small fake of an external HTTP service on loopback that records every request it gets. */
export interface FakeHttpService {
  readonly url: string
  readonly requests: Array<RecordedRequest>
  /** The next answer's status (default 200). */
  status: number
  readonly close: () => Promise<void>
}

export const startFakeHttpService = (): Promise<FakeHttpService> =>
  new Promise((resolve) => {
    const requests: Array<RecordedRequest> = []
    let server: Server
    const fake: FakeHttpService = {
      url: "",
      requests,
      status: 200,
      close: () => new Promise((done) => server.close(() => done())),
    }
    server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => {
        body += chunk
      })
      request.on("end", () => {
        requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body })
        response.writeHead(fake.status, { "content-type": "application/json" })
        response.end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      ;(fake as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve(fake)
    })
  })
