import * as net from "node:net"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { bearer, makeTonearmClient } from "@tonearm/client-sdk"
import { NotFound, SessionId } from "@tonearm/core"
import { Effect } from "effect"
import { logIn, PASSWORD, signUpFirstAdmin } from "../support/accounts.js"
import { raw, rawJson } from "../support/raw.js"
import { serverUrl, TestServerLive } from "../support/TestServer.js"

const userCount = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM users`, (rows) => rows[0]!.n),
)

const envelope = (code: string) => ({ error: { code, message: expect.any(String) } })

layer(TestServerLive(), { excludeTestServices: true })("error envelope and bad input", (it) => {
  it.effect("malformed JSON is 400 invalid_request and stores nothing", () =>
    Effect.gen(function* () {
      yield* signUpFirstAdmin("admin")
      const before = yield* userCount
      const admin = yield* logIn("admin")
      for (const body of ['{"username": "x", "password": ', "not json at all", "{'single': 'quotes'}"]) {
        const response = yield* raw("POST", "/api/admin/users", { body, token: admin.token })
        expect(response.status).toBe(400)
        expect(response.json).toEqual(envelope("invalid_request"))
      }
      expect(yield* userCount).toBe(before)
    }),
  )

  it.effect("wrong types and missing fields are 400 invalid_request naming the field", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const cases: Array<[unknown, string]> = [
        [{ username: 42, password: PASSWORD }, "username"],
        [{ username: "zed" }, "password"],
        [{ password: PASSWORD }, "username"],
        [{ username: "zed", password: PASSWORD, is_admin: "yes" }, "is_admin"],
        [{ username: "has space", password: PASSWORD }, "username"],
        [{ username: "zed", password: "short" }, "password"],
        [[], "request"],
        [null, "request"],
      ]
      for (const [body, field] of cases) {
        const response = yield* rawJson("POST", "/api/admin/users", body, admin.token)
        expect(response.status).toBe(400)
        expect(response.json).toEqual(envelope("invalid_request"))
        expect((response.json as { error: { message: string } }).error.message).toContain(field)
      }
      const badPath = yield* raw("DELETE", "/api/me/sessions/not-a-uuid", { token: admin.token })
      expect(badPath.status).toBe(400)
      expect((badPath.json as { error: { message: string } }).error.message).toContain("id")
      expect(yield* userCount).toBe(1)
    }),
  )

  it.effect("a 10 MB body is 413 payload_too_large, declared or chunked, and stores nothing", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const big = JSON.stringify({ username: "huge", password: "x".repeat(10 * 1024 * 1024) })
      const base = yield* serverUrl
      // fetch reads the early answer even though the server closes without reading the body.
      const declared = yield* Effect.promise(async () => {
        const response = await fetch(`${base}/api/admin/users`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
          body: big,
        })
        return { status: response.status, json: await response.json() }
      })
      expect(declared).toEqual({ status: 413, json: envelope("payload_too_large") })
      // Chunked: no Content-Length, the limit applies while reading.
      const chunked = yield* Effect.promise(async () => {
        const encoder = new TextEncoder()
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(big))
            controller.close()
          },
        })
        const response = await fetch(`${base}/api/admin/users`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
          body: stream,
          duplex: "half",
        } as RequestInit)
        return { status: response.status, json: await response.json() }
      }).pipe(Effect.catchAllDefect(() => Effect.succeed({ status: 0, json: {} })))
      // The server answers 413 once the limit is crossed; the connection may be cut while the client still sends.
      if (chunked.status !== 0) expect(chunked).toEqual({ status: 413, json: envelope("payload_too_large") })
      expect(yield* userCount).toBe(1)
      expect((yield* admin.client.me.get()).username).toBe("admin")
    }),
  )

  it.effect("unknown routes are 404 not_found and known paths with the wrong method 405 with Allow", () =>
    Effect.gen(function* () {
      const missing = yield* raw("GET", "/api/no/such/route")
      expect(missing.status).toBe(404)
      expect(missing.json).toEqual(envelope("not_found"))
      const wrongMethod = yield* raw("PATCH", "/api/me")
      expect(wrongMethod.status).toBe(405)
      expect(wrongMethod.json).toEqual(envelope("method_not_allowed"))
      expect(wrongMethod.headers.get("allow")).toBe("GET, HEAD")
      const withParam = yield* raw("POST", `/api/me/sessions/${crypto.randomUUID()}`)
      expect(withParam.status).toBe(405)
      expect(withParam.headers.get("allow")).toBe("DELETE")
    }),
  )

  it.effect("HEAD is allowed wherever GET is, with the GET's status and headers and no body", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      for (const [path, token] of [
        ["/healthz", undefined],
        ["/api/me", admin.token],
        ["/api/me/sessions", admin.token],
        ["/openapi.json", undefined],
      ] as const) {
        const get = yield* raw("GET", path, token === undefined ? {} : { token })
        const head = yield* raw("HEAD", path, token === undefined ? {} : { token })
        expect(get.status, path).toBe(200)
        expect(head.status, path).toBe(200)
        expect(head.text, path).toBe("")
        expect(head.headers.get("content-type"), path).toBe(get.headers.get("content-type"))
      }
      const unauthenticated = yield* raw("HEAD", "/api/me")
      expect(unauthenticated.status).toBe(401)
      expect(unauthenticated.text).toBe("")
    }),
  )

  it.effect("the typed client decodes the envelope back into the contract's tagged errors", () =>
    Effect.gen(function* () {
      const admin = yield* logIn("admin")
      const error = yield* admin.client.me
        .deleteSession({ path: { id: SessionId.make(crypto.randomUUID()) } })
        .pipe(Effect.flip)
      expect(error).toBeInstanceOf(NotFound)
      expect(error).toMatchObject({ _tag: "NotFound", message: "no such session" })
      const anonymous = yield* makeTonearmClient({ credentials: bearer("forged") })
      const unauthenticated = yield* anonymous.me.get().pipe(Effect.flip)
      expect(unauthenticated._tag).toBe("Unauthenticated")
    }),
  )

  it.effect("a storage failure answers 500 internal without leaking SQL or a stack", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const admin = yield* logIn("admin")
      yield* sql`ALTER TABLE users RENAME TO users_gone`
      const failed = yield* raw("GET", "/api/me", { token: admin.token }).pipe(
        Effect.ensuring(sql`ALTER TABLE users_gone RENAME TO users`.pipe(Effect.orDie)),
      )
      expect(failed.status).toBe(500)
      expect(failed.json).toEqual({ error: { code: "internal", message: "internal error" } })
      expect(failed.text).not.toMatch(/users|relation|SELECT|at .*\.ts/i)
      // Authentication itself failing is a 500 too, not a 401.
      yield* sql`ALTER TABLE sessions RENAME TO sessions_gone`
      const authFailed = yield* raw("GET", "/api/me", { token: admin.token }).pipe(
        Effect.ensuring(sql`ALTER TABLE sessions_gone RENAME TO sessions`.pipe(Effect.orDie)),
      )
      expect(authFailed.status).toBe(500)
      expect(authFailed.json).toEqual({ error: { code: "internal", message: "internal error" } })
      expect((yield* admin.client.me.get()).username).toBe("admin")
    }),
  )

  it.effect("the server keeps answering on a keep-alive connection after an error", () =>
    Effect.gen(function* () {
      const base = new URL(yield* serverUrl)
      const responses = yield* Effect.promise(
        () =>
          new Promise<string>((resolve, reject) => {
            const socket = net.connect(Number(base.port), base.hostname, () => {
              socket.write(
                "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{bad}",
              )
              socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            })
            let data = ""
            socket.on("data", (chunk) => {
              data += chunk
            })
            socket.on("end", () => resolve(data))
            socket.on("error", reject)
          }),
      )
      expect(responses).toMatch(/^HTTP\/1\.1 400/)
      expect(responses).toMatch(/HTTP\/1\.1 200 OK[\s\S]*"database":true/)
    }),
  )

  it.effect("GET /healthz needs no authentication and says whether the database answers", () =>
    Effect.gen(function* () {
      const anonymous = yield* makeTonearmClient()
      const health = yield* anonymous.system.health()
      expect(health).toMatchObject({ status: "ok", database: true })
    }),
  )

  it.effect("/openapi.json describes the contract and /docs serves Swagger UI, both without auth", () =>
    Effect.gen(function* () {
      const spec = yield* raw("GET", "/openapi.json")
      expect(spec.status).toBe(200)
      const document = spec.json as { paths: Record<string, Record<string, unknown>> }
      expect(Object.keys(document.paths)).toEqual(
        expect.arrayContaining([
          "/api/auth/login",
          "/api/me",
          "/api/me/sessions/{id}",
          "/api/admin/trusted-proxies",
          "/healthz",
        ]),
      )
      expect(JSON.stringify(document.paths["/api/me"])).toContain("unauthenticated")
      const docs = yield* raw("GET", "/docs")
      expect(docs.status).toBe(200)
      expect(docs.headers.get("content-type")).toContain("text/html")
      expect(docs.text).toContain("swagger-ui")
    }),
  )
})
