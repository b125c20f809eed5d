import { expect, layer } from "@effect/vitest"
import { makeTonearmClient } from "@tonearm/client-sdk"
import { UserId } from "@tonearm/core"
import { DateTime, Effect } from "effect"
import { createAndLogIn, logIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { TestServerLive } from "../support/TestServer.js"

layer(TestServerLive(), { excludeTestServices: true })("admin user management", (it) => {
  it.effect("admins list users with the profile view plus timezone, debug_mode_enabled and created_at", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      yield* admin.client.adminUsers.create({
        payload: { username: "dj", password: PASSWORD, email: "dj@example.org" },
      })
      const rows = yield* admin.client.adminUsers.list()
      expect(rows.map((row) => row.username)).toEqual(["admin", "dj"])
      const dj = rows.find((row) => row.username === "dj")!
      expect(dj).toMatchObject({ email: "dj@example.org", is_admin: false, timezone: "UTC", debug_mode_enabled: false })
      expect(Math.abs(DateTime.toEpochMillis(dj.created_at) - Date.now())).toBeLessThan(60_000)
      expect(Object.keys(dj).sort()).toEqual(
        ["created_at", "debug_mode_enabled", "display_name", "email", "id", "is_admin", "timezone", "username"].sort(),
      )
    }),
  )

  it.effect("POST /api/admin/users answers 201 {user} and can create another admin", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const [created, response] = yield* admin.client.adminUsers.create({
        payload: { username: "deputy", password: PASSWORD, is_admin: true },
        withResponse: true,
      })
      expect(response.status).toBe(201)
      expect(created).toEqual({ user: { id: expect.any(String), username: "deputy", is_admin: true } })
      const deputy = yield* logIn("deputy")
      expect((yield* deputy.client.adminUsers.list()).length).toBe(3)
    }),
  )

  it.effect("PUT debug-mode sets debug_mode_enabled, which the client reads from GET /api/me", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const dj = yield* logIn("dj")
      const result = yield* admin.client.adminUsers.setDebugMode({
        path: { id: dj.user.id },
        payload: { enabled: true },
      })
      expect(result).toEqual({ id: dj.user.id, debug_mode_enabled: true })
      expect((yield* dj.client.me.get()).debug_mode_enabled).toBe(true)
      yield* admin.client.adminUsers.setDebugMode({ path: { id: dj.user.id }, payload: { enabled: false } })
      expect((yield* dj.client.me.get()).debug_mode_enabled).toBe(false)
      const unknown = yield* admin.client.adminUsers
        .setDebugMode({ path: { id: UserId.make(crypto.randomUUID()) }, payload: { enabled: true } })
        .pipe(Effect.flip)
      expect(unknown._tag).toBe("NotFound")
    }),
  )

  it.effect("DELETE removes the account and its sessions; an unknown id is 404", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const doomed = yield* createAndLogIn(admin.client, "doomed")
      yield* admin.client.adminUsers.delete({ path: { id: doomed.user.id } })
      expect((yield* doomed.client.me.get().pipe(Effect.flip))._tag).toBe("Unauthenticated")
      expect((yield* logIn("doomed").pipe(Effect.flip))._tag).toBe("InvalidCredentials")
      const again = yield* admin.client.adminUsers.delete({ path: { id: doomed.user.id } }).pipe(Effect.flip)
      expect(again._tag).toBe("NotFound")
    }),
  )

  it.effect(
    "POST reset-link mints a one-hour link on the public URL that resets the password once; unknown id 404",
    () =>
      Effect.gen(function* () {
        const admin = yield* logIn("admin")
        const forgetful = yield* createAndLogIn(admin.client, "forgetful")
        const link = yield* admin.client.adminUsers.resetLink({ path: { id: forgetful.user.id } })
        expect(link.url).toMatch(/^http:\/\/tonearm\.test\/reset-password\/[A-Za-z0-9_-]{43}$/)
        const minutesLeft = (DateTime.toEpochMillis(link.expires_at) - Date.now()) / 60_000
        expect(minutesLeft).toBeGreaterThan(55)
        expect(minutesLeft).toBeLessThanOrEqual(60)
        const anonymous = yield* makeTonearmClient()
        const token = link.url.split("/").at(-1)!
        yield* anonymous.auth.resetPassword({ payload: { token, password: "a brand new password" } })
        yield* logIn("forgetful", "a brand new password")
        const reused = yield* anonymous.auth
          .resetPassword({ payload: { token, password: "yet another password" } })
          .pipe(Effect.flip)
        expect(reused._tag).toBe("InvalidToken")
        const unknown = yield* admin.client.adminUsers
          .resetLink({ path: { id: UserId.make(crypto.randomUUID()) } })
          .pipe(Effect.flip)
        expect(unknown._tag).toBe("NotFound")
      }),
  )

  it.effect("the last admin cannot be deleted (409 conflict)", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const deputy = yield* logIn("deputy")
      yield* admin.client.adminUsers.delete({ path: { id: deputy.user.id } })
      const error = yield* admin.client.adminUsers.delete({ path: { id: admin.user.id } }).pipe(Effect.flip)
      expect(error._tag).toBe("Conflict")
      expect((yield* admin.client.me.get()).username).toBe("admin")
    }),
  )
})
