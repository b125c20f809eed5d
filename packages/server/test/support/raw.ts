import * as http from "node:http"
import { Effect } from "effect"
import { serverUrl } from "./TestServer.js"

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly bytes: Buffer
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: unknown
}

/**
 * A request the typed client would refuse to send (bad types, raw strings, odd methods, a Host header):
 * node:http straight to the server under test.
 */
export const raw = (
  method: string,
  path: string,
  options: {
    readonly body?: string | Uint8Array
    readonly headers?: Record<string, string>
    readonly token?: string
  } = {},
) =>
  Effect.gen(function* () {
    const base = new URL(yield* serverUrl)
    return yield* Effect.async<RawResponse, Error>((resume) => {
      const request = http.request(
        {
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers: {
            ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
            // A declared length, as every client sends for a body in hand: node:http would send a DELETE's body
            // with neither a length nor chunking, which the server can only read as the start of another request.
            ...(options.body !== undefined ? { "content-length": String(Buffer.byteLength(options.body)) } : {}),
            ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
            ...options.headers,
          },
        },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => {
            const bytes = Buffer.concat(chunks)
            const text = bytes.toString("utf8")
            let json: unknown
            try {
              json = JSON.parse(text)
            } catch {
              json = undefined
            }
            const headers = new Headers()
            for (const [name, value] of Object.entries(response.headers)) {
              if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value)
            }
            resume(Effect.succeed({ status: response.statusCode ?? 0, headers, text, bytes, json }))
          })
        },
      )
      request.on("error", (error) => resume(Effect.fail(error)))
      if (options.body !== undefined) request.write(options.body)
      request.end()
    }).pipe(Effect.orDie)
  })

export const rawJson = (method: string, path: string, body: unknown, token?: string) =>
  raw(method, path, { body: JSON.stringify(body), ...(token !== undefined ? { token } : {}) })
