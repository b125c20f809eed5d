import type { Server } from "node:http"
import * as net from "node:net"
import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import Provider from "oidc-provider"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

// The callback URL registered at the provider. The test carries the provider's redirect to the real server itself,
// so its host need not resolve.
const REDIRECT = "http://tonearm.test/api/auth/oidc/callback"

/** A real OpenID Connect provider on loopback, with its development login and consent forms. */
const startProvider = async () => {
  const accounts: Record<string, Record<string, unknown>> = {
    "sub-alice": { email: "alice@example.test", email_verified: true, preferred_username: "alice" },
    "sub-carol": { email: "carol@example.test", email_verified: true, preferred_username: "carol-oidc" },
    "sub-mallory": { email: "alice@example.test", email_verified: false, preferred_username: "alice" },
  }
  const holder: { server?: Server } = {}
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
  const issuer = `http://127.0.0.1:${port}`
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: "tonearm",
        client_secret: "tonearm-secret",
        redirect_uris: [REDIRECT],
        post_logout_redirect_uris: ["http://tonearm.test/"],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    claims: { email: ["email", "email_verified"], profile: ["preferred_username"] },
    findAccount: (_ctx: unknown, sub: string) =>
      accounts[sub] === undefined ? undefined : { accountId: sub, claims: () => ({ sub, ...accounts[sub] }) },
    pkce: { required: () => true },
  })
  await new Promise<void>((resolve) => {
    holder.server = provider.listen(port, "127.0.0.1", () => resolve())
  })
  return { issuer, close: () => new Promise<void>((resolve) => holder.server!.close(() => resolve())) }
}

const provider = await startProvider()
afterAll(() => provider.close())

/** A browser's walk: start at Tonearm, sign in and consent at the provider, and come back with the redirect. */
const signInAtProvider = (base: string, accountId: string) =>
  Effect.promise(async () => {
    const jar = new Map<string, string>()
    const keep = (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";")
        const at = pair!.indexOf("=")
        jar.set(pair!.slice(0, at), pair!.slice(at + 1))
      }
    }
    const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ")
    const started = await fetch(`${base}/api/auth/oidc/start`, { redirect: "manual" })
    expect(started.status).toBe(302)
    const stateCookie = started.headers.getSetCookie().find((line) => line.startsWith("tonearm_oidc_state="))!
    let location = new URL(started.headers.get("location")!)
    expect(location.searchParams.get("code_challenge_method")).toBe("S256")
    for (let step = 0; step < 12; step++) {
      if (location.href.startsWith(REDIRECT)) break
      const page = await fetch(location, { redirect: "manual", headers: { cookie: cookie() } })
      keep(page)
      if (page.status >= 300 && page.status < 400) {
        location = new URL(page.headers.get("location")!, location)
        continue
      }
      const html = await page.text()
      const prompt = html.includes('name="login"') ? "login" : "consent"
      const body = new URLSearchParams({ prompt, ...(prompt === "login" ? { login: accountId, password: "x" } : {}) })
      const submitted = await fetch(location, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" },
        body,
      })
      keep(submitted)
      location = new URL(submitted.headers.get("location")!, location)
    }
    expect(location.href.startsWith(REDIRECT)).toBe(true)
    return { query: location.search, stateCookie: stateCookie.split(";")[0]! }
  })

const callback = (base: string, query: string, cookie: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/auth/oidc/callback${query}`, { redirect: "manual", headers: { cookie } })
    const session = response.headers
      .getSetCookie()
      .find((line) => line.startsWith("tonearm_session="))
      ?.split(";")[0]
      ?.slice("tonearm_session=".length)
    const body = response.status === 302 ? undefined : ((await response.json()) as { error?: { code: string } })
    return { status: response.status, location: response.headers.get("location"), session, body }
  })

const me = (base: string, token: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } })
    return (await response.json()) as { id: string; username: string; email: string | null; is_admin: boolean }
  })

layer(
  TestServerLive({
    oidc: {
      issuer: provider.issuer,
      clientId: "tonearm",
      clientSecret: Redacted.make("tonearm-secret"),
      redirectUrl: REDIRECT,
      name: "Test ID",
    },
  }),
  { excludeTestServices: true },
)("OpenID Connect sign-in", (it) => {
  it.effect("the sign-in options name the configured provider", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const options = yield* Effect.promise(() => fetch(`${base}/api/auth/options`).then((r) => r.json()))
      expect(options).toEqual({ oidc: { name: "Test ID" }, proxy: null })
    }),
  )

  it.effect("OIDC first login creates the account (PKCE, state, nonce) and later logins find it by subject", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const first = yield* signInAtProvider(base, "sub-alice")
      const landed = yield* callback(base, first.query, first.stateCookie)
      expect(landed.status).toBe(302)
      expect(landed.location).toBe("/")
      const alice = yield* me(base, landed.session!)
      expect(alice).toMatchObject({ username: "alice", email: "alice@example.test", is_admin: true })
      const again = yield* signInAtProvider(base, "sub-alice")
      const second = yield* callback(base, again.query, again.stateCookie)
      expect((yield* me(base, second.session!)).id).toBe(alice.id)
    }),
  )

  it.effect("OIDC first login links an existing account by verified email", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const sql = yield* SqlClient.SqlClient
      const admin = yield* signInAtProvider(base, "sub-alice")
      const adminToken = (yield* callback(base, admin.query, admin.stateCookie)).session!
      const created = yield* Effect.promise(() =>
        fetch(`${base}/api/admin/users`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ username: "carol", password: "correct horse battery", email: "Carol@Example.test" }),
        }).then((r) => r.json() as Promise<{ user: { id: string } }>),
      )
      const walk = yield* signInAtProvider(base, "sub-carol")
      const carol = yield* me(base, (yield* callback(base, walk.query, walk.stateCookie)).session!)
      expect(carol).toMatchObject({ id: created.user.id, username: "carol" })
      const links = yield* sql<{ subject: string }>`SELECT subject FROM external_identities WHERE user_id = ${carol.id}`
      expect(links.map((row) => row.subject)).toEqual(["sub-carol"])
    }),
  )

  it.effect("OIDC never links by an unverified email; a taken name gets a number", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const walk = yield* signInAtProvider(base, "sub-mallory")
      const mallory = yield* me(base, (yield* callback(base, walk.query, walk.stateCookie)).session!)
      expect(mallory).toMatchObject({ username: "alice-2", email: null, is_admin: false })
    }),
  )

  it.effect(
    "OIDC callback with a bad state, another browser's state, or a replayed code is 400 and signs nobody in",
    () =>
      Effect.gen(function* () {
        const base = yield* serverUrl
        const walk = yield* signInAtProvider(base, "sub-alice")
        const forged = new URLSearchParams(walk.query)
        forged.set("state", "not-the-state")
        const badState = yield* callback(base, `?${forged}`, walk.stateCookie)
        expect(badState.status).toBe(400)
        expect(badState.body?.error?.code).toBe("invalid_request")
        expect(badState.session).toBeUndefined()

        const other = yield* signInAtProvider(base, "sub-alice")
        const noCookie = yield* callback(base, other.query, "tonearm_oidc_state=someone-else")
        expect(noCookie.status).toBe(400)
        expect(noCookie.session).toBeUndefined()

        const fresh = yield* signInAtProvider(base, "sub-alice")
        const used = yield* callback(base, fresh.query, fresh.stateCookie)
        expect(used.status).toBe(302)
        const replayed = yield* callback(base, fresh.query, fresh.stateCookie)
        expect(replayed.status).toBe(400)
        expect(replayed.session).toBeUndefined()
      }),
  )

  it.effect(
    "OIDC callback error page: a browser's failed sign-in gets a page saying why, linking back to sign-in",
    () =>
      Effect.gen(function* () {
        const base = yield* serverUrl
        const walk = yield* signInAtProvider(base, "sub-alice")
        const denied = new URLSearchParams(walk.query)
        denied.delete("code")
        denied.set("error", "<script>access_denied</script>")
        const response = yield* Effect.promise(() =>
          fetch(`${base}/api/auth/oidc/callback?${denied}`, {
            redirect: "manual",
            headers: { cookie: walk.stateCookie, accept: "text/html,application/xhtml+xml" },
          }),
        )
        expect(response.status).toBe(400)
        expect(response.headers.get("content-type")).toContain("text/html")
        expect(response.headers.get("content-security-policy")).toContain("default-src 'none'")
        const page = yield* Effect.promise(() => response.text())
        expect(page).toContain("Sign-in with Test ID failed")
        expect(page).toContain("the provider refused the sign-in: &lt;script&gt;access_denied&lt;/script&gt;")
        expect(page).not.toContain("<script>")
        expect(page).toContain('<a href="/">Back to sign-in</a>')
        expect(response.headers.getSetCookie().some((line) => line.startsWith("tonearm_session="))).toBe(false)
      }),
  )

  it.effect("OIDC logout: a signed-in browser is sent to the provider's end_session_endpoint, then back to /", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const walk = yield* signInAtProvider(base, "sub-alice")
      const landed = yield* Effect.promise(() =>
        fetch(`${base}/api/auth/oidc/callback${walk.query}`, {
          redirect: "manual",
          headers: { cookie: walk.stateCookie },
        }),
      )
      expect(landed.status).toBe(302)
      // The browser is marked as signed in through OpenID Connect, for the web player's sign-out.
      expect(landed.headers.getSetCookie().some((line) => line.startsWith("tonearm_oidc_session=1"))).toBe(true)
      const out = yield* Effect.promise(() =>
        fetch(`${base}/api/auth/oidc/logout`, { redirect: "manual", headers: { cookie: "tonearm_oidc_session=1" } }),
      )
      expect(out.status).toBe(302)
      const target = new URL(out.headers.get("location")!)
      const metadata = (yield* Effect.promise(() =>
        fetch(`${provider.issuer}/.well-known/openid-configuration`).then((r) => r.json()),
      )) as { end_session_endpoint: string }
      expect(`${target.origin}${target.pathname}`).toBe(metadata.end_session_endpoint)
      expect(target.searchParams.get("client_id")).toBe("tonearm")
      expect(target.searchParams.get("post_logout_redirect_uri")).toBe("http://tonearm.test/")
      expect(out.headers.getSetCookie().some((line) => /^tonearm_oidc_session=;/.test(line))).toBe(true)
      // The provider accepts it: its logout confirmation page answers.
      const confirm = yield* Effect.promise(() => fetch(target, { redirect: "manual" }))
      expect(confirm.status).toBe(200)
    }),
  )
})
