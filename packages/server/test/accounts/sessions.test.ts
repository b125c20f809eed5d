import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { SessionId } from "@tonearm/core"
import { Effect } from "effect"
import { SessionsService } from "../../src/accounts/index.js"
import { createAndLogIn, logIn, signUpFirstAdmin } from "../support/accounts.js"
import { TestServerLive } from "../support/TestServer.js"

const SessionsLive = TestServerLive()

layer(SessionsLive, { excludeTestServices: true })("sessions", (it) => {
  it.effect("the session list flags the caller's current session and shows both addresses", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      const second = yield* logIn("admin", undefined, { "user-agent": "TonearmTest/2" })
      const rows = yield* second.client.me.listSessions()
      expect(rows).toHaveLength(2)
      const current = rows.filter((row) => row.current)
      expect(current).toHaveLength(1)
      expect(current[0]!.user_agent).toBe("TonearmTest/2")
      for (const row of rows) {
        expect(row.created_ip).toBe("127.0.0.1")
        expect(row.last_ip).toBe("127.0.0.1")
      }
      const fromFirst = yield* admin.client.me.listSessions()
      expect(fromFirst.find((row) => row.current)!.id).not.toBe(current[0]!.id)
    }),
  )

  it.effect("DELETE of the caller's own session is 204 and its token stops working", () =>
    Effect.gen(function* () {
      const first = yield* logIn("admin")
      const second = yield* logIn("admin")
      const target = (yield* second.client.me.listSessions()).find((row) => row.current)!
      yield* first.client.me.deleteSession({ path: { id: target.id } })
      const error = yield* second.client.me.get().pipe(Effect.flip)
      expect(error._tag).toBe("Unauthenticated")
      expect((yield* first.client.me.get()).username).toBe("admin")
    }),
  )

  it.effect("DELETE of another user's session is 404 and that session still works", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const listener = yield* createAndLogIn(admin.client, "listener")
      const theirs = (yield* listener.client.me.listSessions()).find((row) => row.current)!
      const error = yield* admin.client.me.deleteSession({ path: { id: theirs.id } }).pipe(Effect.flip)
      expect(error._tag).toBe("NotFound")
      expect((yield* listener.client.me.get()).username).toBe("listener")
      const unknown = yield* admin.client.me
        .deleteSession({ path: { id: SessionId.make(crypto.randomUUID()) } })
        .pipe(Effect.flip)
      expect(unknown._tag).toBe("NotFound")
    }),
  )

  it.effect("logout-others keeps the current session and revokes the caller's other sessions only", () =>
    Effect.gen(function* () {
      const keep = yield* logIn("listener")
      const other1 = yield* logIn("listener")
      const other2 = yield* logIn("listener")
      const bystander = yield* logIn("admin")
      const result = yield* keep.client.me.logoutOthers()
      expect(result.revoked).toBeGreaterThanOrEqual(2)
      for (const revoked of [other1, other2]) {
        expect((yield* revoked.client.me.get().pipe(Effect.flip))._tag).toBe("Unauthenticated")
      }
      expect((yield* keep.client.me.listSessions()).map((row) => row.current)).toEqual([true])
      expect((yield* bystander.client.me.get()).username).toBe("admin")
    }),
  )

  it.effect("logout-others refuses, deleting nothing, when the current session id is unknown", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionsService
      const sql = yield* SqlClient.SqlClient
      const listener = yield* logIn("listener")
      const userId = listener.user.id
      const before = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${userId}`
      const gone = yield* sessions.logoutOthers(userId, SessionId.make(crypto.randomUUID())).pipe(Effect.flip)
      expect(gone._tag).toBe("Conflict")
      const missing = yield* sessions.logoutOthers(userId, undefined).pipe(Effect.flip)
      expect(missing._tag).toBe("Conflict")
      const after = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM sessions WHERE user_id = ${userId}`
      expect(after[0]!.n).toBe(before[0]!.n)
      expect(after[0]!.n).toBeGreaterThan(1)
    }),
  )

  it.effect("every authenticated request updates last_seen_at and last_ip; created_ip never changes", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const admin = yield* logIn("admin")
      // Default hops = 1: the last X-Forwarded-For entry is the client.
      const viaProxy = (address: string) =>
        makeTonearmClient({ credentials: bearer(admin.token), headers: { "x-forwarded-for": address } })
      const login = yield* logIn("admin", undefined, { "x-forwarded-for": "203.0.113.7" })
      yield* sql`UPDATE sessions SET last_seen_at = last_seen_at - interval '1 hour' WHERE token_hash = sha256(convert_to(${login.token}, 'UTF8'))`
      const [before] = yield* sql<{ created_ip: string; last_ip: string; last_seen_at: Date }>`
        SELECT created_ip, last_ip, last_seen_at FROM sessions WHERE token_hash = sha256(convert_to(${login.token}, 'UTF8'))`
      expect(before).toMatchObject({ created_ip: "203.0.113.7", last_ip: "203.0.113.7" })
      const client = yield* makeTonearmClient({
        credentials: bearer(login.token),
        headers: { "x-forwarded-for": "198.51.100.1, 198.51.100.23" },
      })
      yield* client.me.get()
      const [after] = yield* sql<{ created_ip: string; last_ip: string; last_seen_at: Date }>`
        SELECT created_ip, last_ip, last_seen_at FROM sessions WHERE token_hash = sha256(convert_to(${login.token}, 'UTF8'))`
      expect(after).toMatchObject({ created_ip: "203.0.113.7", last_ip: "198.51.100.23" })
      expect(after!.last_seen_at.getTime()).toBeGreaterThan(before!.last_seen_at.getTime())
      const row = (yield* client.me.listSessions()).find((session) => session.current)!
      expect(row).toMatchObject({ created_ip: "203.0.113.7", last_ip: "198.51.100.23" })
      yield* viaProxy("192.0.2.1") // another session of the same user: untouched row above
      const [still] = yield* sql<{ last_ip: string }>`
        SELECT last_ip FROM sessions WHERE token_hash = sha256(convert_to(${login.token}, 'UTF8'))`
      expect(still!.last_ip).toBe("198.51.100.23")
    }),
  )

  it.effect("a session idle for 30 days no longer authenticates; any request slides the expiry", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const stale = yield* logIn("listener")
      const sliding = yield* logIn("listener")
      const hash = (token: string) => sql`sha256(convert_to(${token}, 'UTF8'))`
      yield* sql`UPDATE sessions SET last_seen_at = now() - interval '30 days 1 minute' WHERE token_hash = ${hash(stale.token)}`
      yield* sql`UPDATE sessions SET last_seen_at = now() - interval '29 days' WHERE token_hash = ${hash(sliding.token)}`
      expect((yield* stale.client.me.get().pipe(Effect.flip))._tag).toBe("Unauthenticated")
      expect((yield* sliding.client.me.get()).username).toBe("listener")
      const [row] = yield* sql<{ idle: number }>`
        SELECT extract(epoch FROM now() - last_seen_at)::int AS idle FROM sessions WHERE token_hash = ${hash(sliding.token)}`
      expect(row!.idle).toBeLessThan(60)
    }),
  )

  it.effect(
    "last_seen_at moves with a request a second or more after the last touch; a burst within it writes once",
    () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const session = yield* logIn("listener")
        const hash = sql`sha256(convert_to(${session.token}, 'UTF8'))`
        const seen = Effect.map(
          sql<{
            at: Date
            xmin: string
          }>`SELECT last_seen_at AS at, xmin::text FROM sessions WHERE token_hash = ${hash}`,
          (rows) => rows[0]!,
        )
        yield* sql`UPDATE sessions SET last_seen_at = now() - interval '2 seconds' WHERE token_hash = ${hash}`
        const before = yield* seen
        yield* session.client.me.get()
        const touched = yield* seen
        expect(touched.at.getTime()).toBeGreaterThan(before.at.getTime())
        // Many requests at once from the same client within the second (touched "just now", set a little ahead so a
        // slow machine stays inside it): the row is read, not written.
        yield* sql`UPDATE sessions SET last_seen_at = now() + interval '30 seconds' WHERE token_hash = ${hash}`
        const fresh = yield* seen
        yield* Effect.all(
          Array.from({ length: 8 }, () => session.client.me.get()),
          { concurrency: 8 },
        )
        expect((yield* seen).xmin).toBe(fresh.xmin)
      }),
  )

  it.effect("logout deletes the current session and clears the cookie", () =>
    Effect.gen(function* () {
      const session = yield* logIn("listener")
      const [, response] = yield* session.client.auth.logout({ withResponse: true })
      expect(response.status).toBe(204)
      expect(response.headers["set-cookie"]).toMatch(/tonearm_session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/)
      expect((yield* session.client.me.get().pipe(Effect.flip))._tag).toBe("Unauthenticated")
    }),
  )
})
