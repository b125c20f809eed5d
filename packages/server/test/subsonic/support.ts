import { createHash, randomBytes } from "node:crypto"
import { expect } from "@effect/vitest"
import { SubsonicJsonResponse } from "@tonearm/core"
import { Effect, Either, Schema } from "effect"
import { type RawResponse, raw } from "../support/raw.js"
import { xsdProblems } from "./xsdShape.js"

export type Auth = Readonly<Record<string, string>>
export type Params = Readonly<Record<string, string | number | boolean | ReadonlyArray<string | number>>>

/** u + p (plain) */
export const withPassword = (username: string, password: string): Auth => ({ u: username, p: password })
/** u + p as `enc:` hex */
export const withEncodedPassword = (username: string, password: string): Auth => ({
  u: username,
  p: `enc:${Buffer.from(password, "utf8").toString("hex")}`,
})
/** u + t + s against the app password */
export const withToken = (username: string, appPassword: string): Auth => {
  const s = randomBytes(6).toString("hex")
  return {
    u: username,
    s,
    t: createHash("md5")
      .update(appPassword + s)
      .digest("hex"),
  }
}
export const withApiKey = (apiKey: string): Auth => ({ apiKey })

export const query = (params: Params): string => {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) {
    if (Array.isArray(value)) for (const item of value) search.append(key, String(item))
    else search.append(key, String(value))
  }
  return search.toString()
}

/**
 * Each call comes from its own client address (X-Forwarded-For, one trusted hop by default), so the failures
 * these tests make on purpose count against the user names, never add up against one shared address.
 */
let calls = 0
export const freshAddress = () => {
  calls += 1
  return { "x-forwarded-for": `10.${(calls >> 16) & 255}.${(calls >> 8) & 255}.${calls & 255}` }
}

export interface SubsonicAnswer {
  readonly http: RawResponse
  /** `subsonic-response` of a JSON answer. */
  readonly body: Record<string, unknown> & { status: string; error?: { code: number; message: string } }
}

const decodeJson = Schema.decodeUnknownEither(SubsonicJsonResponse, { onExcessProperty: "error" })

/**
 * One raw call in JSON (`f=json`): the answer must decode against the OpenSubsonic response schemas, with no
 * field the schemas don't know.
 */
export const callJson = (
  method: string,
  params: Params,
  auth: Auth,
  options: { post?: boolean; view?: boolean } = {},
) =>
  Effect.gen(function* () {
    const path = `/rest/${method}${options.view === false ? "" : ".view"}`
    const all = query({ ...auth, c: "vitest", v: "1.16.1", f: "json", ...params })
    const http = options.post
      ? yield* raw("POST", path, {
          body: all,
          headers: { "content-type": "application/x-www-form-urlencoded", ...freshAddress() },
        })
      : yield* raw("GET", `${path}?${all}`, { headers: freshAddress() })
    expect(http.headers.get("content-type")).toContain("application/json")
    const decoded = decodeJson(http.json)
    if (Either.isLeft(decoded))
      throw new Error(`${method}: JSON answer off the schema: ${decoded.left.message}\n${http.text}`)
    return { http, body: (http.json as { "subsonic-response": SubsonicAnswer["body"] })["subsonic-response"] }
  })

/** One raw call in XML (the default): the answer must have the XSD's shape. */
export const callXml = (method: string, params: Params, auth: Auth) =>
  Effect.gen(function* () {
    const http = yield* raw("GET", `/rest/${method}?${query({ ...auth, c: "vitest", v: "1.16.1", ...params })}`, {
      headers: freshAddress(),
    })
    expect(http.headers.get("content-type")).toContain("application/xml")
    expect(xsdProblems(http.text)).toEqual([])
    return http
  })

/** Both formats; the JSON body is returned and the XML must agree on status and error code. */
export const call = (method: string, params: Params, auth: Auth) =>
  Effect.gen(function* () {
    const [json, xml] = yield* Effect.all([callJson(method, params, auth), callXml(method, params, auth)])
    expect(xml.text).toContain(`status="${json.body.status}"`)
    if (json.body.error !== undefined) expect(xml.text).toContain(`<error code="${json.body.error.code}"`)
    return json.body
  })

/** A call that must succeed (status ok) in both formats. */
export const ok = (method: string, params: Params, auth: Auth) =>
  Effect.tap(call(method, params, auth), (body) => {
    if (body.status !== "ok") throw new Error(`${method} failed: ${JSON.stringify(body.error)}`)
  })

/** A call that changes something: made once, in one format (JSON by default), still checked against its schema. */
export const once = (method: string, params: Params, auth: Auth, format: "json" | "xml" = "json") =>
  Effect.gen(function* () {
    if (format === "json") {
      const { body } = yield* callJson(method, params, auth)
      return body
    }
    const http = yield* callXml(method, params, auth)
    const status = /status="(ok|failed)"/.exec(http.text)?.[1] ?? "none"
    const code = /<error code="(\d+)"/.exec(http.text)?.[1]
    return {
      status,
      ...(code === undefined ? {} : { error: { code: Number(code), message: "" } }),
      xml: http.text,
    } as SubsonicAnswer["body"]
  })

export const onceOk = (method: string, params: Params, auth: Auth, format: "json" | "xml" = "json") =>
  Effect.tap(once(method, params, auth, format), (body) => {
    if (body.status !== "ok") throw new Error(`${method} failed: ${JSON.stringify(body)}`)
  })

export const onceFails = (method: string, params: Params, auth: Auth, code: number, format: "json" | "xml" = "json") =>
  Effect.tap(once(method, params, auth, format), (body) => {
    expect(body.status).toBe("failed")
    expect(body.error?.code).toBe(code)
  })

/** A call that must fail with this Subsonic error code in both formats. */
export const fails = (method: string, params: Params, auth: Auth, code: number) =>
  Effect.tap(call(method, params, auth), (body) => {
    expect(body.status).toBe("failed")
    expect(body.error?.code).toBe(code)
  })
