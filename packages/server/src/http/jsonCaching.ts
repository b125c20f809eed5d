import { createHash } from "node:crypto"
import { promisify } from "node:util"
import * as zlib from "node:zlib"
import { HttpApiBuilder, HttpBody, HttpMiddleware, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** Smaller JSON bodies go as they are: compressing them costs more than it saves. */
export const COMPRESS_MIN_BYTES = 1024

/** Every JSON answer depends on who asks (bearer or cookie) and on the encodings the client takes. */
export const JSON_VARY = "Authorization, Cookie, Accept-Encoding"

/** Per user, and revalidated on every use (a library scan or a like changes the answer, hence the ETag). */
export const JSON_CACHE_CONTROL = "private, no-cache"

const gzip = promisify(zlib.gzip)
const brotli = promisify(zlib.brotliCompress)

/** The encoding to use for an `Accept-Encoding` header: br before gzip, anything with q=0 refused. */
export const negotiateEncoding = (header: string | undefined): "br" | "gzip" | undefined => {
  if (header === undefined) return undefined
  const accepted = new Map<string, number>()
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";")
    const q = params.map((param) => param.trim()).find((param) => param.startsWith("q="))
    const quality = q === undefined ? 1 : Number(q.slice(2))
    if (name !== undefined && name !== "") accepted.set(name, Number.isFinite(quality) ? quality : 0)
  }
  const takes = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0
  return takes("br") ? "br" : takes("gzip") ? "gzip" : undefined
}

/** Weak comparison (RFC 9110 13.1.2): `W/` is ignored on both sides; `*` matches any current answer. */
export const etagMatches = (ifNoneMatch: string | undefined, etag: string): boolean => {
  if (ifNoneMatch === undefined) return false
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "")
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag))
}

/** A weak validator of the JSON bytes: the same answer for a user has the same tag whatever its encoding. */
export const jsonEtag = (body: Uint8Array) => `W/"${createHash("sha1").update(body).digest("base64url")}"`

/**
 * JSON answers of the API: a successful GET carries an ETag of its body (private, revalidated each time) and a
 * matching If-None-Match is answered 304 with no body; bodies of COMPRESS_MIN_BYTES or more are compressed (br
 * or gzip, as the client accepts) off the event loop. Audio, images, SSE and the web app's files are not JSON
 * bytes and pass untouched, as does `/rest` (Subsonic apps).
 */
export const jsonCaching = HttpMiddleware.make((app) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const response = yield* app
    const body = response.body
    if (
      !request.url.startsWith("/api/") ||
      body._tag !== "Uint8Array" ||
      !body.contentType.startsWith("application/json")
    )
      return response
    let answer = HttpServerResponse.setHeader(response, "vary", JSON_VARY)
    if (request.method === "GET" && response.status === 200 && response.headers.etag === undefined) {
      const etag = jsonEtag(body.body)
      answer = HttpServerResponse.setHeaders(answer, { etag, "cache-control": JSON_CACHE_CONTROL })
      if (etagMatches(request.headers["if-none-match"], etag)) {
        return HttpServerResponse.setStatus(HttpServerResponse.setBody(answer, HttpBody.empty), 304)
      }
    }
    if (body.body.length < COMPRESS_MIN_BYTES) return answer
    const encoding = negotiateEncoding(request.headers["accept-encoding"])
    if (encoding === undefined) return answer
    const compressed = yield* Effect.promise(() =>
      encoding === "br"
        ? brotli(body.body, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.body.length,
            },
          })
        : gzip(body.body, { level: 6 }),
    )
    return HttpServerResponse.setHeader(
      HttpServerResponse.setBody(answer, HttpBody.uint8Array(compressed, body.contentType)),
      "content-encoding",
      encoding,
    )
  }),
)

/** Around the whole app (contract routes and the raw ones beside them): the server writes what this returns. */
export const JsonCachingLive = HttpApiBuilder.middleware(jsonCaching)
