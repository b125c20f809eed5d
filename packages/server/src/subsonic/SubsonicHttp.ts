import {
  HttpApiBuilder,
  HttpApp,
  HttpMiddleware,
  HttpRouter,
  HttpServerRequest,
  HttpServerResponse,
} from "@effect/platform"
import {
  AlbumId,
  ArtistId,
  SubsonicErrorCode as Codes,
  isSafeJsonpCallback,
  PlaylistId,
  parseCoverArtId,
  protocolVersionFailure,
  type SessionUser,
  SUBSONIC_API_VERSION,
  SUBSONIC_SERVER_TYPE,
  SUBSONIC_XML_TEXT_CHILDREN,
  type SubsonicErrorCode,
  SubsonicFailure,
  type SubsonicPayload,
  TRANSCODE_FORMATS,
  TrackId,
  type TranscodeFormat,
  toXml,
  type XmlObject,
} from "@tonearm/core"
import { Effect, Layer, Option, Schema, type Scope } from "effect"
import { type ConditionalImage, imageResponse } from "../http/conditionalImage.js"
import { connectionFacts } from "../http/connection.js"
import { CoverService, LibraryService } from "../library/index.js"
import { PlaylistCover } from "../playlists/index.js"
import { TrustedProxies } from "../settings/index.js"
import { busyResponse, StreamService } from "../streaming/index.js"
import { SERVER_VERSION } from "../version.js"
import { SubsonicParams } from "./params.js"
import { SubsonicCredentialsService } from "./SubsonicCredentialsService.js"
import { subsonicLyricsMethods } from "./SubsonicLyrics.js"
import { SubsonicService } from "./SubsonicService.js"

/** The OpenSubsonic extensions Tonearm implements. */
export const OPEN_SUBSONIC_EXTENSIONS = [
  { name: "formPost", versions: [1] },
  { name: "apiKeyAuthentication", versions: [1] },
  { name: "transcodeOffset", versions: [1] },
  { name: "songLyrics", versions: [1] },
] as const

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

const COVER_CACHE_CONTROL = "max-age=86400, must-revalidate"

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

const TRANSCODE_FORMAT_SET: ReadonlySet<string> = new Set(TRANSCODE_FORMATS)
const isUuid = Schema.is(Schema.UUID)

/** A number parameter for the transcoder; a bad value is ignored rather than failing playback. */
const positiveNumber = (raw: string | undefined) => {
  const n = raw === undefined ? Number.NaN : Number(raw)
  return Number.isFinite(n) && n >= 0 ? n : undefined
}

const SubsonicRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const subsonic = yield* SubsonicService
    const credentials = yield* SubsonicCredentialsService
    const proxies = yield* TrustedProxies
    const streams = yield* StreamService
    const covers = yield* CoverService
    const collages = yield* PlaylistCover
    const library = yield* LibraryService
    const lyrics = yield* subsonicLyricsMethods

    /** stream and download: the original bytes with Range, or the transcoder's output when asked for. */
    const audio = (params: SubsonicParams, download: boolean) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const id = yield* params.required("id")
        if (!isUuid(id)) return yield* new SubsonicFailure({ code: Codes.notFound, message: "Song not found" })
        const format = params.get("format")
        const response = yield* streams
          .respond(TrackId.make(id), {
            range: request.headers.range,
            ifRange: request.headers["if-range"],
            head: request.method === "HEAD",
            // download always serves the original file, as Subsonic servers do.
            transcode: download
              ? { format: "raw" }
              : {
                  format:
                    format !== undefined && TRANSCODE_FORMAT_SET.has(format) ? (format as TranscodeFormat) : undefined,
                  maxBitRate: positiveNumber(params.get("maxBitRate")),
                  timeOffset: positiveNumber(params.get("timeOffset")),
                },
          })
          .pipe(
            Effect.catchTag("NotFound", () =>
              Effect.fail(new SubsonicFailure({ code: Codes.notFound, message: "Song not found" })),
            ),
            Effect.catchTag("TranscodersBusy", (error) => Effect.succeed(busyResponse(error))),
          )
        if (!download) return response
        const track = (yield* library.tracksByIds([id]))[0]
        const name = track === undefined ? id : `${track.title}`.replace(/["\\\r\n]/g, "_")
        return HttpServerResponse.setHeader(
          response,
          "content-disposition",
          `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
        )
      })

    /** getCoverArt: an album's cover, an artist's image (else its first covered album's), a playlist's collage; `size` px. */
    const coverArt = (user: SessionUser, params: SubsonicParams) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const ifNoneMatch = request.headers["if-none-match"]
        const ref = parseCoverArtId(yield* params.required("id"))
        const size = yield* params.int("size")
        const px = size === undefined || size <= 0 ? undefined : Math.min(2048, Math.max(16, size))
        const noCover = new SubsonicFailure({ code: Codes.notFound, message: "Cover art not found" })
        if (!isUuid(ref.id)) return yield* noCover
        const albumCover = (albumId: string) =>
          covers.albumCover(AlbumId.make(albumId), px, ifNoneMatch) as Effect.Effect<ConditionalImage, unknown>
        const image: Effect.Effect<ConditionalImage, unknown> = Effect.gen(function* () {
          switch (ref.kind) {
            case "album":
              return yield* albumCover(ref.id)
            case "playlist":
              return yield* collages.collage(user.id, PlaylistId.make(ref.id), ifNoneMatch)
            case "artist": {
              // The artist's own image (a local `artist.*`, else a provider's), else its first covered album's.
              const own = yield* Effect.option(covers.artistImage(ArtistId.make(ref.id), px, ifNoneMatch))
              if (Option.isSome(own)) return own.value
              const artist = yield* library.artist(ArtistId.make(ref.id))
              const covered = [...artist.albums, ...artist.appears_on].find((album) => album.cover_art_source !== null)
              if (covered === undefined) return yield* noCover
              return yield* albumCover(covered.id)
            }
            case "any": {
              const track = (yield* library.tracksByIds([ref.id]))[0]
              return yield* albumCover(track?.album_id ?? ref.id)
            }
          }
        })
        return yield* image.pipe(
          Effect.map((found) => imageResponse(found, COVER_CACHE_CONTROL)),
          Effect.catchIf(
            (error) => (error as { _tag?: string })._tag === "NotFound" || error instanceof SubsonicFailure,
            () => Effect.fail(noCover),
          ),
        )
      })

    type Answer = Effect.Effect<
      SubsonicPayload | HttpServerResponse.HttpServerResponse,
      unknown,
      HttpServerRequest.HttpServerRequest | Scope.Scope
    >
    const methods: Record<string, (user: SessionUser, params: SubsonicParams) => Answer> = {
      ping: () => Effect.succeed({}),
      // OpenSubsonic apiKeyAuthentication: whose the key is (any other sign-in answers its user too, as Navidrome does).
      tokenInfo: (user) => Effect.succeed({ tokenInfo: { username: user.username } }),
      getLicense: () => Effect.succeed({ license: { valid: true } }),
      getMusicFolders: () => subsonic.getMusicFolders(),
      getIndexes: subsonic.getIndexes,
      getArtists: subsonic.getArtists,
      getArtist: subsonic.getArtist,
      getArtistInfo: subsonic.getArtistInfo,
      getArtistInfo2: subsonic.getArtistInfo2,
      getAlbum: subsonic.getAlbum,
      getAlbumInfo: (_, params) => subsonic.getAlbumInfo(params),
      getAlbumInfo2: (_, params) => subsonic.getAlbumInfo(params),
      getSong: subsonic.getSong,
      getMusicDirectory: subsonic.getMusicDirectory,
      getAlbumList: subsonic.getAlbumList,
      getAlbumList2: subsonic.getAlbumList2,
      getRandomSongs: subsonic.getRandomSongs,
      getSongsByGenre: subsonic.getSongsByGenre,
      getGenres: () => subsonic.getGenres(),
      search2: subsonic.search2,
      search3: subsonic.search3,
      getPlaylists: subsonic.getPlaylists,
      getPlaylist: subsonic.getPlaylist,
      createPlaylist: subsonic.createPlaylist,
      updatePlaylist: subsonic.updatePlaylist,
      deletePlaylist: subsonic.deletePlaylist,
      stream: (_, params) => audio(params, false),
      download: (_, params) => audio(params, true),
      getCoverArt: coverArt,
      star: subsonic.star,
      unstar: subsonic.unstar,
      getStarred: (user) => subsonic.getStarred(user),
      getStarred2: (user) => subsonic.getStarred2(user),
      scrobble: subsonic.scrobble,
      getNowPlaying: (user) => subsonic.getNowPlaying(user),
      getSimilarSongs: subsonic.getSimilarSongs,
      getSimilarSongs2: subsonic.getSimilarSongs2,
      getTopSongs: subsonic.getTopSongs,
      getPlayQueue: (user) => subsonic.getPlayQueue(user),
      savePlayQueue: subsonic.savePlayQueue,
      getUser: subsonic.getUser,
      getScanStatus: () => subsonic.getScanStatus(),
      getLyrics: (_, params) => lyrics.getLyrics(params),
      getLyricsBySongId: (_, params) => lyrics.getLyricsBySongId(params),
      startScan: subsonic.startScan,
    }

    const handle = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const route = yield* HttpRouter.RouteContext
      const method = methodName(route.params.method ?? "")
      const params = yield* readParams
      const format = formatOf(params)
      if (format instanceof SubsonicFailure) return failed({ kind: "xml" }, format.code, format.message)
      // OpenSubsonic: the extension list answers without credentials.
      if (method === "getOpenSubsonicExtensions") {
        return render(format, "ok", {
          openSubsonicExtensions: OPEN_SUBSONIC_EXTENSIONS.map((e) => ({ ...e, versions: [...e.versions] })),
        })
      }
      const run = methods[method]
      if (run === undefined) return failed(format, Codes.generic, `Unknown method: ${method}`, 404)
      const tooOld = protocolVersionFailure(params.get("v"))
      if (tooOld !== undefined) return failed(format, tooOld.code, tooOld.message)
      return yield* proxies.clientAddress(connectionFacts(request)).pipe(
        Effect.flatMap((clientAddress) => credentials.authenticate(params, clientAddress)),
        Effect.flatMap((user) => run(user, params)),
        Effect.map((answer) =>
          HttpServerResponse.isServerResponse(answer) ? answer : render(format, "ok", answer as SubsonicPayload),
        ),
        Effect.catchAll((error) => {
          if (error instanceof SubsonicFailure) return Effect.succeed(failed(format, error.code, error.message))
          const tag = (error as { _tag?: string })._tag
          if (tag === "SubsonicThrottled") {
            const retry = (error as { retryAfterSeconds: number }).retryAfterSeconds
            return Effect.succeed(
              failed(format, Codes.wrongCredentials, "Too many failed sign-ins; try again later", 429, {
                "retry-after": String(retry),
              }),
            )
          }
          if (tag === "NotFound") {
            return Effect.succeed(failed(format, Codes.notFound, (error as { message: string }).message))
          }
          if (tag === "InvalidRequest" || tag === "Conflict") {
            return Effect.succeed(failed(format, Codes.generic, (error as { message: string }).message))
          }
          return Effect.as(
            Effect.logError(`subsonic ${method} failed`, error),
            failed(format, Codes.generic, "Internal error"),
          )
        }),
        Effect.catchAllDefect((defect) =>
          Effect.as(
            Effect.logError(`subsonic ${method} failed`, defect),
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
