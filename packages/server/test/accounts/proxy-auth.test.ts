import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either } from "effect"
import { proxyAuthHeaderConfig } from "../../src/config/TonearmConfig.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const proxyLogin = (base: string, headers: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/auth/proxy-login`, { method: "POST", headers })
    return {
      status: response.status,
      cookie: response.headers.get("set-cookie"),
      body: (await response.json()) as {
        user?: { id: string; username: string; is_admin: boolean }
        token?: string
        error?: { code: string; message: string }
      },
    }
  })

const me = (base: string, token: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } })
    return (await response.json()) as { username: string }
  })

// The test client speaks as the reverse proxy on loopback (listed in the test config's TONEARM_TRUSTED_PROXIES).
layer(TestServerLive({ proxyAuthHeader: "remote-user" }), { excludeTestServices: true })("proxy user header", (it) => {
  it.effect("a listed proxy's user header signs in and creates the account on first sight (the first is admin)", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const first = yield* proxyLogin(base, { "remote-user": "alice" })
      expect(first.status).toBe(200)
      expect(first.body.user).toMatchObject({ username: "alice", is_admin: true })
      expect(first.cookie).toMatch(/^tonearm_session=/)
      expect((yield* me(base, first.body.token!)).username).toBe("alice")
      const second = yield* proxyLogin(base, { "remote-user": "bob" })
      expect(second.body.user).toMatchObject({ username: "bob", is_admin: false })
    }),
  )

  it.effect("proxy sign-in links an existing account by name, whatever its letter case", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const again = yield* proxyLogin(base, { "remote-user": "ALICE" })
      const before = yield* proxyLogin(base, { "remote-user": "alice" })
      expect(again.body.user?.id).toBe(before.body.user?.id)
      const sql = yield* SqlClient.SqlClient
      const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM users WHERE lower(username) = 'alice'`
      expect(count?.n).toBe(1)
    }),
  )

  it.effect("proxy sign-in without a user, or with a name that is not a username, is 403 forbidden", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const attempts: Array<Record<string, string>> = [{}, { "remote-user": "   " }, { "remote-user": "two words" }]
      for (const headers of attempts) {
        const refused = yield* proxyLogin(base, headers)
        expect(refused.status).toBe(403)
        expect(refused.body.error?.code).toBe("forbidden")
        expect(refused.cookie).toBeNull()
      }
    }),
  )

  it.effect(
    "sign-in options name the proxy's user only through the proxy; after a sign-out they say: not on its own",
    () =>
      Effect.gen(function* () {
        const base = yield* serverUrl
        const options = (headers: Record<string, string>) =>
          Effect.promise(async () => {
            const response = await fetch(`${base}/api/auth/options`, { headers })
            return (await response.json()) as { proxy: { username: string; automatic: boolean } | null }
          })
        expect((yield* options({})).proxy).toBeNull()
        expect((yield* options({ "remote-user": "carol" })).proxy).toEqual({ username: "carol", automatic: true })
        // An explicit sign-out marks the browser; the options then ask for a click instead of signing back in.
        const signedIn = yield* proxyLogin(base, { "remote-user": "carol" })
        const out = yield* Effect.promise(() =>
          fetch(`${base}/api/auth/logout`, {
            method: "POST",
            headers: { authorization: `Bearer ${signedIn.body.token}` },
          }),
        )
        expect(out.status).toBe(204)
        const mark = out.headers.getSetCookie().find((cookie) => cookie.startsWith("tonearm_signed_out="))
        expect(mark).toMatch(/^tonearm_signed_out=1; .*HttpOnly/i)
        const cookie = "tonearm_signed_out=1"
        expect((yield* options({ "remote-user": "carol", cookie })).proxy).toEqual({
          username: "carol",
          automatic: false,
        })
        // Signing in through the proxy (the page's button) clears the mark.
        const again = yield* Effect.promise(() =>
          fetch(`${base}/api/auth/proxy-login`, { method: "POST", headers: { "remote-user": "carol", cookie } }),
        )
        expect(again.status).toBe(200)
        const cleared = again.headers.getSetCookie().find((c) => c.startsWith("tonearm_signed_out="))
        expect(cleared, again.headers.getSetCookie().join(" | ")).toMatch(
          /^tonearm_signed_out=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/i,
        )
      }),
  )

  it("the proxy user header needs a trusted proxy list to honour it from", () => {
    const read = (env: Record<string, string>, list: ReadonlyArray<string>) =>
      Effect.runSync(
        Effect.either(proxyAuthHeaderConfig(list)).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
        ),
      )
    expect(read({}, [])).toEqual(Either.right(undefined))
    expect(Either.isLeft(read({ TONEARM_PROXY_AUTH_HEADER: "Remote-User" }, []))).toBe(true)
    expect(read({ TONEARM_PROXY_AUTH_HEADER: "Remote-User" }, ["10.0.0.1"])).toEqual(Either.right("remote-user"))
    expect(Either.isLeft(read({ TONEARM_PROXY_AUTH_HEADER: "Remote User" }, ["10.0.0.1"]))).toBe(true)
  })
})

// The header is set, but the loopback test client is not a listed proxy: it could be anyone naming themselves.
layer(TestServerLive({ proxyAuthHeader: "remote-user", trustedProxies: ["10.0.0.0/8"] }), {
  excludeTestServices: true,
})("proxy user header from an unlisted peer", (it) => {
  it.effect("a proxy user header from a peer outside the trusted proxy list is 403 and creates nothing", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const refused = yield* proxyLogin(base, { "remote-user": "mallory", "x-forwarded-for": "10.0.0.5" })
      expect(refused.status).toBe(403)
      expect(refused.body.error?.message).toMatch(/trusted proxy/)
      const sql = yield* SqlClient.SqlClient
      const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM users`
      expect(count?.n).toBe(0)
    }),
  )
})
