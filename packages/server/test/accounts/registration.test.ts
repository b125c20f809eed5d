import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { Effect } from "effect"
import { createAndLogIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

layer(TestServerLive(), { excludeTestServices: true })("registration (closed)", (it) => {
  it.effect("the first account ever is admin, answered 201 with the user, a token and the session cookie", () =>
    Effect.gen(function* () {
      const anonymous = yield* makeTonearmClient()
      const [result, response] = yield* anonymous.auth.register({
        payload: { username: "Ada", password: PASSWORD, email: "ada@example.org" },
        withResponse: true,
      })
      expect(response.status).toBe(201)
      expect(result.user).toMatchObject({ username: "Ada", is_admin: true })
      expect(result.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const cookie = response.headers["set-cookie"] ?? ""
      expect(cookie).toContain(`tonearm_session=${result.token}`)
      expect(cookie).toMatch(/HttpOnly/)
      expect(cookie).toMatch(/SameSite=Lax/)
      expect(cookie).toMatch(/Path=\//)
      expect(cookie).not.toMatch(/Secure/)
      const me = yield* (yield* makeTonearmClient({ credentials: bearer(result.token!) })).me.get()
      expect(me).toMatchObject({ username: "Ada", is_admin: true, email: "ada@example.org" })
    }),
  )

  it.effect("a later anonymous registration is 403 registration_closed and stores nothing", () =>
    Effect.gen(function* () {
      const anonymous = yield* makeTonearmClient()
      const error = yield* anonymous.auth
        .register({ payload: { username: "mallory", password: PASSWORD } })
        .pipe(Effect.flip)
      expect(error._tag).toBe("RegistrationClosed")
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT 1 FROM users WHERE username = 'mallory'`
      expect(rows).toHaveLength(0)
    }),
  )

  it.effect("an admin caller creates an account with no token; the admin's own session is unchanged", () =>
    Effect.gen(function* () {
      const admin = yield* createAndLogIn(yield* logInAda, "root2", { isAdmin: true })
      const [result, response] = yield* admin.client.auth.register({
        payload: { username: "bea", password: PASSWORD },
        withResponse: true,
      })
      expect(response.status).toBe(201)
      expect(result.user).toMatchObject({ username: "bea", is_admin: false })
      expect(result.token).toBeUndefined()
      expect(response.headers["set-cookie"]).toBeUndefined()
      expect((yield* admin.client.me.get()).username).toBe("root2")
    }),
  )

  it.effect("a signed-in non-admin caller registering is 403 forbidden and stores nothing", () =>
    Effect.gen(function* () {
      const bea = yield* logInAs("bea")
      const error = yield* bea.auth.register({ payload: { username: "cy", password: PASSWORD } }).pipe(Effect.flip)
      expect(error._tag).toBe("Forbidden")
      const { token } = yield* (yield* makeTonearmClient()).auth.login({
        payload: { username: "bea", password: PASSWORD },
      })
      const raw = yield* rawJson("POST", "/api/auth/register", { username: "cy", password: PASSWORD }, token)
      expect(raw.status).toBe(403)
      expect(raw.json).toEqual({ error: { code: "forbidden", message: expect.any(String) } })
      const sql = yield* SqlClient.SqlClient
      expect(yield* sql`SELECT 1 FROM users WHERE username = 'cy'`).toHaveLength(0)
    }),
  )

  it.effect("a taken username is 409 conflict, whatever its letter case", () =>
    Effect.gen(function* () {
      const ada = yield* logInAda
      const error = yield* ada.adminUsers.create({ payload: { username: "BEA", password: PASSWORD } }).pipe(Effect.flip)
      expect(error._tag).toBe("Conflict")
    }),
  )

  it.effect("passwords and session tokens are never stored in clear", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const anonymous = yield* makeTonearmClient()
      const login = yield* anonymous.auth.login({ payload: { username: "ada", password: PASSWORD } })
      const users = yield* sql<{ password_hash: string }>`SELECT password_hash FROM users`
      for (const user of users) {
        expect(user.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/)
        expect(user.password_hash).not.toContain(PASSWORD)
      }
      const hashes = new Set(users.map((user) => user.password_hash))
      expect(hashes.size).toBe(users.length) // a salt per user: equal passwords hash apart
      const dump = yield* sql<{ row: string }>`SELECT row_to_json(s)::text AS row FROM sessions s`
      expect(dump.length).toBeGreaterThan(0)
      for (const { row } of dump) expect(row).not.toContain(login.token)
      const match = yield* sql`
        SELECT 1 FROM sessions WHERE token_hash = sha256(convert_to(${login.token}, 'UTF8'))`
      expect(match).toHaveLength(1)
    }),
  )
})

const logInAs = (username: string) =>
  Effect.gen(function* () {
    const anonymous = yield* makeTonearmClient()
    const { token } = yield* anonymous.auth.login({ payload: { username, password: PASSWORD } })
    return yield* makeTonearmClient({ credentials: bearer(token) })
  })

const logInAda = Effect.gen(function* () {
  return yield* logInAs("ada")
})

describe("registration (first admin race)", () => {
  layer(TestServerLive(), { excludeTestServices: true })((it) => {
    it.effect("concurrent first sign-ups make exactly one admin", () =>
      Effect.gen(function* () {
        const anonymous = yield* makeTonearmClient()
        const attempts = yield* Effect.forEach(
          ["u1", "u2", "u3", "u4", "u5"],
          (username) => Effect.either(anonymous.auth.register({ payload: { username, password: PASSWORD } })),
          { concurrency: "unbounded" },
        )
        const admins = attempts.filter((attempt) => attempt._tag === "Right" && attempt.right.user.is_admin)
        expect(admins).toHaveLength(1)
        const closed = attempts.filter((attempt) => attempt._tag === "Left")
        expect(closed).toHaveLength(4)
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT 1 FROM users`).toHaveLength(1)
      }),
    )
  })
})

layer(TestServerLive({ openRegistration: true }), { excludeTestServices: true })("registration (open)", (it) => {
  it.effect("with TONEARM_OPEN_REGISTRATION anyone signs up, as a non-admin, and gets a session", () =>
    Effect.gen(function* () {
      yield* signUpFirstAdmin("owner")
      const anonymous = yield* makeTonearmClient()
      const result = yield* anonymous.auth.register({ payload: { username: "guest", password: PASSWORD } })
      expect(result.user.is_admin).toBe(false)
      const guest = yield* makeTonearmClient({ credentials: bearer(result.token!) })
      expect((yield* guest.me.get()).username).toBe("guest")
      // Open sign-up is for oneself: a signed-in non-admin still cannot register someone else.
      const error = yield* guest.auth
        .register({ payload: { username: "friend", password: PASSWORD } })
        .pipe(Effect.flip)
      expect(error._tag).toBe("Forbidden")
    }),
  )
})
