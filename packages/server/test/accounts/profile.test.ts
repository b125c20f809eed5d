import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { DateTime, Effect } from "effect"
import { createAndLogIn, logIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

layer(TestServerLive(), { excludeTestServices: true })("me, profile, time zone, password", (it) => {
  it.effect("GET /api/me answers the profile view plus debug_mode_enabled, timezone and timezone_updated_at", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      const me = yield* admin.client.me.get()
      expect(me).toMatchObject({
        username: "admin",
        display_name: null,
        email: null,
        is_admin: true,
        debug_mode_enabled: false,
        timezone: "UTC",
        timezone_updated_at: null,
      })
    }),
  )

  it.effect("PUT /api/me/profile sets display_name and email and answers the profile view", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const profile = yield* admin.client.me.updateProfile({
        payload: { display_name: "  The Admin ", email: "admin@example.org" },
      })
      expect(profile).toMatchObject({
        username: "admin",
        display_name: "The Admin",
        email: "admin@example.org",
        is_admin: true,
      })
      expect(Object.keys(profile).sort()).toEqual(["display_name", "email", "id", "is_admin", "username"])
      // An absent field is left as it is.
      const partial = yield* admin.client.me.updateProfile({ payload: { display_name: "Admin" } })
      expect(partial).toMatchObject({ display_name: "Admin", email: "admin@example.org" })
    }),
  )

  it.effect("an empty string clears a profile field to null", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const cleared = yield* rawJson("PUT", "/api/me/profile", { display_name: "", email: "  " }, admin.token)
      expect(cleared.status).toBe(200)
      expect(cleared.json).toMatchObject({ display_name: null, email: null })
      expect(yield* admin.client.me.get()).toMatchObject({ display_name: null, email: null })
      // The typed client says the same with null.
      yield* admin.client.me.updateProfile({ payload: { display_name: "Admin" } })
      expect(yield* admin.client.me.updateProfile({ payload: { display_name: null } })).toMatchObject({
        display_name: null,
      })
    }),
  )

  it.effect("a malformed email is 400 invalid_request naming the field; a taken one is 409", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const bad = yield* rawJson("PUT", "/api/me/profile", { email: "not-an-email" }, admin.token)
      expect(bad.status).toBe(400)
      expect(bad.json).toEqual({ error: { code: "invalid_request", message: expect.stringContaining("email") } })
      yield* admin.client.me.updateProfile({ payload: { email: "shared@example.org" } })
      const other = yield* createAndLogIn(admin.client, "other")
      const taken = yield* other.client.me.updateProfile({ payload: { email: "SHARED@example.org" } }).pipe(Effect.flip)
      expect(taken._tag).toBe("Conflict")
    }),
  )

  it.effect("PUT /api/me/timezone writes the zone and its timezone_updated_at", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const before = Date.now()
      const result = yield* admin.client.me.setTimezone({ payload: { timezone: "Europe/Paris" } })
      expect(result.timezone).toBe("Europe/Paris")
      expect(DateTime.toEpochMillis(result.timezone_updated_at)).toBeGreaterThanOrEqual(before - 1000)
      const me = yield* admin.client.me.get()
      expect(me.timezone).toBe("Europe/Paris")
      expect(me.timezone_updated_at).not.toBeNull()
      // A zone keeps the name the user gave (a link is not swapped for the runtime's canonical name) …
      expect((yield* admin.client.me.setTimezone({ payload: { timezone: "Asia/Kolkata" } })).timezone).toBe(
        "Asia/Kolkata",
      )
      expect((yield* admin.client.me.get()).timezone).toBe("Asia/Kolkata")
      // … in its registered letter case.
      expect((yield* admin.client.me.setTimezone({ payload: { timezone: "america/new_york" } })).timezone).toBe(
        "America/New_York",
      )
    }),
  )

  it.effect("an invalid time zone name is 400 invalid_timezone and changes nothing", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      for (const timezone of ["Mars/Olympus_Mons", "", "+02:00", "UTC; DROP TABLE users"]) {
        const error = yield* admin.client.me.setTimezone({ payload: { timezone } }).pipe(Effect.flip)
        expect(error._tag).toBe("InvalidTimezone")
      }
      expect((yield* admin.client.me.get()).timezone).toBe("America/New_York")
    }),
  )

  it.effect("changing the password needs the current one and revokes every other session", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const current = yield* logIn("other")
      const elsewhere = yield* logIn("other")
      const wrong = yield* current.client.me
        .changePassword({ payload: { current_password: "nope-nope", new_password: "a new password" } })
        .pipe(Effect.flip)
      expect(wrong._tag).toBe("WrongPassword")
      const short = yield* rawJson(
        "PUT",
        "/api/me/password",
        { current_password: PASSWORD, new_password: "short" },
        current.token,
      )
      expect(short.status).toBe(400)
      expect((short.json as { error: { message: string } }).error.message).toContain("new_password")
      yield* current.client.me.changePassword({
        payload: { current_password: PASSWORD, new_password: "a new password" },
      })
      expect((yield* current.client.me.get()).username).toBe("other")
      expect((yield* elsewhere.client.me.get().pipe(Effect.flip))._tag).toBe("Unauthenticated")
      expect((yield* logIn("other").pipe(Effect.flip))._tag).toBe("InvalidCredentials")
      expect((yield* logIn("other", "a new password")).user.username).toBe("other")
      const [row] = yield* sql<{ password_hash: string }>`SELECT password_hash FROM users WHERE username = 'other'`
      expect(row!.password_hash).not.toContain("a new password")
    }),
  )
})
