import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { makeTonearmClient } from "@tonearm/client-sdk"
import { FORGOT_PASSWORD_MAILS_PER_ACCOUNT, FORGOT_PASSWORD_PER_ADDRESS } from "@tonearm/core"
import { Effect, Option } from "effect"
import { logIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { startFakeHttpService } from "../support/fakeHttp.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const mailbox = await startFakeHttpService()
afterAll(() => mailbox.close())

/** The reset token of the last mail the fake mailer received, waiting for the background delivery. */
const lastResetToken = (count: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100 && mailbox.requests.length < count; i++) yield* Effect.sleep("20 millis")
    const mail = JSON.parse(mailbox.requests.at(-1)!.body) as { to: string; subject: string; text: string }
    const token = /reset-password\/([A-Za-z0-9_-]+)/.exec(mail.text)?.[1]
    return { mail, token: token! }
  })

layer(TestServerLive({ mailWebhookUrl: Option.some(`${mailbox.url}/mail`) }), { excludeTestServices: true })(
  "password reset",
  (it) => {
    it.effect("forgot-password answers 202 for unknown accounts too, and sends nothing", () =>
      Effect.gen(function* () {
        const admin = yield* signUpFirstAdmin("admin")
        yield* admin.client.me.updateProfile({ payload: { email: "admin@example.org" } })
        const anonymous = yield* makeTonearmClient()
        const [, response] = yield* anonymous.auth.forgotPassword({
          payload: { username_or_email: "nobody@example.org" },
          withResponse: true,
        })
        expect(response.status).toBe(202)
        yield* Effect.sleep("200 millis")
        expect(mailbox.requests).toHaveLength(0)
      }),
    )

    it.effect("the reset link is delivered by the configured mailer, by username or by email", () =>
      Effect.gen(function* () {
        const anonymous = yield* makeTonearmClient()
        yield* anonymous.auth.forgotPassword({ payload: { username_or_email: "ADMIN@example.org" } })
        const { mail, token } = yield* lastResetToken(1)
        expect(mail.to).toBe("admin@example.org")
        expect(mail.text).toContain(`http://tonearm.test/reset-password/${token}`)
        expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
        yield* anonymous.auth.forgotPassword({ payload: { username_or_email: "admin" } })
        expect((yield* lastResetToken(2)).mail.to).toBe("admin@example.org")
        const sql = yield* SqlClient.SqlClient
        const stored = yield* sql<{ row: string }>`SELECT row_to_json(p)::text AS row FROM password_resets p`
        for (const { row } of stored) expect(row).not.toContain(token)
      }),
    )

    it.effect("reset-password sets the new password, revokes every session, and the token works once", () =>
      Effect.gen(function* () {
        const session = yield* logIn("admin")
        const { token } = yield* lastResetToken(2)
        const anonymous = yield* makeTonearmClient()
        const [, response] = yield* anonymous.auth.resetPassword({
          payload: { token, password: "brand new secret" },
          withResponse: true,
        })
        expect(response.status).toBe(204)
        expect((yield* session.client.me.get().pipe(Effect.flip))._tag).toBe("Unauthenticated")
        expect((yield* logIn("admin", PASSWORD).pipe(Effect.flip))._tag).toBe("InvalidCredentials")
        expect((yield* logIn("admin", "brand new secret")).user.username).toBe("admin")
        const again = yield* anonymous.auth
          .resetPassword({ payload: { token, password: "another secret" } })
          .pipe(Effect.flip)
        expect(again._tag).toBe("InvalidToken")
      }),
    )

    it.effect("a reset or a password change revokes every older reset link of the account", () =>
      Effect.gen(function* () {
        const anonymous = yield* makeTonearmClient()
        const before = mailbox.requests.length
        yield* anonymous.auth.forgotPassword({ payload: { username_or_email: "admin" } })
        const first = (yield* lastResetToken(before + 1)).token
        yield* anonymous.auth.forgotPassword({ payload: { username_or_email: "admin" } })
        const second = (yield* lastResetToken(before + 2)).token
        yield* anonymous.auth.resetPassword({ payload: { token: second, password: "a third secret" } })
        const stale = yield* anonymous.auth
          .resetPassword({ payload: { token: first, password: "an attacker's pick" } })
          .pipe(Effect.flip)
        expect(stale._tag).toBe("InvalidToken")

        yield* anonymous.auth.forgotPassword({ payload: { username_or_email: "admin" } })
        const third = (yield* lastResetToken(before + 3)).token
        const session = yield* logIn("admin", "a third secret")
        yield* session.client.me.changePassword({
          payload: { current_password: "a third secret", new_password: "brand new secret" },
        })
        const afterChange = yield* anonymous.auth
          .resetPassword({ payload: { token: third, password: "an attacker's pick" } })
          .pipe(Effect.flip)
        expect(afterChange._tag).toBe("InvalidToken")
        expect((yield* logIn("admin", "brand new secret")).user.username).toBe("admin")
      }),
    )

    it.effect("a common or blank password is refused with a clear 400, on reset and registration alike", () =>
      Effect.gen(function* () {
        for (const password of ["password", "        ", "12345678"]) {
          const response = yield* raw("POST", "/api/auth/reset-password", {
            body: JSON.stringify({ token: "x".repeat(43), password }),
          })
          expect(response.status, password).toBe(400)
          expect((response.json as { error: { message: string } }).error.message).toMatch(/common|blank/)
        }
      }),
    )

    it.effect("forgot-password: 429 past 10 requests from one address; at most 5 mails per account, still 202", () =>
      Effect.gen(function* () {
        const admin = yield* logIn("admin", "brand new secret")
        yield* admin.client.adminUsers.create({ payload: { username: "flood", password: PASSWORD } })
        const ask = (address: string) =>
          raw("POST", "/api/auth/forgot-password", {
            body: JSON.stringify({ username_or_email: "flood" }),
            headers: { "x-forwarded-for": address },
          })
        const before = mailbox.requests.length
        // All at once: the deliveries race each other in the background, and the limits must still hold exactly.
        const burst = yield* Effect.all(
          Array.from({ length: FORGOT_PASSWORD_PER_ADDRESS }, () => ask("203.0.113.7")),
          { concurrency: "unbounded" },
        )
        expect(burst.map((response) => response.status)).toEqual(Array(FORGOT_PASSWORD_PER_ADDRESS).fill(202))
        const limited = yield* ask("203.0.113.7")
        expect(limited.status).toBe(429)
        expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
        // Another address may ask, but the account has had its mails: 202, nothing sent.
        expect((yield* ask("198.51.100.9")).status).toBe(202)
        yield* Effect.sleep("500 millis")
        const sent = mailbox.requests
          .slice(before)
          .filter((request) => JSON.parse(request.body).text.includes("password of flood"))
        expect(sent).toHaveLength(0) // flood has no email: the link is logged, never mailed
        const sql = yield* SqlClient.SqlClient
        const [links] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM password_resets r JOIN users u ON u.id = r.user_id WHERE u.username = 'flood'`
        expect(links!.n).toBe(FORGOT_PASSWORD_MAILS_PER_ACCOUNT)
      }),
    )

    it.effect("an expired or unknown reset token is 400 invalid_token and changes nothing", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const anonymous = yield* makeTonearmClient()
        yield* anonymous.auth.forgotPassword({ payload: { username_or_email: "admin" } })
        const { token } = yield* lastResetToken(3)
        yield* sql`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`
        const expired = yield* anonymous.auth
          .resetPassword({ payload: { token, password: "too late now" } })
          .pipe(Effect.flip)
        expect(expired._tag).toBe("InvalidToken")
        const unknown = yield* anonymous.auth
          .resetPassword({ payload: { token: "made-up-token", password: "too late now" } })
          .pipe(Effect.flip)
        expect(unknown._tag).toBe("InvalidToken")
        expect((yield* logIn("admin", "brand new secret")).user.username).toBe("admin")
      }),
    )

    it.effect("the forgot-password and reset-password pages load without a session", () =>
      Effect.gen(function* () {
        const forgot = yield* raw("GET", "/forgot-password")
        expect(forgot.status).toBe(200)
        expect(forgot.headers.get("content-type")).toContain("text/html")
        expect(forgot.text).toContain("/api/auth/forgot-password")
        const hostile = '"><script>alert(1)</script>'
        const reset = yield* raw("GET", `/reset-password/${encodeURIComponent(hostile)}`)
        expect(reset.status).toBe(200)
        expect(reset.text).toContain("/api/auth/reset-password")
        expect(reset.text).not.toContain("alert(1)") // the token is read by the page's script, never echoed
        expect(reset.headers.get("content-security-policy")).toContain("default-src 'none'")
      }),
    )
  },
)
