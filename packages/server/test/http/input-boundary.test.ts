import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { expect, layer } from "@effect/vitest"
import { InvalidRequest } from "@tonearm/core"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { orInternal } from "../../src/db/sqlErrors.js"
import { AdminLive, aUser } from "../ownData.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 1: no 5xx from any input. One boundary rule for text (NUL, unpaired surrogates), nesting, content
 * types and numbers beyond their column; each answers 400 (415 for a body that is not JSON) naming what was wrong,
 * and nothing is stored.
 */
const playlistsNamed = (ownerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ name: string }>`SELECT name FROM playlists WHERE owner_id = ${ownerId} ORDER BY name`, (rows) =>
      rows.map((row) => row.name),
    ),
  )

layer(AdminLive().pipe(Layer.provideMerge(TestServerLive())), { excludeTestServices: true })(
  "the input boundary",
  (it) => {
    it.effect("a NUL in a JSON text field is 400 naming the field, and nothing is stored", () =>
      Effect.gen(function* () {
        const ana = yield* aUser("ana")
        const response = yield* raw("POST", "/api/playlists", {
          body: JSON.stringify({ name: "Road\u0000Trip" }),
          token: ana.token,
        })
        expect(response.status, response.text).toBe(400)
        expect(response.json).toEqual({
          error: { code: "invalid_request", message: "name: must not contain a NUL character" },
        })
        const nested = yield* raw("PATCH", "/api/me", {
          body: '{"display_name": "x\\u0000y"}',
          token: ana.token,
        })
        expect(nested.status, nested.text).toBe(400)
        expect((nested.json as { error: { message: string } }).error.message).toContain("display_name")
        const surrogate = yield* raw("POST", "/api/playlists", { body: '{"name": "a\\ud800b"}', token: ana.token })
        expect(surrogate.status, surrogate.text).toBe(400)
        expect(yield* playlistsNamed(ana.user.id)).toEqual([])
        // The same routes still take good input, read once by the boundary and decoded by the handler.
        const fine = yield* raw("POST", "/api/playlists", {
          body: JSON.stringify({ name: "Road Trip 🎧" }),
          token: ana.token,
        })
        expect(fine.status, fine.text).toBe(201)
        expect(yield* playlistsNamed(ana.user.id)).toEqual(["Road Trip 🎧"])
      }),
    )

    it.effect(
      "a NUL or broken percent-encoding is 400 in a query, 404 in a path (the API, Subsonic, the static files)",
      () =>
        Effect.gen(function* () {
          const ben = yield* aUser("ben")
          for (const path of ["/api/search?q=ab%00c", "/api/library/albums?genre=%00", "/api/search?q=%E0%A4%A"]) {
            const response = yield* raw("GET", path, { token: ben.token })
            expect(response.status, path).toBe(400)
            expect((response.json as { error: { code: string } }).error.code, path).toBe("invalid_request")
          }
          const subsonic = yield* raw("GET", "/rest/ping.view?u=ben%00&p=x&c=t&v=1.16.1")
          expect(subsonic.status).toBe(400)
          // A path that cannot name anything is not found (the static files, an id).
          for (const path of [
            "/index.html%00.js",
            "/assets/%00",
            "/api/playlists/%00",
            "/api/tracks/%ED%A0%80/lyrics",
          ]) {
            const response = yield* raw("GET", path, { token: ben.token })
            expect(response.status, path).toBe(404)
            expect((response.json as { error: { code: string } }).error.code, path).toBe("not_found")
          }
        }),
    )

    it.effect("JSON nested 20,000 deep is 400 before it is decoded", () =>
      Effect.gen(function* () {
        const cy = yield* aUser("cy")
        const deep = `{"name": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`
        const response = yield* raw("POST", "/api/playlists", { body: deep, token: cy.token })
        expect(response.status, response.text).toBe(400)
        expect((response.json as { error: { message: string } }).error.message).toContain("nested deeper")
      }),
    )

    it.effect("a body that is not JSON on a JSON route is 415 unsupported_media_type; the uploads keep multipart", () =>
      Effect.gen(function* () {
        const dee = yield* aUser("dee")
        const boundary = "----tonearm-boundary"
        const form = `--${boundary}\r\ncontent-disposition: form-data; name="name"\r\n\r\nMix\r\n--${boundary}--\r\n`
        const multipart = yield* raw("POST", "/api/playlists", {
          body: form,
          token: dee.token,
          headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        })
        expect(multipart.status, multipart.text).toBe(415)
        expect((multipart.json as { error: { code: string } }).error.code).toBe("unsupported_media_type")
        const text = yield* raw("POST", "/api/playlists", {
          body: "name=Mix",
          token: dee.token,
          headers: { "content-type": "text/plain" },
        })
        expect(text.status).toBe(415)
        // An upload route takes its multipart form (a form without the file is the route's own 400).
        const upload = yield* raw("POST", "/api/me/imports", {
          body: form,
          token: dee.token,
          headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
        })
        expect(upload.status, upload.text).toBe(400)
        expect(yield* playlistsNamed(dee.user.id)).toEqual([])
      }),
    )

    it.effect("a value PostgreSQL refuses (out of range, NUL) is the client's 400 from orInternal, not Internal", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const refusalOf = <A>(statement: Effect.Effect<A, SqlError>) =>
          Effect.map(Effect.exit(orInternal("probe")(statement)), (exit) =>
            Exit.isFailure(exit) ? Option.getOrUndefined(Cause.dieOption(exit.cause)) : undefined,
          )
        const overflow = yield* refusalOf(sql`SELECT ${"2147483648"}::int AS n`)
        expect(overflow).toBeInstanceOf(InvalidRequest)
        expect((overflow as InvalidRequest).message).toBe("a number in the request is out of range")
        const nul = yield* refusalOf(sql`SELECT ${"a\u0000b"}::text AS t`)
        expect(nul).toBeInstanceOf(InvalidRequest)
        // Any other storage failure stays Internal (a 500 that is logged).
        const broken = yield* Effect.flip(orInternal("probe")(sql`SELECT * FROM no_such_table`))
        expect(broken._tag).toBe("Internal")
      }),
    )

    it.effect("a number beyond its column (year_from=2147483648) is 400, not 500", () =>
      Effect.gen(function* () {
        const eve = yield* aUser("eve")
        for (const path of [
          "/api/library/albums?year_from=2147483648",
          "/api/library/albums?year_to=-2147483649",
          "/api/library/albums?limit=10&offset=99999999999",
        ]) {
          const response = yield* raw("GET", path, { token: eve.token })
          expect(response.status, `${path}: ${response.text}`).toBeLessThan(500)
        }
        const response = yield* raw("GET", "/api/library/albums?year_from=2147483648", { token: eve.token })
        expect(response.status).toBe(400)
      }),
    )
  },
)
