import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { DIAGNOSTIC_RETENTION_DAYS, UserId } from "@tonearm/core"
import { Clock, Effect, Exit, Fiber, Layer, Ref, TestClock, TestContext } from "effect"
import { DiagnosticsService, diagnosticsSweepLoop } from "../../src/diagnostics/index.js"
import { Admin, AdminLive, aUser } from "../ownData.js"
import type { SignedIn } from "../support/accounts.js"
import { raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const stored = (userId?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      userId === undefined
        ? sql<{ n: number }>`SELECT count(*)::int AS n FROM diagnostic_events`
        : sql<{ n: number }>`SELECT count(*)::int AS n FROM diagnostic_events WHERE user_id = ${userId}`,
      (rows) => rows[0]!.n,
    ),
  )

const post = (who: SignedIn, body: unknown) => rawJson("POST", "/api/diagnostics", body, who.token)

/** A fresh account whose debug mode the admin switched on. */
const aDebugUser = (name: string) =>
  Effect.gen(function* () {
    const who = yield* aUser(name)
    yield* (yield* Admin).client.adminUsers.setDebugMode({
      path: { id: UserId.make(who.user.id) },
      payload: { enabled: true },
    })
    return who
  })

/** Alice's batch of five events on two devices (pixel and tablet). */
const ALICES_BATCH = [
  { kind: "playback", device_id: "pixel", occurred_at: "2026-11-24T10:00:00Z", data: { state: "playing" } },
  { kind: "upnp_sync", device_id: "pixel", occurred_at: Date.parse("2026-11-24T10:05:00Z"), data: {} },
  { kind: "connectivity", device_id: "tablet", occurred_at: "2026-11-24T11:00:00.250+01:00" },
  { kind: "power", device_id: "tablet", occurred_at: "2026-11-24T10:30:00Z", data: { battery: 12 } },
  { kind: "lifecycle", device_id: "pixel", occurred_at: "2026-11-24T10:45:00Z", data: {} },
]

/**
 * The admin views are server-wide: the table is emptied, then fresh Alice reports her batch and one web event
 * and fresh Bob one pixel event (seven in all), both in debug mode.
 */
const aliceAndBobReported = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM diagnostic_events`
  const alice = yield* aDebugUser("alice")
  const bob = yield* aDebugUser("bob")
  expect((yield* post(alice, { events: ALICES_BATCH })).status).toBe(202)
  yield* alice.client.diagnostics.report({
    payload: { events: [{ kind: "playback", device_id: "web", occurred_at: "2026-11-24T12:00:00Z" }] },
  })
  yield* post(bob, { events: [{ kind: "playback", device_id: "pixel", occurred_at: "2026-11-24T10:10:00Z" }] })
  return { alice, bob }
})

/** A clock whose time the test sets; sleeping is real. */
const controlledClock = (nowMs: Ref.Ref<number>): Clock.Clock => {
  const real = Clock.make()
  return {
    ...real,
    unsafeCurrentTimeMillis: () => Ref.get(nowMs).pipe(Effect.runSync),
    unsafeCurrentTimeNanos: () => BigInt(Ref.get(nowMs).pipe(Effect.runSync)) * 1_000_000n,
    currentTimeMillis: Ref.get(nowMs),
    currentTimeNanos: Effect.map(Ref.get(nowMs), (ms) => BigInt(ms) * 1_000_000n),
  }
}

layer(AdminLive().pipe(Layer.provideMerge(TestServerLive())), { excludeTestServices: true, timeout: "120 seconds" })(
  "diagnostics: device diagnostics",
  (it) => {
    it.effect("debug mode off: 204 and nothing stored, whatever the batch holds", () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        expect((yield* alice.client.me.get()).debug_mode_enabled).toBe(false)
        for (const body of [
          { events: [{ kind: "playback", device_id: "pixel", occurred_at: "2026-11-24T10:00:00Z", data: {} }] },
          { events: [{ kind: "no_such_kind", device_id: "pixel" }] },
          { events: "not a list" },
        ]) {
          const response = yield* post(alice, body)
          expect(response.status).toBe(204)
          expect(response.text).toBe("")
        }
        expect(yield* stored(alice.user.id)).toBe(0)
        const anonymous = yield* rawJson("POST", "/api/diagnostics", { events: [] })
        expect(anonymous.status).toBe(401)
      }),
    )

    it.effect("PUT /api/admin/users/{id}/debug-mode sets the gate GET /api/me reads; non-admins get 403", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const alice = yield* aUser("alice")
        const bob = yield* aUser("bob")
        const updated = yield* admin.client.adminUsers.setDebugMode({
          path: { id: UserId.make(alice.user.id) },
          payload: { enabled: true },
        })
        expect(updated).toMatchObject({ id: alice.user.id, debug_mode_enabled: true })
        expect((yield* alice.client.me.get()).debug_mode_enabled).toBe(true)
        expect((yield* bob.client.me.get()).debug_mode_enabled).toBe(false)
        // Bob (not an admin) can't switch anyone's, his own included.
        const forbidden = yield* rawJson(
          "PUT",
          `/api/admin/users/${bob.user.id}/debug-mode`,
          { enabled: true },
          bob.token,
        )
        expect(forbidden.status).toBe(403)
        const other = yield* rawJson(
          "PUT",
          `/api/admin/users/${alice.user.id}/debug-mode`,
          { enabled: false },
          bob.token,
        )
        expect(other.status).toBe(403)
        expect((yield* alice.client.me.get()).debug_mode_enabled).toBe(true)
      }),
    )

    it.effect("debug mode on: an unknown kind rejects the whole batch with 400 unknown_kind", () =>
      Effect.gen(function* () {
        const alice = yield* aDebugUser("alice")
        const response = yield* post(alice, {
          events: [
            { kind: "playback", device_id: "pixel", occurred_at: "2026-11-24T10:00:00Z", data: {} },
            { kind: "telepathy", device_id: "pixel", occurred_at: "2026-11-24T10:00:01Z", data: {} },
          ],
        })
        expect(response.status).toBe(400)
        expect(response.json).toMatchObject({ error: { code: "unknown_kind" } })
        expect(yield* stored(alice.user.id)).toBe(0)
      }),
    )

    it.effect("the kind whitelist is also a database constraint", () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const sql = yield* SqlClient.SqlClient
        const direct = yield* sql`
        INSERT INTO diagnostic_events (user_id, device_id, kind, occurred_at, received_at)
        VALUES (${alice.user.id}, 'pixel', 'telepathy', now(), now())`.pipe(Effect.exit)
        expect(Exit.isFailure(direct)).toBe(true)
      }),
    )

    it.effect("debug mode on: 202 {accepted}; occurred_at as RFC 3339 or epoch milliseconds", () =>
      Effect.gen(function* () {
        const alice = yield* aDebugUser("alice")
        const response = yield* post(alice, { events: ALICES_BATCH })
        expect(response.status).toBe(202)
        expect(response.json).toEqual({ accepted: 5 })
        expect(yield* stored(alice.user.id)).toBe(5)
        // Through the SDK too.
        const [accepted, raw202] = yield* alice.client.diagnostics.report({
          payload: { events: [{ kind: "playback", device_id: "web", occurred_at: "2026-11-24T12:00:00Z" }] },
          withResponse: true,
        })
        expect(raw202.status).toBe(202)
        expect(accepted).toEqual({ accepted: 1 })
      }),
    )

    it.effect("a malformed event or a batch over 500 events is a 4xx envelope and nothing is stored", () =>
      Effect.gen(function* () {
        const alice = yield* aDebugUser("alice")
        const before = yield* stored(alice.user.id)
        for (const body of [
          { events: [{ kind: "playback" }] },
          { events: [{ kind: "playback", device_id: "pixel", occurred_at: "yesterday" }] },
          { events: "nope" },
          [],
        ]) {
          const response = yield* post(alice, body)
          expect(response.status).toBe(400)
          expect(response.json).toMatchObject({ error: { code: "invalid_request" } })
        }
        const many = Array.from({ length: 501 }, () => ({ kind: "playback", device_id: "batch-500" }))
        const tooMany = yield* post(alice, { events: many })
        expect(tooMany.status).toBe(413)
        expect(tooMany.json).toMatchObject({ error: { code: "payload_too_large" } })
        const notJson = yield* raw("POST", "/api/diagnostics", { body: "{oops", token: alice.token })
        expect(notJson.status).toBe(400)
        expect(yield* stored(alice.user.id)).toBe(before)
        const exactly500 = yield* post(alice, { events: many.slice(0, 500) })
        expect(exactly500.status).toBe(202)
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`DELETE FROM diagnostic_events WHERE device_id = 'batch-500'`,
        )
      }),
    )

    it.effect("the admin timeline filters by account, device, kind and a from/to window in RFC 3339 or epoch ms", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const { alice, bob } = yield* aliceAndBobReported
        const all = yield* admin.client.adminDiagnostics.timeline({ urlParams: {} })
        expect(all.items).toHaveLength(7)
        expect(all.cursor).toBeNull()
        // Oldest first.
        const times = all.items.map((item) => item.occurred_at.epochMillis)
        expect([...times].sort((a, b) => a - b)).toEqual(times)
        const byUser = yield* admin.client.adminDiagnostics.timeline({
          urlParams: { user_id: UserId.make(bob.user.id) },
        })
        expect(byUser.items.map((item) => item.username)).toEqual([bob.user.username])
        const byDevice = yield* admin.client.adminDiagnostics.timeline({
          urlParams: { user_id: UserId.make(alice.user.id), device_id: "tablet" },
        })
        expect(byDevice.items.map((item) => item.kind)).toEqual(["connectivity", "power"])
        expect(byDevice.items[1]!.data).toEqual({ battery: 12 })
        const byKind = yield* raw("GET", "/api/admin/diagnostics?kind=playback", { token: admin.token })
        expect((byKind.json as { items: Array<{ kind: string }> }).items.map((item) => item.kind)).toEqual([
          "playback",
          "playback",
          "playback",
        ])
        const rfc = yield* raw(
          "GET",
          `/api/admin/diagnostics?from=${encodeURIComponent("2026-11-24T10:05:00Z")}&to=${encodeURIComponent("2026-11-24T10:30:00Z")}`,
          { token: admin.token },
        )
        const epoch = yield* raw(
          "GET",
          `/api/admin/diagnostics?from=${Date.parse("2026-11-24T10:05:00Z")}&to=${Date.parse("2026-11-24T10:30:00Z")}`,
          { token: admin.token },
        )
        const kindsOf = (response: typeof rfc) =>
          (response.json as { items: Array<{ kind: string }> }).items.map((i) => i.kind)
        // The window is inclusive at both ends.
        expect(kindsOf(rfc)).toEqual(["upnp_sync", "playback", "power"])
        expect(kindsOf(epoch)).toEqual(kindsOf(rfc))
      }),
    )

    it.effect(
      "timeline bad input: an unknown kind filter is 400 unknown_kind; a bad time or cursor 400; non-admin 403",
      () =>
        Effect.gen(function* () {
          const admin = yield* Admin
          const alice = yield* aUser("alice")
          const kind = yield* raw("GET", "/api/admin/diagnostics?kind=telepathy", { token: admin.token })
          expect(kind.status).toBe(400)
          expect(kind.json).toMatchObject({ error: { code: "unknown_kind" } })
          for (const query of ["from=yesterday", "to=2026-13-45", "cursor=garbage", "limit=0", "user_id=not-a-uuid"]) {
            const response = yield* raw("GET", `/api/admin/diagnostics?${query}`, { token: admin.token })
            expect(response.status, query).toBe(400)
            expect(response.json).toMatchObject({ error: { code: "invalid_request" } })
          }
          const forbidden = yield* raw("GET", "/api/admin/diagnostics", { token: alice.token })
          expect(forbidden.status).toBe(403)
          const devices = yield* raw("GET", "/api/admin/diagnostics/devices", { token: alice.token })
          expect(devices.status).toBe(403)
        }),
    )

    it.effect(
      "export-sized paging: limit defaults to 500, is clamped to 5000, and the cursor walks every row once",
      () =>
        Effect.gen(function* () {
          const admin = yield* Admin
          const alice = yield* aUser("alice")
          const sql = yield* SqlClient.SqlClient
          yield* sql`
        INSERT INTO diagnostic_events (user_id, device_id, kind, occurred_at, received_at)
        SELECT ${alice.user.id}, 'bulk', 'lifecycle', now() - make_interval(secs => g), now()
        FROM generate_series(1, 1200) AS g`
          const mine = { user_id: UserId.make(alice.user.id), device_id: "bulk" }
          const first = yield* admin.client.adminDiagnostics.timeline({ urlParams: mine })
          expect(first.items).toHaveLength(500)
          expect(first.cursor).not.toBeNull()
          const clamped = yield* admin.client.adminDiagnostics.timeline({
            urlParams: { ...mine, limit: 100_000 },
          })
          expect(clamped.items).toHaveLength(1200)
          const seen: Array<string> = []
          let cursor: string | undefined
          for (;;) {
            const page = yield* admin.client.adminDiagnostics.timeline({
              urlParams: { ...mine, limit: 333, ...(cursor === undefined ? {} : { cursor }) },
            })
            seen.push(...page.items.map((item) => item.id))
            if (page.cursor === null) break
            cursor = page.cursor
          }
          expect(seen).toHaveLength(1200)
          expect(new Set(seen).size).toBe(1200)
          expect(seen).toEqual(clamped.items.map((item) => item.id))
        }),
    )

    it.effect("the device overview has one row per account and device", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const { alice, bob } = yield* aliceAndBobReported
        const devices = yield* admin.client.adminDiagnostics.devices()
        const tablet = devices.find((row) => row.device_id === "tablet")!
        // connectivity at 10:00Z (11:00+01:00), power at 10:30Z.
        expect(tablet).toMatchObject({
          username: alice.user.username,
          events: 2,
          last_kind: "power",
          debug_mode_enabled: true,
        })
        expect(tablet.kinds).toEqual({ connectivity: 1, power: 1 })
        expect(
          devices
            .filter((row) => row.device_id === "pixel")
            .map((row) => row.username)
            .sort(),
        ).toEqual([alice.user.username, bob.user.username].sort())
        // Most recently heard first.
        const last = devices.map((row) => row.last_seen_at.epochMillis)
        expect([...last].sort((a, b) => b - a)).toEqual(last)
      }),
    )

    it.effect("the retention sweep prunes rows older than 30 days by the server's clock (controlled clock)", () =>
      Effect.gen(function* () {
        const alice = yield* aUser("alice")
        const sql = yield* SqlClient.SqlClient
        const diagnostics = yield* DiagnosticsService
        yield* sql`DELETE FROM diagnostic_events`
        const now = Date.parse("2027-03-01T12:00:00Z")
        const daysAgo = (days: number) => new Date(now - days * 86_400_000)
        yield* sql`
        INSERT INTO diagnostic_events (user_id, device_id, kind, occurred_at, received_at) VALUES
          (${alice.user.id}, 'old', 'playback', ${daysAgo(31)}, ${daysAgo(31)}),
          (${alice.user.id}, 'edge', 'playback', ${daysAgo(DIAGNOSTIC_RETENTION_DAYS - 0.01)}, ${daysAgo(DIAGNOSTIC_RETENTION_DAYS - 0.01)}),
          (${alice.user.id}, 'fresh', 'playback', ${daysAgo(1)}, ${daysAgo(1)}),
          (${alice.user.id}, 'late', 'playback', ${daysAgo(45)}, ${daysAgo(2)})`
        const clock = yield* Ref.make(now)
        // Two replicas sweeping at once: the DELETE is idempotent, neither fails.
        const [a, b] = yield* Effect.all([diagnostics.sweep, diagnostics.sweep], { concurrency: 2 }).pipe(
          Effect.withClock(controlledClock(clock)),
        )
        expect(a + b).toBe(2)
        const left = yield* sql<{ device_id: string }>`SELECT device_id FROM diagnostic_events ORDER BY device_id`
        expect(left.map((row) => row.device_id)).toEqual(["edge", "fresh"])
        // The server's clock moves a day on: the edge row is now past 30 days.
        yield* Ref.set(clock, now + 86_400_000)
        expect(yield* diagnostics.sweep.pipe(Effect.withClock(controlledClock(clock)))).toBe(1)
        const after = yield* sql<{ device_id: string }>`SELECT device_id FROM diagnostic_events`
        expect(after.map((row) => row.device_id)).toEqual(["fresh"])
      }),
    )

    it.effect("the sweep runs at start and then every hour", () =>
      Effect.gen(function* () {
        const runs = yield* Ref.make(0)
        const fake = { sweep: Ref.updateAndGet(runs, (n) => n + 1) } as unknown as DiagnosticsService
        const fiber = yield* Effect.fork(diagnosticsSweepLoop.pipe(Effect.provideService(DiagnosticsService, fake)))
        yield* TestClock.adjust("1 millis")
        expect(yield* Ref.get(runs)).toBe(1)
        yield* TestClock.adjust("59 minutes")
        expect(yield* Ref.get(runs)).toBe(1)
        yield* TestClock.adjust("1 minutes")
        expect(yield* Ref.get(runs)).toBe(2)
        yield* TestClock.adjust("3 hours")
        expect(yield* Ref.get(runs)).toBe(5)
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.provide(TestContext.TestContext)),
    )
  },
)
