import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { Effect } from "effect"
import { logIn, signUpFirstAdmin } from "../support/accounts.js"
import { rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const adminVia = (token: string, forwardedFor?: string) =>
  makeTonearmClient({
    credentials: bearer(token),
    ...(forwardedFor !== undefined ? { headers: { "x-forwarded-for": forwardedFor } } : {}),
  })

layer(TestServerLive(), { excludeTestServices: true })("trusted proxies", (it) => {
  it.effect("hops default to 1: the last forwarded entry is the client", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      const client = yield* adminVia(admin.token, " 203.0.113.9 ,10.0.0.2")
      const view = yield* client.trustedProxies.get()
      expect(view).toEqual({
        hops: 1,
        resolved_address: "10.0.0.2",
        forwarded_chain: ["203.0.113.9", "10.0.0.2"],
        socket_peer: "127.0.0.1",
        implied_proxy_count: 2,
      })
    }),
  )

  it.effect("with no proxy at all the socket peer is used (header too short)", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const view = yield* (yield* adminVia(admin.token)).trustedProxies.get()
      expect(view).toMatchObject({
        hops: 1,
        resolved_address: "127.0.0.1",
        forwarded_chain: [],
        implied_proxy_count: 0,
      })
    }),
  )

  it.effect("PUT recomputes this request under the new value, and later requests read it", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const client = yield* adminVia(admin.token, "198.51.100.4, 10.0.0.1, 10.0.0.2")
      const two = yield* client.trustedProxies.set({ payload: { hops: 2 } })
      expect(two).toMatchObject({ hops: 2, resolved_address: "10.0.0.1", implied_proxy_count: 3 })
      expect((yield* client.trustedProxies.get()).hops).toBe(2)
      const three = yield* client.trustedProxies.set({ payload: { hops: 3 } })
      expect(three.resolved_address).toBe("198.51.100.4")
      const tooMany = yield* client.trustedProxies.set({ payload: { hops: 4 } })
      expect(tooMany.resolved_address).toBe("127.0.0.1") // chain shorter than hops → socket peer
    }),
  )

  it.effect("hops 0 uses the socket peer and ignores X-Forwarded-For", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const client = yield* adminVia(admin.token, "203.0.113.50")
      const view = yield* client.trustedProxies.set({ payload: { hops: 0 } })
      expect(view).toMatchObject({ hops: 0, resolved_address: "127.0.0.1", forwarded_chain: ["203.0.113.50"] })
      // Sessions follow the setting at once: a login through a "proxy" now records the socket peer.
      const login = yield* logIn("admin", undefined, { "x-forwarded-for": "203.0.113.50" })
      const current = (yield* login.client.me.listSessions()).find((row) => row.current)!
      expect(current.created_ip).toBe("127.0.0.1")
    }),
  )

  it.effect("hops outside 0–10 or not an integer are 400 invalid_request", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      for (const hops of [-1, 11, 1.5, "2", null]) {
        const response = yield* rawJson("PUT", "/api/admin/trusted-proxies", { hops }, admin.token)
        expect(response.status).toBe(400)
        expect(response.json).toMatchObject({ error: { code: "invalid_request" } })
      }
      expect((yield* (yield* adminVia(admin.token)).trustedProxies.get()).hops).toBe(0)
    }),
  )

  it.effect("a setting store that cannot be read yields the default, never a failure", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const admin = yield* logIn("admin")
      const client = yield* adminVia(admin.token, "203.0.113.77")
      yield* sql`UPDATE settings SET value = '"many"'::jsonb WHERE key = 'trusted_proxy_hops'`
      expect((yield* client.trustedProxies.get()).hops).toBe(1)
      yield* sql`ALTER TABLE settings RENAME TO settings_unreadable`
      const view = yield* client.trustedProxies
        .get()
        .pipe(Effect.ensuring(sql`ALTER TABLE settings_unreadable RENAME TO settings`.pipe(Effect.orDie)))
      expect(view).toMatchObject({ hops: 1, resolved_address: "203.0.113.77" })
    }),
  )
})
