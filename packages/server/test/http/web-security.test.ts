import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AdminLive, aUser } from "../ownData.js"
import { PASSWORD } from "../support/accounts.js"
import { raw } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 5: the web's security headers on every answer, and no cookie-authenticated state change from
 * another site (bearer tokens and reads unaffected).
 */
const cookieOf = (name: string) =>
  Effect.gen(function* () {
    const login = yield* raw("POST", "/api/auth/login", {
      body: JSON.stringify({ username: name, password: PASSWORD }),
    })
    expect(login.status).toBe(200)
    const cookie = /tonearm_session=[^;]+/.exec(login.headers.get("set-cookie") ?? "")?.[0]
    expect(cookie).toBeDefined()
    return cookie!
  })

const createPlaylist = (headers: Record<string, string>, token?: string) =>
  raw("POST", "/api/playlists", {
    body: JSON.stringify({ name: "From somewhere" }),
    headers,
    ...(token !== undefined ? { token } : {}),
  })

layer(AdminLive().pipe(Layer.provideMerge(TestServerLive())), { excludeTestServices: true })("web security", (it) => {
  it.effect("every answer is nosniff and unframeable; HTML pages carry the content security policy", () =>
    Effect.gen(function* () {
      const page = yield* raw("GET", "/", { headers: { accept: "text/html" } })
      expect(page.status).toBe(200)
      const policy = page.headers.get("content-security-policy") ?? ""
      expect(policy).toContain("script-src 'self'")
      expect(policy).not.toContain("unsafe-inline")
      expect(policy).toContain("frame-ancestors 'none'")
      expect(page.headers.get("x-frame-options")).toBe("DENY")
      expect(page.headers.get("referrer-policy")).toBe("same-origin")
      for (const path of ["/api/nothing-here", "/healthz", "/api/me", "/openapi.json", "/rest/ping.view"]) {
        const response = yield* raw("GET", path)
        expect(response.headers.get("x-content-type-options"), path).toBe("nosniff")
        expect(response.headers.get("x-frame-options"), path).toBe("DENY")
        expect(response.headers.get("strict-transport-security"), path).toBeNull()
      }
      const password = yield* raw("GET", "/forgot-password")
      expect(password.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    }),
  )

  it.effect("HSTS only when the client came over HTTPS (a TLS socket or X-Forwarded-Proto https)", () =>
    Effect.gen(function* () {
      const secure = yield* raw("GET", "/healthz", { headers: { "x-forwarded-proto": "https" } })
      expect(secure.headers.get("strict-transport-security")).toBe("max-age=15552000")
    }),
  )

  it.effect("a cookie-authenticated write from another site is 403; same-origin, bearer and reads pass", () =>
    Effect.gen(function* () {
      const fay = yield* aUser("fay")
      const cookie = yield* cookieOf(fay.user.username)
      const foreign: ReadonlyArray<Record<string, string>> = [
        { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
        { "sec-fetch-site": "same-site", origin: "http://localhost:9999" },
        { origin: "https://evil.example" },
        { origin: "null" },
      ]
      for (const headers of foreign) {
        const refused = yield* createPlaylist({ cookie, ...headers })
        expect(refused.status, JSON.stringify(headers)).toBe(403)
        expect((refused.json as { error: { code: string } }).error.code).toBe("forbidden")
      }
      // Sign-out through a forged form is refused too: the session still works afterwards.
      const logout = yield* raw("POST", "/api/auth/logout", { headers: { cookie, "sec-fetch-site": "cross-site" } })
      expect(logout.status).toBe(403)
      const me = yield* raw("GET", "/api/me", { headers: { cookie, "sec-fetch-site": "cross-site" } })
      expect(me.status).toBe(200)
      // The web player's own requests, and clients that are not browser pages.
      expect((yield* createPlaylist({ cookie, "sec-fetch-site": "same-origin" })).status).toBe(201)
      // An older browser (no Sec-Fetch-Site) on this server's own origin.
      expect((yield* createPlaylist({ cookie, origin: new URL(yield* serverUrl).origin })).status).toBe(201)
      expect((yield* createPlaylist({ cookie })).status).toBe(201)
      expect((yield* createPlaylist({ "sec-fetch-site": "cross-site" }, fay.token)).status).toBe(201)
    }),
  )
})
