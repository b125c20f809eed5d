import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createAndLogIn, signUpFirstAdmin } from "../support/accounts.js"
import { contractRoutes } from "../support/routes.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const routes = contractRoutes()
const authenticated = routes.filter((route) => route.guard !== "none")
const adminOnly = routes.filter((route) => route.guard === "admin")

const call = (base: string, route: { method: string; samplePath: string }, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const hasBody = !["GET", "HEAD", "DELETE"].includes(route.method)
    const response = await fetch(`${base}${route.samplePath}`, {
      method: route.method,
      headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...headers },
      ...(hasBody ? { body: "{}" } : {}),
    })
    return { status: response.status, body: (await response.json()) as { error?: { code?: string; message?: string } } }
  })

describe("route guards derived from the contract", () => {
  it("covers the account, session and admin routes", () => {
    const names = authenticated.map((route) => `${route.group}.${route.name}`)
    expect(names).toEqual(
      expect.arrayContaining(["me.get", "me.listSessions", "adminUsers.list", "trustedProxies.set"]),
    )
    expect(adminOnly.map((route) => route.group)).toEqual(expect.arrayContaining(["adminUsers", "trustedProxies"]))
    expect(routes.find((route) => route.name === "health")?.guard).toBe("none")
  })
})

layer(TestServerLive(), { excludeTestServices: true })("authentication guards", (it) => {
  it.effect("every authenticated route answers 401 unauthenticated without a credential", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      for (const route of authenticated) {
        const { status, body } = yield* call(base, route)
        expect({ route: route.name, status, code: body.error?.code }).toEqual({
          route: route.name,
          status: 401,
          code: "unauthenticated",
        })
      }
    }),
  )

  it.effect("every authenticated route answers 401 unauthenticated with a bad bearer token or cookie", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const bad: Array<Record<string, string>> = [
        { authorization: "Bearer not-a-real-token" },
        { cookie: "tonearm_session=forged" },
        { authorization: "Basic eDp5" },
      ]
      for (const route of authenticated) {
        for (const headers of bad) {
          const { status, body } = yield* call(base, route, headers)
          expect({ route: route.name, status, code: body.error?.code }).toEqual({
            route: route.name,
            status: 401,
            code: "unauthenticated",
          })
        }
      }
    }),
  )

  it.effect("every admin route answers 403 forbidden for a signed-in non-admin", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const admin = yield* signUpFirstAdmin()
      const listener = yield* createAndLogIn(admin.client, "listener")
      for (const route of adminOnly) {
        const credentials: Array<Record<string, string>> = [
          { authorization: `Bearer ${listener.token}` },
          { cookie: `tonearm_session=${listener.token}` },
        ]
        for (const headers of credentials) {
          const { status, body } = yield* call(base, route, headers)
          expect({ route: route.name, status, code: body.error?.code }).toEqual({
            route: route.name,
            status: 403,
            code: "forbidden",
          })
        }
      }
    }),
  )

  it.effect("an admin passes the admin guard with either credential", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const admin = yield* signUpFirstAdmin("second-try").pipe(Effect.orElse(() => Effect.void))
      expect(admin).toBeUndefined() // registration is closed by now; the first admin exists
      const route = adminOnly.find((candidate) => candidate.name === "list" && candidate.group === "adminUsers")!
      const login = yield* Effect.promise(() =>
        fetch(`${base}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ username: "admin", password: "correct horse battery" }),
        }).then((response) => response.json() as Promise<{ token: string }>),
      )
      const credentials: Array<Record<string, string>> = [
        { authorization: `Bearer ${login.token}` },
        { cookie: `tonearm_session=${login.token}` },
      ]
      for (const headers of credentials) {
        const response = yield* Effect.promise(() => fetch(`${base}${route.samplePath}`, { headers }))
        expect(response.status).toBe(200)
      }
    }),
  )
})
