import { FetchHttpClient } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { SHIPPED_TUNING } from "@tonearm/core"
import { Duration, Effect, Layer, Schedule } from "effect"
import { TuningService } from "../../src/recommendations/index.js"
import { Admin, AdminLive, aUser } from "../ownData.js"
import { raw, rawJson } from "../support/raw.js"
import { secondReplica, TestServerLive } from "../support/TestServer.js"

const TUNING = "/api/admin/recommendation-tuning"

interface AuditRow {
  readonly id: string
  readonly scope: string
  readonly changed_by: string | null
  readonly changed_at: Date
  readonly diff: ReadonlyArray<{ field: string; old: unknown; new: unknown }>
}

const auditRows = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<AuditRow>`SELECT id, scope, changed_by, changed_at, diff FROM tuning_audit ORDER BY changed_at, id`,
)

const storedRows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<{ scope: string; current: Record<string, unknown> }>`SELECT scope, current FROM recommendation_tuning`,
    (rows) => Object.fromEntries(rows.map((row) => [row.scope, row.current])),
  ),
)

const errorOf = (json: unknown) => (json as { error: { code: string; message: string } }).error

/** Retries `check` until it passes (a NOTIFY reaches a listener asynchronously, within milliseconds). */
const eventually = <A, E, R>(check: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => check).pipe(Effect.retry(Schedule.spaced("25 millis").pipe(Schedule.upTo(Duration.seconds(5)))))

const expectUnchanged = (before: { rows: unknown; audit: ReadonlyArray<AuditRow> }) =>
  Effect.gen(function* () {
    expect(yield* storedRows).toEqual(before.rows)
    expect((yield* auditRows).length).toBe(before.audit.length)
  })

const snapshot = Effect.all({ rows: storedRows, audit: auditRows })

/**
 * The tuning is server-wide: every scope back to its shipped values (through the API, so each replica's cache
 * hears of it) and an empty audit, so a test can count rows and diffs of its own.
 */
const shippedTuningNoAudit = Effect.gen(function* () {
  const admin = yield* Admin
  for (const scope of ["radio", "daily_mix", "taste", "discovery"] as const)
    yield* admin.client.tuning.reset({ payload: { scope } })
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM tuning_audit`
  return admin
})

const currentOfThisReplica = Effect.flatMap(TuningService, (tuning) => tuning.current).pipe(Effect.orDie)

layer(AdminLive().pipe(Layer.provideMerge(TestServerLive())), { excludeTestServices: true, timeout: "120 seconds" })(
  "recommendation tuning",
  (it) => {
    it.effect("GET answers current and shipped values for every scope; untuned, current is shipped", () =>
      Effect.gen(function* () {
        const admin = yield* shippedTuningNoAudit
        const view = yield* admin.client.tuning.get()
        for (const scope of ["radio", "daily_mix", "taste", "discovery"] as const) {
          expect(view.scopes[scope].shipped).toEqual(SHIPPED_TUNING[scope])
          expect(view.scopes[scope].current).toEqual(SHIPPED_TUNING[scope])
        }
        expect(view.scopes.radio.shipped.taste_weight).toBe(1.0)
        expect(view.scopes.daily_mix.shipped.taste_weight).toBe(1.5)
        expect(view.scopes.taste.shipped.enriched_tag_scale).toBe(0.5)
      }),
    )

    it.scoped("shipped defaults are seeded at boot: one row per scope", () =>
      Effect.gen(function* () {
        // No rows at all, then a replica boots on the database.
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM recommendation_tuning`
        yield* secondReplica()
        expect(yield* storedRows).toEqual({
          radio: SHIPPED_TUNING.radio,
          daily_mix: SHIPPED_TUNING.daily_mix,
          taste: SHIPPED_TUNING.taste,
          discovery: SHIPPED_TUNING.discovery,
        })
      }),
    )

    it.effect("tuning and trends routes: a non-admin is 403 forbidden, an anonymous caller 401", () =>
      Effect.gen(function* () {
        const listener = yield* aUser("listener")
        const before = yield* snapshot
        const routes: ReadonlyArray<[string, string, unknown]> = [
          ["GET", TUNING, undefined],
          ["PATCH", TUNING, { scope: "radio", changes: { taste_weight: 2 } }],
          ["POST", `${TUNING}/reset`, { scope: "radio" }],
          ["GET", `${TUNING}/audit`, undefined],
          ["GET", "/api/admin/recommendation-trends", undefined],
        ]
        for (const [method, path, body] of routes) {
          const asListener = yield* rawJson(method, path, body, listener.token)
          expect(asListener.status).toBe(403)
          expect(errorOf(asListener.json).code).toBe("forbidden")
          const anonymous = yield* rawJson(method, path, body)
          expect(anonymous.status).toBe(401)
          expect(errorOf(anonymous.json).code).toBe("unauthenticated")
        }
        yield* expectUnchanged(before)
      }),
    )

    it.effect("PATCH changes fields of one scope, answers {scope, current, shipped} and writes one audit row", () =>
      Effect.gen(function* () {
        const admin = yield* shippedTuningNoAudit
        const answer = yield* admin.client.tuning.patch({
          payload: { scope: "radio", changes: { taste_weight: 2.5, novelty_weight: 0 } },
        })
        expect(answer).toEqual({
          scope: "radio",
          current: { ...SHIPPED_TUNING.radio, taste_weight: 2.5, novelty_weight: 0 },
          shipped: SHIPPED_TUNING.radio,
        })
        expect((yield* admin.client.tuning.get()).scopes.radio.current.taste_weight).toBe(2.5)
        expect((yield* admin.client.tuning.get()).scopes.daily_mix.current).toEqual(SHIPPED_TUNING.daily_mix)
        const audit = yield* auditRows
        expect(audit).toHaveLength(1)
        expect(audit[0]).toMatchObject({
          scope: "radio",
          changed_by: admin.user.id,
          diff: [
            { field: "taste_weight", old: 1, new: 2.5 },
            { field: "novelty_weight", old: SHIPPED_TUNING.radio.novelty_weight, new: 0 },
          ],
        })
        expect(Math.abs(audit[0]!.changed_at.getTime() - Date.now())).toBeLessThan(60_000)
      }),
    )

    it.effect("a PATCH that changes nothing writes no audit row (same values, or no fields)", () =>
      Effect.gen(function* () {
        const admin = yield* shippedTuningNoAudit
        yield* admin.client.tuning.patch({ payload: { scope: "radio", changes: { taste_weight: 2.5 } } })
        const before = yield* snapshot
        const same = yield* admin.client.tuning.patch({ payload: { scope: "radio", changes: { taste_weight: 2.5 } } })
        expect(same.current).toMatchObject({ taste_weight: 2.5 })
        yield* admin.client.tuning.patch({ payload: { scope: "discovery", changes: {} } })
        yield* admin.client.tuning.patch({
          payload: { scope: "taste", changes: { completion_curve: SHIPPED_TUNING.taste.completion_curve } },
        })
        yield* expectUnchanged(before)
      }),
    )

    it.effect(
      "an out-of-range value is 400 invalid_request naming the field; stored values and audit are unchanged",
      () =>
        Effect.gen(function* () {
          const admin = yield* Admin
          const before = yield* snapshot
          const cases: ReadonlyArray<[string, Record<string, unknown>, string]> = [
            ["radio", { taste_weight: 5.5 }, "taste_weight"],
            ["daily_mix", { skip_penalty_weight: -0.1 }, "skip_penalty_weight"],
            ["taste", { half_life_days: 0 }, "half_life_days"],
            ["taste", { half_life_days: 3651 }, "half_life_days"],
            ["taste", { mood_scale: 1.5 }, "mood_scale"],
            ["discovery", { snooze_days: 2.5 }, "snooze_days"],
            ["discovery", { tag_overlap_weight: 11 }, "tag_overlap_weight"],
            ["radio", { taste_weight: "high" }, "taste_weight"],
            // One bad field refuses the whole patch: the good one is not applied either.
            ["radio", { like_weight: 1, taste_weight: 99 }, "taste_weight"],
          ]
          for (const [scope, changes, field] of cases) {
            const response = yield* rawJson("PATCH", TUNING, { scope, changes }, admin.token)
            expect(response.status).toBe(400)
            expect(errorOf(response.json).code).toBe("invalid_request")
            expect(errorOf(response.json).message).toContain(field)
          }
          const refused = yield* rawJson(
            "PATCH",
            TUNING,
            { scope: "radio", changes: { taste_weight: 5.5 } },
            admin.token,
          )
          expect(errorOf(refused.json).message).toBe(
            "invalid radio tuning: taste_weight: Expected a number between 0 and 5, actual 5.5",
          )
          yield* expectUnchanged(before)
        }),
    )

    it.effect("an unknown field is 400 invalid_request naming it, and nothing changes", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const before = yield* snapshot
        const response = yield* rawJson(
          "PATCH",
          TUNING,
          { scope: "radio", changes: { taste_weight: 2, bogus_weight: 1 } },
          admin.token,
        )
        expect(response.status).toBe(400)
        expect(errorOf(response.json)).toMatchObject({ code: "invalid_request" })
        expect(errorOf(response.json).message).toContain("bogus_weight")
        // A field of another scope is unknown in this one.
        const other = yield* rawJson("PATCH", TUNING, { scope: "radio", changes: { snooze_days: 10 } }, admin.token)
        expect(other.status).toBe(400)
        expect(errorOf(other.json).message).toContain("snooze_days")
        yield* expectUnchanged(before)
      }),
    )

    it.effect("an unordered completion curve is 400 invalid_request, and nothing changes", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const before = yield* snapshot
        const curves = [
          [
            { x: 0, y: -1 },
            { x: 0.6, y: 0.3 },
            { x: 0.25, y: -0.4 },
            { x: 1, y: 1 },
          ],
          [
            { x: 0, y: -1 },
            { x: 0.5, y: 0 },
            { x: 0.5, y: 0.5 },
          ],
          [
            { x: 0, y: -1 },
            { x: 1.2, y: 1 },
          ],
          [
            { x: 0, y: -2 },
            { x: 1, y: 1 },
          ],
          [{ x: 0, y: 0 }],
        ]
        for (const completion_curve of curves) {
          const response = yield* rawJson(
            "PATCH",
            TUNING,
            { scope: "taste", changes: { completion_curve } },
            admin.token,
          )
          expect(response.status).toBe(400)
          expect(errorOf(response.json).code).toBe("invalid_request")
          expect(errorOf(response.json).message).toContain("completion_curve")
        }
        yield* expectUnchanged(before)
      }),
    )

    it.effect("an unknown scope or a body without changes is 400 invalid_request, and nothing changes", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const before = yield* snapshot
        for (const body of [
          { scope: "jukebox", changes: { taste_weight: 1 } },
          { scope: "radio" },
          { scope: "radio", changes: [1] },
        ]) {
          const response = yield* rawJson("PATCH", TUNING, body, admin.token)
          expect(response.status).toBe(400)
          expect(errorOf(response.json).code).toBe("invalid_request")
        }
        const reset = yield* rawJson("POST", `${TUNING}/reset`, { scope: "jukebox" }, admin.token)
        expect(reset.status).toBe(400)
        yield* expectUnchanged(before)
      }),
    )

    it.effect("a valid completion curve is stored in order and audited as its list of points", () =>
      Effect.gen(function* () {
        const admin = yield* shippedTuningNoAudit
        const curve = [
          { x: 0, y: -1 },
          { x: 0.5, y: 0 },
          { x: 1, y: 1 },
        ]
        const answer = yield* admin.client.tuning.patch({
          payload: { scope: "taste", changes: { completion_curve: curve } },
        })
        expect(answer.current).toMatchObject({ completion_curve: curve })
        const audit = yield* auditRows
        expect(audit.at(-1)!.diff).toEqual([
          { field: "completion_curve", old: SHIPPED_TUNING.taste.completion_curve, new: curve },
        ])
      }),
    )

    it.effect(
      "reset restores the shipped values and is audited; a reset that changes nothing writes no audit row",
      () =>
        Effect.gen(function* () {
          const admin = yield* shippedTuningNoAudit
          yield* admin.client.tuning.patch({
            payload: { scope: "radio", changes: { taste_weight: 2.5, novelty_weight: 0 } },
          })
          const count = (yield* auditRows).length
          const answer = yield* admin.client.tuning.reset({ payload: { scope: "radio" } })
          expect(answer).toEqual({ scope: "radio", current: SHIPPED_TUNING.radio, shipped: SHIPPED_TUNING.radio })
          const audit = yield* auditRows
          expect(audit).toHaveLength(count + 1)
          expect(audit.at(-1)).toMatchObject({
            scope: "radio",
            changed_by: admin.user.id,
            diff: [
              { field: "taste_weight", old: 2.5, new: 1 },
              { field: "novelty_weight", old: 0, new: SHIPPED_TUNING.radio.novelty_weight },
            ],
          })
          yield* admin.client.tuning.reset({ payload: { scope: "radio" } })
          yield* admin.client.tuning.reset({ payload: { scope: "discovery" } })
          expect(yield* auditRows).toHaveLength(count + 1)
          expect((yield* storedRows).radio).toEqual(SHIPPED_TUNING.radio)
        }),
    )

    it.effect("GET …/audit lists {id, scope, changed_by, changed_at, diff} newest first", () =>
      Effect.gen(function* () {
        // Three changes: a radio patch, a taste patch, then the radio reset.
        const admin = yield* shippedTuningNoAudit
        yield* admin.client.tuning.patch({
          payload: { scope: "radio", changes: { taste_weight: 2.5, novelty_weight: 0 } },
        })
        yield* admin.client.tuning.patch({
          payload: {
            scope: "taste",
            changes: {
              completion_curve: [
                { x: 0, y: -1 },
                { x: 0.5, y: 0 },
                { x: 1, y: 1 },
              ],
            },
          },
        })
        yield* admin.client.tuning.reset({ payload: { scope: "radio" } })
        const listed = yield* admin.client.tuning.audit()
        const stored = yield* auditRows
        expect(listed.map((row) => row.id)).toEqual([...stored].reverse().map((row) => row.id))
        expect(listed.map((row) => row.scope)).toEqual(["radio", "taste", "radio"])
        expect(listed[0]).toMatchObject({
          changed_by: admin.user.id,
          diff: [{ field: "taste_weight" }, { field: "novelty_weight" }],
        })
        const wire = yield* raw("GET", `${TUNING}/audit`, { token: admin.token })
        expect(Object.keys((wire.json as Array<object>)[0]!).sort()).toEqual([
          "changed_at",
          "changed_by",
          "diff",
          "id",
          "scope",
        ])
      }),
    )

    it.effect("this replica reads a PATCH at once: TuningService.current follows the change", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        yield* currentOfThisReplica // cache filled
        yield* admin.client.tuning.patch({ payload: { scope: "discovery", changes: { snooze_days: 30 } } })
        expect((yield* currentOfThisReplica).discovery.snooze_days).toBe(30)
        yield* admin.client.tuning.reset({ payload: { scope: "discovery" } })
        expect((yield* currentOfThisReplica).discovery.snooze_days).toBe(90)
      }),
    )

    it.effect("each replica caches the tuning and re-reads it when a change is announced on the tuning channel", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const sql = yield* SqlClient.SqlClient
        // A row changed behind the service's back is not seen … (tried until the listener has been heard, for it
        // pings itself first; and a listener that reconnects rightly drops the cache, so the whole step is retried)
        yield* eventually(
          Effect.gen(function* () {
            yield* sql`UPDATE recommendation_tuning SET current = jsonb_set(current, '{tag_overlap_weight}', '1') WHERE scope = 'discovery'`
            yield* currentOfThisReplica
            yield* sql`UPDATE recommendation_tuning SET current = jsonb_set(current, '{tag_overlap_weight}', '7') WHERE scope = 'discovery'`
            const cached = (yield* currentOfThisReplica).discovery.tag_overlap_weight
            if (cached !== 1) return yield* Effect.fail("not cached yet")
          }),
        ).pipe(Effect.orDie) // orDie outside the retry: a defect is never retried
        // … until a change is announced.
        yield* sql`SELECT pg_notify('tonearm_tuning', 'changed:discovery')`
        yield* eventually(
          Effect.flatMap(currentOfThisReplica, (tuning) =>
            tuning.discovery.tag_overlap_weight === 7 ? Effect.void : Effect.fail("stale"),
          ),
        )
        yield* admin.client.tuning.reset({ payload: { scope: "discovery" } })
      }),
    )

    it.scoped("two replicas on one database: a PATCH on one is seen by the other's next read, without restart", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const otherUrl = yield* secondReplica()
        const onOther = yield* makeTonearmClient({ baseUrl: otherUrl, credentials: bearer(admin.token) }).pipe(
          Effect.provide(FetchHttpClient.layer),
        )
        yield* currentOfThisReplica // this replica's cache is warm
        yield* onOther.tuning.patch({ payload: { scope: "daily_mix", changes: { taste_weight: 3 } } })
        // The admin view reads the stored rows: the other replica's change is there at once.
        expect((yield* admin.client.tuning.get()).scopes.daily_mix.current.taste_weight).toBe(3)
        // The cached tuning every rebuild reads follows as soon as the NOTIFY arrives.
        yield* eventually(
          Effect.flatMap(currentOfThisReplica, (tuning) =>
            tuning.daily_mix.taste_weight === 3 ? Effect.void : Effect.fail("stale"),
          ),
        )
        // And the other way round.
        yield* admin.client.tuning.patch({ payload: { scope: "daily_mix", changes: { taste_weight: 0.5 } } })
        expect((yield* onOther.tuning.get()).scopes.daily_mix.current.taste_weight).toBe(0.5)
        yield* admin.client.tuning.reset({ payload: { scope: "daily_mix" } })
        expect((yield* onOther.tuning.get()).scopes.daily_mix.current).toEqual(SHIPPED_TUNING.daily_mix)
      }),
    )

    it.scoped(
      "shipped defaults are re-seeded at boot without overwriting tuned rows; a row missing a newer field takes its shipped value",
      () =>
        Effect.gen(function* () {
          const admin = yield* shippedTuningNoAudit
          const sql = yield* SqlClient.SqlClient
          yield* admin.client.tuning.patch({ payload: { scope: "radio", changes: { similarity_weight: 4 } } })
          // A scope row lost, and a row written before `mood_scale` existed.
          yield* sql`DELETE FROM recommendation_tuning WHERE scope = 'discovery'`
          yield* sql`UPDATE recommendation_tuning SET current = (current - 'mood_scale') || '{"era_scale": 0.2}' WHERE scope = 'taste'`
          yield* secondReplica() // boots: seeds
          const rows = yield* storedRows
          expect(rows.discovery).toEqual(SHIPPED_TUNING.discovery)
          expect(rows.radio).toMatchObject({ similarity_weight: 4 })
          expect(rows.taste).not.toHaveProperty("mood_scale")
          const view = yield* admin.client.tuning.get()
          expect(view.scopes.taste.current).toMatchObject({
            era_scale: 0.2,
            mood_scale: SHIPPED_TUNING.taste.mood_scale,
          })
          expect(view.scopes.radio.current.similarity_weight).toBe(4)
          // Patching the old row fills the missing field and audits only what changed.
          const count = (yield* auditRows).length
          yield* admin.client.tuning.patch({ payload: { scope: "taste", changes: { era_scale: 0.3 } } })
          expect((yield* storedRows).taste).toMatchObject({ era_scale: 0.3, mood_scale: 0.5 })
          expect((yield* auditRows).at(-1)!.diff).toEqual([{ field: "era_scale", old: 0.2, new: 0.3 }])
          expect(yield* auditRows).toHaveLength(count + 1)
          yield* admin.client.tuning.reset({ payload: { scope: "taste" } })
          yield* admin.client.tuning.reset({ payload: { scope: "radio" } })
        }),
    )
  },
)
