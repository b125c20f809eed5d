import { Effect } from "effect"
import { serverUrl } from "./TestServer.js"

export interface RawResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: unknown
}

/**
 * A request the typed client would refuse to send (bad types, raw strings, odd methods): plain fetch to
 * the server under test.
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
    const base = yield* serverUrl
    return yield* Effect.promise(async (): Promise<RawResponse> => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
          ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
          ...options.headers,
        },
        ...(options.body !== undefined ? { body: options.body } : {}),
      })
      const text = await response.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      return { status: response.status, headers: response.headers, text, json }
    })
  })

export const rawJson = (method: string, path: string, body: unknown, token?: string) =>
  raw(method, path, { body: JSON.stringify(body), ...(token !== undefined ? { token } : {}) })
