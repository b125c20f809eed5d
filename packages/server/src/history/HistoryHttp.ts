import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { CurrentSession, InvalidRequest, LastfmImportRequest, TonearmApi } from "@tonearm/core"
import { Effect, ParseResult } from "effect"
import { maxImportBytesOf, TonearmConfig } from "../config/TonearmConfig.js"
import { ImportService } from "./ImportService.js"
import { storeUpload } from "./upload.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

const isJson = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").toLowerCase().includes("application/json")

/** The Last.fm pull's JSON body, decoded here because the route also takes multipart (read raw). */
const pullRequest = (request: HttpServerRequest.HttpServerRequest) =>
  HttpServerRequest.schemaBodyJson(LastfmImportRequest).pipe(
    Effect.provideService(HttpServerRequest.HttpServerRequest, request),
    Effect.mapError((error) =>
      ParseResult.isParseError(error)
        ? new InvalidRequest({ message: ParseResult.TreeFormatter.formatErrorSync(error) })
        : new InvalidRequest({ message: "request body is not valid JSON" }),
    ),
  )

export const ImportsHttpLive = HttpApiBuilder.group(TonearmApi, "imports", (handlers) =>
  Effect.gen(function* () {
    const imports = yield* ImportService
    const limit = maxImportBytesOf(yield* TonearmConfig)
    return handlers
      .handleRaw("create", ({ request, urlParams }) =>
        Effect.gen(function* () {
          const user = yield* me
          if (isJson(request)) return yield* imports.createPull(user, yield* pullRequest(request))
          const upload = yield* storeUpload(request, imports.uploadsDir, limit)
          return yield* imports.createFromUpload(user, {
            filePath: upload.filePath,
            fileName: upload.fileName,
            source: upload.fields.source ?? urlParams.source,
          })
        }),
      )
      .handle("list", ({ urlParams }) => Effect.flatMap(me, (user) => imports.list(user, urlParams)))
      .handle("get", ({ path }) => Effect.flatMap(me, (user) => imports.get(user, path.id)))
      .handle("unmatched", ({ path, urlParams }) =>
        Effect.flatMap(me, (user) => imports.unmatched(user, path.id, urlParams)),
      )
  }),
)

export const AdminImportsHttpLive = HttpApiBuilder.group(TonearmApi, "adminImports", (handlers) =>
  Effect.gen(function* () {
    const imports = yield* ImportService
    const limit = maxImportBytesOf(yield* TonearmConfig)
    return handlers
      .handleRaw("create", ({ request }) =>
        Effect.gen(function* () {
          const admin = yield* me
          const upload = yield* storeUpload(request, imports.uploadsDir, limit)
          return yield* imports.createAdminUpload(admin, {
            filePath: upload.filePath,
            fileName: upload.fileName,
            source: upload.fields.source,
          })
        }),
      )
      .handle("get", ({ path }) => imports.adminGet(path.id))
      .handle("unmatched", ({ path, urlParams }) => imports.adminUnmatched(path.id, urlParams))
  }),
)

export const PlaysExportHttpLive = HttpApiBuilder.group(TonearmApi, "playsExport", (handlers) =>
  Effect.gen(function* () {
    const imports = yield* ImportService
    return handlers.handle("export", () =>
      Effect.map(me, (user) =>
        HttpServerResponse.stream(imports.exportLines(user), {
          contentType: "application/x-ndjson",
          headers: { "content-disposition": 'attachment; filename="tonearm-listens.jsonl"' },
        }),
      ),
    )
  }),
)
