import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { RebuildRun, RebuildRunId } from "@tonearm/core"
import { Effect, Layer } from "effect"
import { Admin, AdminLive, aUser } from "../ownData.js"
import { type RawResponse, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

const codeOf = (response: RawResponse) => (response.json as { error: { code: string } }).error.code

const profilesBuilt = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM taste_profiles`, (rows) => rows[0]!.n),
)

/** Polls the run until it leaves `running`. */
const finished = (id: RebuildRunId) =>
  Effect.gen(function* () {
    const admin = yield* Admin
    for (let i = 0; i < 200; i++) {
      const run: RebuildRun = yield* admin.client.rebuilds.status({ path: { id } })
      if (run.state !== "running") return run
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
    }
    throw new Error("the rebuild run never finished")
  })

layer(AdminLive().pipe(Layer.provideMerge(TestServerLive())), { excludeTestServices: true, timeout: "120 seconds" })(
  "admin rebuild routes",
  (it) => {
    it.effect(
      "POST /api/admin/recommendation-rebuilds {username} answers 202 {id, total} and rebuilds that user in the background",
      () =>
        Effect.gen(function* () {
          const admin = yield* Admin
          const listener = yield* aUser("listener")
          const bystander = yield* aUser("bystander")
          const [started, response] = yield* admin.client.rebuilds.start({
            payload: { username: `Listener${listener.user.username.slice("listener".length)}` }, // any case
            withResponse: true,
          })
          expect(response.status).toBe(202)
          expect(started.total).toBe(1)
          const run = yield* finished(started.id)
          expect(run).toMatchObject({ id: started.id, state: "done", total: 1, done: 1, failed: 0 })
          expect(run.finished_at).not.toBeNull()
          const playlists = yield* listener.client.playlists.list()
          expect(playlists.some((playlist) => playlist.system_variant === "for_you")).toBe(true)
          // Only the named user was rebuilt.
          expect(playlists.length).toBeGreaterThan(0)
          expect((yield* bystander.client.playlists.list()).some((playlist) => playlist.system_variant !== null)).toBe(
            false,
          )
        }),
    )

    it.effect("POST {all: true} rebuilds every user and GET reports progress until done", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        yield* aUser("third")
        const sql = yield* SqlClient.SqlClient
        const users = (yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM users`)[0]!.n
        expect(users).toBeGreaterThanOrEqual(2)
        const started = yield* admin.client.rebuilds.start({ payload: { all: true } })
        expect(started.total).toBe(users)
        const run = yield* finished(started.id)
        expect(run).toMatchObject({ state: "done", total: users, done: users, failed: 0 })
        expect(yield* profilesBuilt).toBe(users)
      }),
    )

    it.effect("an unknown username is 404 not_found and starts nothing", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const response = yield* rawJson(
          "POST",
          "/api/admin/recommendation-rebuilds",
          { username: "nobody" },
          admin.token,
        )
        expect(response.status).toBe(404)
        expect(codeOf(response)).toBe("not_found")
      }),
    )

    it.effect("a body with both or neither of username and all is 400 invalid_request and stores nothing", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const sql = yield* SqlClient.SqlClient
        yield* sql`DELETE FROM taste_profiles`
        for (const body of [
          { username: "listener", all: true },
          {},
          { all: false },
          { username: "" },
          { all: "yes" },
        ]) {
          const response = yield* rawJson("POST", "/api/admin/recommendation-rebuilds", body, admin.token)
          expect(response.status).toBe(400)
          expect(codeOf(response)).toBe("invalid_request")
        }
        // Runs live in memory and a refused body starts none; a background rebuild would write a profile within this.
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
        expect(yield* profilesBuilt).toBe(0)
      }),
    )

    it.effect("the rebuild routes are admin only: 403 forbidden for a listener, 401 without a session", () =>
      Effect.gen(function* () {
        const listener = yield* aUser("listener")
        const before = yield* profilesBuilt
        const start = yield* rawJson("POST", "/api/admin/recommendation-rebuilds", { all: true }, listener.token)
        expect(start.status).toBe(403)
        expect(codeOf(start)).toBe("forbidden")
        const status = yield* rawJson(
          "GET",
          "/api/admin/recommendation-rebuilds/00000000-0000-4000-8000-000000000000",
          undefined,
          listener.token,
        )
        expect(status.status).toBe(403)
        const anonymous = yield* rawJson("POST", "/api/admin/recommendation-rebuilds", { all: true })
        expect(anonymous.status).toBe(401)
        expect(yield* profilesBuilt).toBe(before)
      }),
    )

    it.effect("GET of an unknown run id is 404, of a malformed id 400", () =>
      Effect.gen(function* () {
        const admin = yield* Admin
        const unknown = yield* rawJson(
          "GET",
          "/api/admin/recommendation-rebuilds/00000000-0000-4000-8000-000000000000",
          undefined,
          admin.token,
        )
        expect(unknown.status).toBe(404)
        expect(codeOf(unknown)).toBe("not_found")
        const malformed = yield* rawJson("GET", "/api/admin/recommendation-rebuilds/not-a-uuid", undefined, admin.token)
        expect(malformed.status).toBe(400)
        expect(codeOf(malformed)).toBe("invalid_request")
      }),
    )
  },
)
