import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { Effect } from "effect"
import { PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const postLogin = (base: string, body: unknown, forwardedFor: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
      body: JSON.stringify(body),
    })
    return { status: response.status, retryAfter: response.headers.get("retry-after") }
  })

// No TONEARM_TRUSTED_PROXIES: the hop default of 1 believes any peer's last forwarded entry.
layer(TestServerLive({ trustedProxies: undefined }), { excludeTestServices: true })("no trusted proxy list", (it) => {
  it.effect("without a proxy list a forged X-Forwarded-For cannot dodge the login limit: the socket peer counts", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      yield* signUpFirstAdmin("admin")
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      // Straight to the server (socket peer 127.0.0.1), a new forged address and a new name every time.
      for (let i = 0; i < 10; i++) {
        const guess = yield* postLogin(base, { username: `victim${i}`, password: "bad" }, `203.0.113.${i}`)
        expect(guess.status).toBe(401)
      }
      const next = yield* postLogin(base, { username: "victim99", password: "bad" }, "203.0.113.200")
      expect(next.status).toBe(429)
      expect(Number(next.retryAfter)).toBeGreaterThan(0)
      const counted = yield* sql<{ throttle_key: string }>`
        SELECT DISTINCT throttle_key FROM login_failures WHERE throttle_key LIKE 'addr:%' ORDER BY throttle_key`
      expect(counted.map((row) => row.throttle_key)).toContain("addr:127.0.0.1")
    }),
  )

  it.effect("without a proxy list a forged X-Forwarded-For cannot dodge the forgot-password limit either", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      const ask = (forwardedFor: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${base}/api/auth/forgot-password`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
            body: JSON.stringify({ username_or_email: "nobody-here" }),
          })
          return { status: response.status, retryAfter: response.headers.get("retry-after") }
        })
      // A new forged address each time, straight to the server: the socket peer's count still fills up.
      for (let i = 0; i < 10; i++) expect((yield* ask(`203.0.113.${i}`)).status).toBe(202)
      const next = yield* ask("203.0.113.250")
      expect(next.status).toBe(429)
      expect(Number(next.retryAfter)).toBeGreaterThan(0)
      yield* sql`DELETE FROM login_failures`
    }),
  )

  it.effect("without a proxy list the shown address still follows the hop setting (default 1)", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      const anonymous = yield* makeTonearmClient({ headers: { "x-forwarded-for": "198.51.100.4" } })
      const { token } = yield* anonymous.auth.login({ payload: { username: "admin", password: PASSWORD } })
      const view = yield* (yield* makeTonearmClient({
        credentials: bearer(token),
        headers: { "x-forwarded-for": "198.51.100.4" },
      })).trustedProxies.get()
      expect(view).toMatchObject({ hops: 1, resolved_address: "198.51.100.4", socket_peer: "127.0.0.1" })
    }),
  )
})

// A list that does not hold the test's loopback peer: its forwarded chain is never believed.
layer(TestServerLive({ trustedProxies: ["10.0.0.0/8", "fd00::/8"] }), { excludeTestServices: true })(
  "trusted proxy list",
  (it) => {
    it.effect(
      "with a proxy list a forwarded chain from a peer outside it is ignored: sessions and limits use the peer",
      () =>
        Effect.gen(function* () {
          const base = yield* serverUrl
          const admin = yield* signUpFirstAdmin("admin")
          const sql = yield* SqlClient.SqlClient
          const view = yield* (yield* makeTonearmClient({
            credentials: bearer(admin.token),
            headers: { "x-forwarded-for": "198.51.100.4" },
          })).trustedProxies.get()
          expect(view).toMatchObject({ hops: 1, resolved_address: "127.0.0.1", forwarded_chain: ["198.51.100.4"] })
          yield* sql`DELETE FROM login_failures`
          for (let i = 0; i < 10; i++) {
            yield* postLogin(base, { username: `victim${i}`, password: "bad" }, `203.0.113.${i}`)
          }
          const keys = yield* sql<{ throttle_key: string }>`
          SELECT DISTINCT throttle_key FROM login_failures WHERE throttle_key LIKE 'addr:%'`
          expect(keys.map((row) => row.throttle_key)).toEqual(["addr:127.0.0.1"])
          expect((yield* postLogin(base, { username: "victim99", password: "bad" }, "203.0.113.200")).status).toBe(429)
          const sessions = yield* sql<{ created_ip: string }>`SELECT created_ip FROM sessions`
          expect(sessions.map((row) => row.created_ip)).toEqual(["127.0.0.1"])
        }),
    )
  },
)
