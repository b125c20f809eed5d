import {
  HttpApiBuilder,
  HttpApp,
  HttpMiddleware,
  HttpRouter,
  HttpServerRequest,
  HttpServerResponse,
} from "@effect/platform"
import {
  SubsonicErrorCode as Codes,
  isSafeJsonpCallback,
  protocolVersionFailure,
  type SessionUser,
  SUBSONIC_API_VERSION,
  SUBSONIC_SERVER_TYPE,
  SUBSONIC_XML_TEXT_CHILDREN,
  type SubsonicErrorCode,
  SubsonicFailure,
  type SubsonicPayload,
  toXml,
  type XmlObject,
} from "@tonearm/core"
import { Effect, Layer } from "effect"
import { connectionFacts } from "../http/connection.js"
import { TrustedProxies } from "../settings/index.js"
import { SERVER_VERSION } from "../version.js"
import { subsonicAnswerOf } from "./failures.js"
import { SubsonicParams } from "./params.js"
import { SubsonicCredentialsService } from "./SubsonicCredentialsService.js"
import { SubsonicService } from "./SubsonicService.js"

export { OPEN_SUBSONIC_EXTENSIONS } from "./methods/index.js"

/** The raw routes next to the contract, for the error-envelope layer's 404/405 table (OPTIONS: subsonicCors). */
export const SUBSONIC_ROUTES = [
  { method: "GET", path: "/rest/:method" },
  { method: "POST", path: "/rest/:method" },
  { method: "OPTIONS", path: "/rest/:method" },
] as const

/** Request headers a preflight allows when it names none. */
const CORS_DEFAULT_HEADERS = "Accept, Authorization, Content-Type, Range, X-Requested-With"
/** Response headers a page may read beyond the safelisted ones: ranges, downloads, throttling, validators. */
const CORS_EXPOSED_HEADERS = "Accept-Ranges, Content-Disposition, Content-Range, ETag, Retry-After"
const CORS_MAX_AGE_SECONDS = 86_400
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

const isRestPath = (url: string) => url === "/rest" || url.startsWith("/rest/") || url.startsWith("/rest?")

const withCorsHeaders = (
  _request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
) =>
  Effect.succeed(
    HttpServerResponse.setHeaders(response, {
      "access-control-allow-origin": "*",
      "access-control-expose-headers": CORS_EXPOSED_HEADERS,
    }),
  )

/** A preflight: the methods, the headers the browser asks for (header names only), cached for a day. */
const preflight = (request: HttpServerRequest.HttpServerRequest) => {
  const asked = (request.headers["access-control-request-headers"] ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => HEADER_NAME.test(name))
  return HttpServerResponse.empty({
    status: 204,
    headers: {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET, POST, OPTIONS",
      "access-control-allow-headers": asked.length > 0 ? asked.join(", ") : CORS_DEFAULT_HEADERS,
      "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
      // A page on a public origin calling a server on the home network (Chrome's Private Network Access).
      ...(request.headers["access-control-request-private-network"] === "true"
        ? { "access-control-allow-private-network": "true" }
        : {}),
      vary: "Access-Control-Request-Headers, Access-Control-Request-Private-Network",
    },
  })
}

/**
 * CORS for `/rest` (contract "Subsonic compatibility: additions"): Subsonic credentials travel in the query or the
 * form, never in cookies, so any origin may call it and no credentials are allowed. OPTIONS is answered here,
 * before routing; every other answer gets `Access-Control-Allow-Origin: *` as it leaves, whatever made it (a
 * method, a failure, the error envelope's 404/405, audio and images).
 */
export const subsonicCors = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!isRestPath(request.url)) return yield* app
    if (request.method === "OPTIONS") return preflight(request)
    yield* HttpApp.appendPreResponseHandler(withCorsHeaders)
    return yield* app
  }),
)

type Format =
  | { readonly kind: "xml" }
  | { readonly kind: "json" }
  | { readonly kind: "jsonp"; readonly callback: string }

const envelope = (status: "ok" | "failed") => ({
  status,
  version: SUBSONIC_API_VERSION,
  type: SUBSONIC_SERVER_TYPE,
  serverVersion: SERVER_VERSION,
  openSubsonic: true as const,
})

/** One answer in the asked format: XML by default, `f=json`, `f=jsonp&callback=`. */
const render = (format: Format, status: "ok" | "failed", payload: SubsonicPayload, httpStatus = 200, headers = {}) => {
  const body = { ...envelope(status), ...payload }
  if (format.kind === "xml") {
    const xml = toXml("subsonic-response", { xmlns: "http://subsonic.org/restapi", ...body } as XmlObject, {
      textChildren: SUBSONIC_XML_TEXT_CHILDREN,
    })
    return HttpServerResponse.text(xml, { status: httpStatus, contentType: "application/xml; charset=utf-8", headers })
  }
  const json = JSON.stringify({ "subsonic-response": body })
  if (format.kind === "jsonp") {
    return HttpServerResponse.text(`${format.callback}(${json});`, {
      status: httpStatus,
      contentType: "application/javascript; charset=utf-8",
      headers,
    })
  }
  return HttpServerResponse.text(json, { status: httpStatus, contentType: "application/json; charset=utf-8", headers })
}

const failed = (format: Format, code: SubsonicErrorCode, message: string, httpStatus = 200, headers = {}) =>
  render(format, "failed", { error: { code, message } }, httpStatus, headers)

const formatOf = (params: SubsonicParams): Format | SubsonicFailure => {
  const f = params.get("f")
  if (f === "json") return { kind: "json" }
  if (f === "jsonp") {
    const callback = params.get("callback")
    if (callback === undefined || callback === "") {
      return new SubsonicFailure({ code: Codes.missingParameter, message: "Required parameter is missing: callback" })
    }
    if (!isSafeJsonpCallback(callback)) {
      return new SubsonicFailure({ code: Codes.generic, message: "callback must be a JavaScript identifier" })
    }
    return { kind: "jsonp", callback }
  }
  return { kind: "xml" }
}

/** The query string, then (a form POST) the url-encoded body: OpenSubsonic formPost. */
const readParams = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = [...new URL(request.url, "http://localhost").searchParams.entries()]
  const type = request.headers["content-type"]?.toLowerCase() ?? ""
  if (request.method !== "POST" || !type.includes("application/x-www-form-urlencoded")) return new SubsonicParams(query)
  const body = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => []))
  return new SubsonicParams([...query, ...body])
})

const methodName = (raw: string) => (raw.endsWith(".view") ? raw.slice(0, -".view".length) : raw)

const SubsonicRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const subsonic = yield* SubsonicService
    const credentials = yield* SubsonicCredentialsService
    const proxies = yield* TrustedProxies

    const handle = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const route = yield* HttpRouter.RouteContext
      const name = methodName(route.params.method ?? "")
      const params = yield* readParams
      const format = formatOf(params)
      if (format instanceof SubsonicFailure) return failed({ kind: "xml" }, format.code, format.message)
      const method = subsonic.method(name)
      if (method === undefined) return failed(format, Codes.generic, `Unknown method: ${name}`, 404)
      const signIn: Effect.Effect<SessionUser | undefined, unknown> = method.anonymous
        ? Effect.succeed(undefined)
        : Effect.suspend(() => {
            const tooOld = protocolVersionFailure(params.get("v"))
            if (tooOld !== undefined) return Effect.fail(tooOld)
            return Effect.flatMap(proxies.throttleAddresses(connectionFacts(request)), (clientAddresses) =>
              credentials.authenticate(params, clientAddresses),
            )
          })
      return yield* signIn.pipe(
        Effect.flatMap((user) => subsonic.run(method, user, params)),
        Effect.map((answer) =>
          HttpServerResponse.isServerResponse(answer) ? answer : render(format, "ok", answer as SubsonicPayload),
        ),
        Effect.catchAll((error) => {
          // By the error's type (a NotFound's resource, a Conflict's reason), never its text.
          const answer = subsonicAnswerOf(error)
          if (answer !== undefined) {
            return Effect.succeed(failed(format, answer.code, answer.message, answer.httpStatus, answer.headers))
          }
          return Effect.as(
            Effect.logError(`subsonic ${name} failed`, error),
            failed(format, Codes.generic, "Internal error"),
          )
        }),
        Effect.catchAllDefect((defect) =>
          Effect.as(
            Effect.logError(`subsonic ${name} failed`, defect),
            failed(format, Codes.generic, "Internal error"),
          ),
        ),
      )
    })

    yield* router.get("/rest/:method", handle)
    yield* router.post("/rest/:method", handle)
  }),
)

/** The `/rest` routes and their CORS. */
export const SubsonicHttpLive = Layer.merge(SubsonicRoutesLive, HttpApiBuilder.middleware(subsonicCors))
