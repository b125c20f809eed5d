import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { cookieJar, makeCookieJar, makeTonearmClient } from "@tonearm/client-sdk"
import { Effect } from "effect"
import { createAndLogIn, logIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const postLogin = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    })
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: (await response.json()) as { error?: { code: string }; token?: string },
    }
  })

layer(TestServerLive(), { excludeTestServices: true })("login", (it) => {
  it.effect("login answers the login user view and a token, and sets the session cookie", () =>
    Effect.gen(function* () {
      yield* signUpFirstAdmin("admin")
      const anonymous = yield* makeTonearmClient()
      const [result, response] = yield* anonymous.auth.login({
        payload: { username: "ADMIN", password: PASSWORD },
        withResponse: true,
      })
      expect(Object.keys(result.user).sort()).toEqual(["id", "is_admin", "username"])
      expect(result.user).toMatchObject({ username: "admin", is_admin: true })
      expect(response.headers["set-cookie"]).toMatch(
        new RegExp(`^tonearm_session=${result.token}; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax$`),
      )
    }),
  )

  it.effect("the session cookie alone authenticates, like the bearer token", () =>
    Effect.gen(function* () {
      const jar = yield* makeCookieJar
      const browser = yield* makeTonearmClient({ credentials: cookieJar(jar) })
      yield* browser.auth.login({ payload: { username: "admin", password: PASSWORD } })
      expect((yield* browser.me.get()).username).toBe("admin")
      yield* browser.auth.logout()
      expect((yield* browser.me.get().pipe(Effect.flip))._tag).toBe("Unauthenticated")
    }),
  )

  it.effect("the cookie is Secure when the client reached the server over HTTPS", () =>
    Effect.gen(function* () {
      const anonymous = yield* makeTonearmClient({ headers: { "x-forwarded-proto": "https" } })
      const [, response] = yield* anonymous.auth.login({
        payload: { username: "admin", password: PASSWORD },
        withResponse: true,
      })
      expect(response.headers["set-cookie"]).toMatch(/; Secure/)
    }),
  )

  it.effect("an unknown user and a wrong password get the same 401 invalid_credentials", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const wrong = yield* postLogin(base, { username: "admin", password: "not the password" })
      const unknown = yield* postLogin(base, { username: "nobody-here", password: "not the password" })
      expect(wrong).toEqual(unknown)
      expect(wrong.status).toBe(401)
      expect(wrong.body.error?.code).toBe("invalid_credentials")
    }),
  )

  it.effect("an unknown user costs the same password work as a wrong password (no timing oracle)", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const time = (username: string) =>
        Effect.gen(function* () {
          const started = performance.now()
          yield* postLogin(
            base,
            { username, password: "wrong password" },
            { "x-forwarded-for": `10.9.${username.length}.1` },
          )
          return performance.now() - started
        })
      const median = (values: Array<number>) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!
      const known: Array<number> = []
      const unknown: Array<number> = []
      for (let i = 0; i < 5; i++) {
        known.push(yield* time("admin"))
        unknown.push(yield* time(`ghost${i}`))
      }
      // Both run one scrypt (~tens of ms); without the decoy hash the unknown name would answer in ~1 ms.
      expect(median(unknown)).toBeGreaterThan(median(known) * 0.5)
    }),
  )

  it.effect("after 10 failed logins for one username the next attempt waits: 429 rate_limited with Retry-After", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const admin = yield* signUpFirstAdmin().pipe(Effect.orElse(() => Effect.succeed(undefined)))
      expect(admin).toBeUndefined()
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      for (let i = 0; i < 10; i++) {
        // A different address each time: only the username key counts up.
        const attempt = yield* postLogin(
          base,
          { username: "admin", password: "bad" },
          { "x-forwarded-for": `10.0.0.${i}` },
        )
        expect(attempt.status).toBe(401)
      }
      const blocked = yield* postLogin(
        base,
        { username: "Admin", password: PASSWORD },
        { "x-forwarded-for": "10.0.1.1" },
      )
      expect(blocked.status).toBe(429)
      expect(blocked.body.error?.code).toBe("rate_limited")
      const retryAfter = Number(blocked.retryAfter)
      // A backoff, not a lockout: the first wait is five seconds.
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(5)
      // Failures age out after the window.
      yield* sql`UPDATE login_failures SET failed_at = failed_at - interval '15 minutes 1 second'`
      const after = yield* postLogin(base, { username: "admin", password: PASSWORD }, { "x-forwarded-for": "10.0.1.1" })
      expect(after.status).toBe(200)
    }),
  )

  it.effect("login throttle race: 16 attempts at once for one name get exactly the 10 free ones, the rest 429", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      // All at once, each from its own address: only the name's key could stop them, and a check made before
      // the earlier attempts were recorded would let all 16 through.
      const burst = yield* Effect.all(
        Array.from({ length: 16 }, (_, i) =>
          postLogin(base, { username: "racer", password: "bad guess" }, { "x-forwarded-for": `10.9.0.${i}` }),
        ),
        { concurrency: "unbounded" },
      )
      const statuses = burst.map((attempt) => attempt.status).sort()
      // (An office behind one address signing in at once is not slowed: addresses count after the password check.)
      expect(statuses).toEqual([...Array(10).fill(401), ...Array(6).fill(429)])
      const [counted] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM login_failures WHERE throttle_key LIKE '%racer%'`
      expect(counted!.n).toBe(10)
      yield* sql`DELETE FROM login_failures`
    }),
  )

  it.effect("after 10 failed logins from one client address its next attempt waits (429), whatever the username", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      for (let i = 0; i < 10; i++) {
        const attempt = yield* postLogin(
          base,
          { username: `user${i}`, password: "bad" },
          { "x-forwarded-for": "10.1.1.1" },
        )
        expect(attempt.status).toBe(401)
      }
      const blocked = yield* postLogin(
        base,
        { username: "admin", password: PASSWORD },
        { "x-forwarded-for": "10.1.1.1" },
      )
      expect(blocked.status).toBe(429)
      const elsewhere = yield* postLogin(
        base,
        { username: "admin", password: PASSWORD },
        { "x-forwarded-for": "10.1.1.2" },
      )
      expect(elsewhere.status).toBe(200)
    }),
  )

  it.effect("login backoff doubles: after waiting Retry-After one more attempt is admitted, then twice as long", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      for (let i = 0; i < 10; i++) {
        yield* postLogin(base, { username: "nobody", password: "bad" }, { "x-forwarded-for": `10.6.0.${i}` })
      }
      const waits: Array<string | null> = []
      for (let round = 0; round < 3; round++) {
        const refused = yield* postLogin(
          base,
          { username: "nobody", password: "bad" },
          { "x-forwarded-for": "10.6.1.1" },
        )
        expect(refused.status).toBe(429)
        waits.push(refused.retryAfter)
        // Time passes: every failure moves back by the announced wait.
        yield* sql`UPDATE login_failures SET failed_at = failed_at - make_interval(secs => ${Number(refused.retryAfter)})`
        const admitted = yield* postLogin(
          base,
          { username: "nobody", password: "bad" },
          { "x-forwarded-for": "10.6.1.1" },
        )
        expect(admitted.status).toBe(401)
      }
      // 5 s, 10 s, 20 s after the latest failure (less the moments the requests took).
      for (const [round, wait] of waits.entries()) {
        expect(Number(wait)).toBeLessThanOrEqual(5 * 2 ** round)
        expect(Number(wait)).toBeGreaterThan(5 * 2 ** round - 3)
      }
    }),
  )

  it.effect("an attacker's failures never lock the owner out at an address their account has a session from", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      const admin = yield* logIn("admin", PASSWORD, { "x-forwarded-for": "10.7.0.1" })
      yield* admin.client.adminUsers.create({ payload: { username: "dana", password: PASSWORD } })
      // Dana signs in at home once; her session remembers the address.
      expect(
        (yield* postLogin(base, { username: "dana", password: PASSWORD }, { "x-forwarded-for": "198.51.100.20" }))
          .status,
      ).toBe(200)
      // An attacker spreads guesses over many addresses: 10 here, then 30 more from a long campaign.
      for (let i = 0; i < 10; i++) {
        const guess = yield* postLogin(
          base,
          { username: "dana", password: "bad" },
          { "x-forwarded-for": `10.8.0.${i}` },
        )
        expect(guess.status).toBe(401)
      }
      yield* sql`
        INSERT INTO login_failures (throttle_key, failed_at)
        SELECT 'user:dana', now() - make_interval(secs => n) FROM generate_series(1, 30) AS n`
      const attacker = yield* postLogin(
        base,
        { username: "dana", password: PASSWORD },
        { "x-forwarded-for": "10.8.1.1" },
      )
      expect(attacker.status).toBe(429)
      expect(Number(attacker.retryAfter)).toBeLessThanOrEqual(15 * 60)
      // From home, with the right password, Dana is in at once.
      const owner = yield* postLogin(
        base,
        { username: "dana", password: PASSWORD },
        { "x-forwarded-for": "198.51.100.20" },
      )
      expect(owner.status).toBe(200)
      // Her success cleared the account's count: a new place works again too.
      const travelling = yield* postLogin(
        base,
        { username: "dana", password: PASSWORD },
        { "x-forwarded-for": "203.0.113.77" },
      )
      expect(travelling.status).toBe(200)
    }),
  )

  it.effect("a successful login clears its username's failures", () =>
    Effect.gen(function* () {
      const base = yield* serverUrl
      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM login_failures`
      const admin = yield* logIn("admin", PASSWORD, { "x-forwarded-for": "10.2.0.1" })
      yield* createAndLogIn(admin.client, "carol")
      for (let i = 0; i < 9; i++) {
        yield* postLogin(base, { username: "carol", password: "bad" }, { "x-forwarded-for": `10.3.0.${i}` })
      }
      expect(
        (yield* postLogin(base, { username: "carol", password: PASSWORD }, { "x-forwarded-for": "10.3.1.1" })).status,
      ).toBe(200)
      for (let i = 0; i < 9; i++) {
        yield* postLogin(base, { username: "carol", password: "bad" }, { "x-forwarded-for": `10.3.2.${i}` })
      }
      // 9 + 9 failures, but the success in between reset the username count.
      expect(
        (yield* postLogin(base, { username: "carol", password: PASSWORD }, { "x-forwarded-for": "10.3.3.1" })).status,
      ).toBe(200)
    }),
  )
})
