import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, FastCheck as fc, Layer, Logger, LogLevel } from "effect"
import { SUBSONIC_METHODS } from "../../src/subsonic/methods/index.js"
import { Admin, AdminLive, aUser, ScannedLive } from "../ownData.js"
import { query, withToken } from "../subsonic/support.js"
import { createAndLogIn } from "../support/accounts.js"
import { fixtureLibrary } from "../support/library.js"
import { type RawResponse, raw, rawJson } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"

/**
 * Issue 29 item 1: a property-based fuzz of every operation of `/openapi.json`, as anonymous, a listener and an
 * admin, and of every Subsonic method: values generated from each operation's own schema, mixed with hostile ones
 * (NUL, unpaired surrogates, huge and negative numbers, wrong types, deep nesting, someone else's ids). The
 * property: no answer is a 5xx, and none takes longer than REQUEST_TIMEOUT_MS. Seeded, so a failure replays.
 */
const { root } = await fixtureLibrary()

const SEED = 29
/** Samples per operation and role (the CI budget: about 3,000 requests in all). */
const SAMPLES = 6
const REQUEST_TIMEOUT_MS = 10_000

type JsonSchema = {
  readonly $ref?: string
  readonly type?: string | ReadonlyArray<string>
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly allOf?: ReadonlyArray<JsonSchema>
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly items?: JsonSchema
  readonly format?: string
  readonly minimum?: number
  readonly maximum?: number
}
interface Operation {
  readonly method: string
  readonly path: string
  readonly id: string
  readonly parameters: ReadonlyArray<{ name: string; in: string; schema?: JsonSchema; required?: boolean }>
  readonly body: JsonSchema | undefined
}

/** Values no schema expects: what a fuzzer, a broken client or an attacker sends. */
const hostileString = fc.constantFrom(
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x".repeat(5_000),
  "../../etc/passwd",
  "' OR 1=1 --",
  "%00",
  "🎧".repeat(50),
  "2147483648",
  "-1",
  "NaN",
  "00000000-0000-0000-0000-000000000000",
)
const hostileNumber = fc.constantFrom(0, -1, 2_147_483_648, -2_147_483_649, 1e308, 0.5, Number.MAX_SAFE_INTEGER)
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, [], {}, [[[[[[[[]]]]]]]], { a: { b: { c: "\u0000" } } }),
)

const arbitraryOf = (
  schema: JsonSchema | undefined,
  components: Record<string, JsonSchema>,
  ids: ReadonlyArray<string>,
  depth = 0,
): fc.Arbitrary<unknown> => {
  if (schema === undefined || depth > 6) return hostileValue
  if (schema.$ref !== undefined) {
    const name = schema.$ref.split("/").at(-1)!
    return arbitraryOf(components[name], components, ids, depth + 1)
  }
  const choices = schema.anyOf ?? schema.oneOf
  if (choices !== undefined && choices.length > 0)
    return fc.oneof(...choices.map((choice) => arbitraryOf(choice, components, ids, depth + 1)))
  if (schema.allOf !== undefined && schema.allOf.length > 0) return arbitraryOf(schema.allOf[0], components, ids, depth)
  if (schema.const !== undefined) return fc.constant(schema.const)
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum)
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  let valid: fc.Arbitrary<unknown>
  switch (type) {
    case "string":
      valid =
        schema.format === "uuid"
          ? ids.length > 0
            ? fc.oneof(fc.constantFrom(...ids), fc.uuid())
            : fc.uuid()
          : schema.format === "date-time"
            ? fc.date({ noInvalidDate: true }).map((date) => date.toISOString())
            : fc.string({ maxLength: 40 })
      break
    case "integer":
      valid = fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 1_000 })
      break
    case "number":
      valid = fc.double({ min: schema.minimum ?? -5, max: schema.maximum ?? 1_000, noNaN: true })
      break
    case "boolean":
      valid = fc.boolean()
      break
    case "array":
      valid = fc.array(arbitraryOf(schema.items, components, ids, depth + 1), { maxLength: 4 })
      break
    case "object": {
      const properties = Object.entries(schema.properties ?? {})
      const required = new Set(schema.required ?? [])
      valid = fc.record(
        Object.fromEntries(properties.map(([key, inner]) => [key, arbitraryOf(inner, components, ids, depth + 1)])),
        { requiredKeys: properties.map(([key]) => key).filter((key) => required.has(key)) },
      )
      break
    }
    default:
      valid = hostileValue
  }
  // Mostly well-formed values (so requests reach the rules and the database), a share of hostile ones.
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: hostileValue, weight: 1 })
}

/** A path segment as a client would send it; an unpaired surrogate cannot be encoded, so its bytes go raw. */
const segment = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    return "%ED%A0%80"
  }
}

const asText = (value: unknown) =>
  value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value)

/** One generated request for an operation: its path, query and body. */
const requestOf = (operation: Operation, components: Record<string, JsonSchema>, ids: ReadonlyArray<string>) => {
  const pathParams = operation.parameters.filter((parameter) => parameter.in === "path")
  const queryParams = operation.parameters.filter((parameter) => parameter.in === "query")
  return fc
    .record({
      path: fc
        .tuple(...pathParams.map((parameter) => arbitraryOf(parameter.schema, components, ids)))
        .map((values) =>
          pathParams.reduce(
            (path, parameter, i) => path.replace(`{${parameter.name}}`, segment(asText(values[i]))),
            operation.path,
          ),
        ),
      query: fc.tuple(
        ...queryParams.map((parameter) =>
          fc.option(arbitraryOf(parameter.schema, components, ids), { nil: undefined }),
        ),
      ),
      body: operation.body === undefined ? fc.constant(undefined) : arbitraryOf(operation.body, components, ids),
    })
    .map(({ path, query: values, body }) => {
      const search = new URLSearchParams()
      queryParams.forEach((parameter, i) => {
        if (values[i] !== undefined) search.set(parameter.name, asText(values[i]))
      })
      const text = search.toString()
      return { path: text === "" ? path : `${path}?${text}`, body }
    })
}

/** Destructive-to-the-caller operations go last, so the fuzz keeps its sessions for as long as it can. */
const lastly = (operation: Operation) => (/logout|password|sessions|delete|remove/i.test(operation.id) ? 1 : 0)

/** The answer, or why there was none (no answer in time, the connection dropped): both fail the property. */
const timed = <R>(effect: Effect.Effect<RawResponse, never, R>, label: string) =>
  effect.pipe(
    Effect.timeoutFail({ duration: REQUEST_TIMEOUT_MS, onTimeout: () => `${label}: no answer in 10 s` }),
    Effect.catchAllDefect((defect) => Effect.fail(`${label}: ${String(defect)}`)),
    Effect.either,
  )

/** The measured figure, printed despite the file's quiet logs. */
const report = (line: string) => Effect.logInfo(line).pipe(Logger.withMinimumLogLevel(LogLevel.Info))

/** Real ids of every kind (and, with `users`, everyone's, someone else's included), so generated uuids hit rows. */
const realIds = (users: boolean) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string }>`
        (SELECT id::text FROM tracks LIMIT 3) UNION ALL (SELECT id::text FROM albums LIMIT 2)
        UNION ALL (SELECT id::text FROM artists LIMIT 2)
        UNION ALL (SELECT id::text FROM users WHERE ${users})`,
      (rows) => rows.map((row) => row.id),
    ),
  )

layer(Layer.mergeAll(AdminLive(), ScannedLive).pipe(Layer.provideMerge(TestServerLive({ libraryDir: root }))), {
  excludeTestServices: true,
  timeout: "300 seconds",
})("fuzz", (it) => {
  it.effect(
    "every operation of /openapi.json, as anonymous, a listener and an admin: no 5xx, no hang",
    () =>
      Effect.gen(function* () {
        // Its own admin and listener: the fuzz may sign them out or revoke their sessions; nobody else uses them.
        const admin = yield* createAndLogIn((yield* Admin).client, "fuzz-admin", { isAdmin: true })
        const listener = yield* aUser("fuzzed")
        const document = (yield* raw("GET", "/openapi.json")).json as {
          paths: Record<
            string,
            Record<
              string,
              {
                operationId: string
                parameters?: Operation["parameters"]
                requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
              }
            >
          >
          components: { schemas: Record<string, JsonSchema> }
        }
        const operations: Array<Operation> = Object.entries(document.paths)
          .flatMap(([path, methods]) =>
            Object.entries(methods)
              .filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
              .map(([method, operation]) => ({
                method: method.toUpperCase(),
                path,
                id: operation.operationId,
                parameters: operation.parameters ?? [],
                body: operation.requestBody?.content?.["application/json"]?.schema,
              })),
          )
          // The event stream answers at once and never ends: its own tests cover it (a body read here would wait forever).
          .filter((operation) => operation.path !== "/api/events/stream")
          .sort((a, b) => lastly(a) - lastly(b))
        expect(operations.length).toBeGreaterThan(100)
        // Real ids of every kind (the listener's own and someone else's) so generated uuids hit real rows too.
        const ids = yield* realIds(true)

        const failures: Array<string> = []
        let sent = 0
        for (const operation of operations) {
          const samples = fc.sample(requestOf(operation, document.components.schemas, ids), {
            numRuns: SAMPLES,
            seed: SEED + sent,
          })
          for (const [role, token] of [
            ["anonymous", undefined],
            ["listener", listener.token],
            ["admin", admin.token],
          ] as const) {
            for (const sample of samples) {
              const label = `${role} ${operation.method} ${sample.path}`
              const body = sample.body === undefined ? undefined : JSON.stringify(sample.body)
              const answer = yield* timed(
                raw(operation.method, sample.path, {
                  ...(body !== undefined ? { body } : {}),
                  ...(token !== undefined ? { token } : {}),
                }),
                label,
              )
              sent++
              if (answer._tag === "Left") {
                failures.push(`${answer.left} ${(body ?? "").slice(0, 200)}`)
                continue
              }
              const response = answer.right
              if (response.status >= 500)
                failures.push(`${label} ${body ?? ""} → ${response.status} ${response.text.slice(0, 200)}`)
            }
          }
        }
        yield* report(`fuzz: ${sent} requests over ${operations.length} operations and 3 roles, ${failures.length} 5xx`)
        expect(failures).toEqual([])
      }),
    // Thousands of requests: over a minute on a loaded machine (it timed out at 60 s in a full run).
    240_000,
  )

  it.effect(
    "every Subsonic method with generated parameters: no 5xx, no hang",
    () =>
      Effect.gen(function* () {
        const listener = yield* aUser("subfuzz")
        const password = (yield* rawJson("POST", "/api/me/subsonic-password", {}, listener.token)).json as {
          password: string
        }
        const auth = withToken(listener.user.username, password.password)
        const ids = yield* realIds(false)
        const valueOf = fc.oneof(
          { arbitrary: fc.constantFrom(...ids), weight: 2 },
          { arbitrary: fc.integer({ min: -3, max: 600 }).map(String), weight: 2 },
          { arbitrary: fc.string({ maxLength: 20 }), weight: 1 },
          { arbitrary: hostileString, weight: 2 },
        )
        const failures: Array<string> = []
        let sent = 0
        for (const method of SUBSONIC_METHODS) {
          const names = Object.keys(method.params)
          const samples = fc.sample(
            fc.record(Object.fromEntries(names.map((name) => [name, fc.option(valueOf, { nil: undefined })]))),
            { numRuns: SAMPLES * 2, seed: SEED + sent },
          )
          for (const params of samples) {
            const given = Object.fromEntries(
              Object.entries(params).filter(([, value]) => value !== undefined),
            ) as Record<string, string>
            const path = `/rest/${method.name}.view?${query({ ...auth, c: "fuzz", v: "1.16.1", f: "json", ...given })}`
            const answer = yield* timed(raw("GET", path), path)
            sent++
            if (answer._tag === "Left") {
              failures.push(answer.left)
              continue
            }
            const response = answer.right
            if (response.status >= 500) failures.push(`${path} → ${response.status} ${response.text.slice(0, 200)}`)
          }
        }
        yield* report(`fuzz: ${sent} Subsonic requests over ${SUBSONIC_METHODS.length} methods, ${failures.length} 5xx`)
        expect(failures).toEqual([])
      }),
    // Thousands of requests: over a minute on a loaded machine (it timed out at 60 s in a full run).
    240_000,
  )
})
