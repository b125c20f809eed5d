import {
  Headers,
  HttpApi,
  HttpApiBuilder,
  HttpIncomingMessage,
  HttpMethod,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
} from "@effect/platform"
import type { HttpApiDecodeError } from "@effect/platform/HttpApiError"
import {
  apiErrorInfo,
  DatabaseUnavailable,
  errorBody,
  findBadJsonText,
  findBadUrlText,
  jsonNestsDeeperThan,
  MAX_JSON_DEPTH,
  TonearmApi,
} from "@tonearm/core"
import { Cause, Effect, Either, Layer, Option } from "effect"
import { maxImportBytesOf, TonearmConfig } from "../config/TonearmConfig.js"
import { DATABASE_AWAY, inputRefusal, isDatabaseAway } from "../db/sqlErrors.js"

interface RouteShape {
  readonly method: string
  readonly pattern: RegExp
}

/** A route served next to the contract (`:name` marks a path parameter). */
export interface ExtraRoute {
  readonly method: string
  readonly path: string
}

const toPattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\?:[A-Za-z_][A-Za-z0-9_]*\\??/g, "[^/]+")}/?$`)

const routeTable = (extraRoutes: ReadonlyArray<ExtraRoute>): ReadonlyArray<RouteShape> => {
  const routes: Array<RouteShape> = extraRoutes.map(({ method, path }) => ({ method, pattern: toPattern(path) }))
  HttpApi.reflect(TonearmApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, pattern: toPattern(endpoint.path) }),
  })
  return routes
}

const respond = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(errorBody(code, message), { status, headers })

const describeDecodeError = (error: HttpApiDecodeError) => {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "request"
    return `${field}: ${issue.message}`
  })
  return parts.length > 0 ? parts.join("; ") : error.message
}

/**
 * A request that carries no body at all (no length, or length 0: `curl -X POST`, `fetch` without a body)
 * reads as the empty object `{}`, so an endpoint whose payload fields are all optional takes their
 * defaults and one with required fields answers `invalid_request` naming them, instead of "not valid
 * JSON". The platform would parse the missing body as JSON; an empty form body decodes to `{}`.
 */
const emptyBodyAsObject = (request: HttpServerRequest.HttpServerRequest): HttpServerRequest.HttpServerRequest => {
  if (!HttpMethod.hasBody(request.method)) return request
  const { headers } = request
  const length = headers["content-length"]
  const empty = length === undefined ? headers["transfer-encoding"] === undefined : length.trim() === "0"
  const type = headers["content-type"]
  if (!empty || (type !== undefined && !type.toLowerCase().includes("application/json"))) return request
  return request.modify({ headers: Headers.set(headers, "content-type", "application/x-www-form-urlencoded") })
}

/** History uploads (a Spotify zip, a navidrome.db) have their own limit, TONEARM_MAX_IMPORT_BYTES: streamed to disk. */
const isImportUpload = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "POST" && /^\/api\/(?:me|admin)\/imports\/?$/.test(new URL(request.url, "http://x").pathname)

/** Whether a request carries body bytes (a declared length above 0, or a chunked body). */
const hasBodyBytes = (request: HttpServerRequest.HttpServerRequest) => {
  const length = request.headers["content-length"]
  return length === undefined ? request.headers["transfer-encoding"] !== undefined : length.trim() !== "0"
}

/** A JSON route's body (every `/api/` route but the history uploads, which are multipart). */
const isJsonRouteBody = (request: HttpServerRequest.HttpServerRequest) =>
  HttpMethod.hasBody(request.method) &&
  request.url.startsWith("/api/") &&
  !isImportUpload(request) &&
  hasBodyBytes(request)

const isJsonType = (type: string | undefined) => {
  if (type === undefined) return true
  const lower = type.toLowerCase()
  return lower.includes("application/json") || /^application\/[^;]*\+json/.test(lower)
}

/**
 * The request with its body already read as `text` (the platform reads a body once): a JSON route's body is read
 * here, checked against the text rule, and the handler decodes the same text.
 */
const withBodyText = (
  request: HttpServerRequest.HttpServerRequest,
  text: string,
  parsed: Either.Either<unknown, unknown>,
): HttpServerRequest.HttpServerRequest => {
  const read = Effect.succeed(text)
  // Parsed once, by the check: the handler's decode reads the same value.
  const json = Either.match(parsed, {
    onLeft: (cause) => Effect.fail(new HttpServerError.RequestError({ request, reason: "Decode", cause })),
    onRight: Effect.succeed,
  })
  // A modified copy (new headers, a remote address) keeps the text: its body stream is already read.
  const modify: HttpServerRequest.HttpServerRequest["modify"] = (options) =>
    withBodyText(request.modify(options), text, parsed)
  const overrides: Record<PropertyKey, unknown> = { text: read, json, modify }
  return new Proxy(request, {
    get: (target, property, receiver) =>
      Object.hasOwn(overrides, property) ? overrides[property] : Reflect.get(target, property, receiver),
  })
}

/**
 * The text rule of core's `inputText` on a JSON body: 400 naming the field for NUL, unpaired surrogates or nesting
 * beyond MAX_JSON_DEPTH; otherwise the request to hand on, its body read. A body that is not JSON at all is left
 * for the platform's decoder to refuse (400 "not valid JSON").
 */
const checkJsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(request.text, (text) => {
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH))
      return respond(400, "invalid_request", `body: nested deeper than ${MAX_JSON_DEPTH} levels`)
    const parsed = Either.try(() => JSON.parse(text) as unknown)
    const bad = Either.isRight(parsed) ? findBadJsonText(parsed.right) : undefined
    return bad === undefined
      ? withBodyText(request, text, parsed)
      : respond(400, "invalid_request", `${bad.field}: ${bad.reason}`)
  })

const isTagged = (value: unknown, tag: string): value is { readonly _tag: string } =>
  typeof value === "object" && value !== null && (value as { _tag?: unknown })._tag === tag

/** Body read failures arrive as `RequestError` defects (the platform reads bodies with `orDie`). */
const bodyFailure = (value: unknown, maxBodyBytes: number) => {
  if (!isTagged(value, "RequestError")) return undefined
  const { reason, cause } = value as unknown as { reason: string; cause?: unknown }
  if (reason !== "Decode") return undefined
  if (cause instanceof Error && cause.message === "maxBytes exceeded") {
    return respond(413, "payload_too_large", `request body exceeds ${maxBodyBytes} bytes`)
  }
  return respond(400, "invalid_request", "request body is not valid JSON")
}

/**
 * The one place failures become responses. Typed API errors carry their code and status; decode errors
 * become `invalid_request` naming the field; unknown paths 404 and known paths with the wrong method 405;
 * oversized bodies 413 before they are read; anything else is logged and answered 500 `internal`.
 * `extraRoutes` are the non-contract routes mounted beside it (the caller knows them; this layer does not),
 * so a wrong method on one of them is 405 rather than 404.
 */
export const makeErrorEnvelopeLive = (extraRoutes: ReadonlyArray<ExtraRoute>) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* TonearmConfig
      const { maxBodyBytes } = config
      const maxImportBytes = maxImportBytesOf(config)
      const routes = routeTable(extraRoutes)

      const routeMiss = (request: HttpServerRequest.HttpServerRequest) => {
        const path = new URL(request.url, "http://localhost").pathname
        const allowed = routes.filter((route) => route.pattern.test(path)).map((route) => route.method)
        if (allowed.length === 0) return respond(404, "not_found", `no route for ${path}`)
        const allow = [...new Set(allowed.includes("GET") ? [...allowed, "HEAD"] : allowed)].join(", ")
        return respond(405, "method_not_allowed", `${request.method} is not allowed here; use ${allow}`, { allow })
      }

      const toResponse = (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest, limit: number) => {
        // An interrupt-only cause holds no failure: the client went away, nothing to answer.
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failure = Cause.failureOption(cause)
        const value = Option.isSome(failure) ? failure.value : Option.getOrUndefined(Cause.dieOption(cause))
        const info = apiErrorInfo(value)
        if (info !== undefined) {
          // 503 `service_unavailable` names a dependency that is down (our own words, no internals): kept.
          // So does 502 (`renderer_unreachable`, `renderer_error`): a network speaker failed, not the server.
          if (info.status >= 500 && info.status !== 503 && info.status !== 502)
            return Effect.as(Effect.logError("request failed", cause), respond(500, "internal", "internal error"))
          const headers: Record<string, string> =
            info.retryAfterSeconds !== undefined ? { "retry-after": String(info.retryAfterSeconds) } : {}
          return Effect.succeed(respond(info.status, info.code, info.message, headers))
        }
        if (isTagged(value, "HttpApiDecodeError")) {
          return Effect.succeed(
            respond(400, "invalid_request", describeDecodeError(value as unknown as HttpApiDecodeError)),
          )
        }
        if (isTagged(value, "RouteNotFound")) return Effect.succeed(routeMiss(request))
        const body = bodyFailure(value, limit)
        if (body !== undefined) return Effect.succeed(body)
        // A storage failure that reached here unconverted, while the database is away: 503, not 500.
        if (isDatabaseAway(value))
          return Effect.succeed(
            respond(503, DatabaseUnavailable.code, DATABASE_AWAY.message, {
              "retry-after": String(DATABASE_AWAY.retry_after_seconds),
            }),
          )
        const input = inputRefusal(value)
        if (input !== undefined)
          return Effect.as(
            Effect.logWarning(`${request.method} ${new URL(request.url, "http://x").pathname}: ${input}`),
            respond(400, "invalid_request", input),
          )
        return Effect.as(
          Effect.logError(`${request.method} ${request.url} failed`, cause),
          respond(500, "internal", "internal error"),
        )
      }

      return HttpApiBuilder.middleware((app) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const declared = Number(request.headers["content-length"] ?? "0")
          const limit = isImportUpload(request) ? maxImportBytes : maxBodyBytes
          // Answer before reading a byte (the connection then closes, as after every 413, below).
          if (declared > limit) return respond(413, "payload_too_large", `request body exceeds ${limit} bytes`)
          const badUrl = findBadUrlText(request.url)
          // A path that cannot name anything (NUL, broken escapes) is not found; a bad query value is the client's 400.
          if (badUrl !== undefined)
            return badUrl.field === "path"
              ? respond(404, "not_found", `no resource at that address: its path ${badUrl.reason}`)
              : respond(400, "invalid_request", `${badUrl.field}: ${badUrl.reason}`)
          if (isJsonRouteBody(request) && !isJsonType(request.headers["content-type"]))
            return respond(
              415,
              "unsupported_media_type",
              "this route takes a JSON body: send it with content-type application/json",
            )
          return yield* Effect.gen(function* () {
            const checked = isJsonRouteBody(request) ? yield* checkJsonBody(request) : request
            if (HttpServerResponse.isServerResponse(checked)) return checked
            return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, emptyBodyAsObject(checked))
          }).pipe(
            HttpIncomingMessage.withMaxBodySize(Option.some(limit)),
            Effect.catchAllCause((cause) => toResponse(cause, request, limit)),
          )
        }).pipe(
          // A 413's body is never read to its end (refused by its length, or cut at the limit when streamed): close
          // the connection, or a client that reuses it sends its next request into the rest and is reset.
          Effect.map((response) =>
            response.status === 413 ? HttpServerResponse.setHeader(response, "connection", "close") : response,
          ),
        ),
      )
    }),
  )
