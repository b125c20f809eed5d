import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

// The routes beside the contract reach the error envelope from main.ts; a wrong method on them is 405, not 404.
layer(TestServerLive(), { excludeTestServices: true })("routes next to the contract", (it) => {
  it.effect("a wrong method on /openapi.json, /docs and the password pages is 405 with Allow: GET, HEAD", () =>
    Effect.gen(function* () {
      for (const path of ["/openapi.json", "/docs", "/forgot-password", "/reset-password/some-token"]) {
        const response = yield* raw("POST", path)
        expect(response.status, path).toBe(405)
        expect(response.headers.get("allow"), path).toBe("GET, HEAD")
      }
      expect((yield* raw("GET", "/reset-password/some-token")).status).toBe(200)
      expect((yield* raw("POST", "/reset-password")).status).toBe(404)
    }),
  )
})
