import { randomUUID } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type HttpServerRequest, Multipart } from "@effect/platform"
import { InvalidRequest, PayloadTooLarge } from "@tonearm/core"
import { Effect, Exit, Option, Stream } from "effect"

/** A limit reached, as the part's own stream reports it (wrapped as InternalError by the Node parser) or the form's. */
const isTooLarge = (error: Multipart.MultipartError) =>
  error.reason === "FileTooLarge" ||
  error.reason === "BodyTooLarge" ||
  (typeof error.cause === "object" &&
    error.cause !== null &&
    (error.cause as { _tag?: unknown })._tag === "ReachedLimit" &&
    ["MaxPartSize", "MaxTotalSize"].includes(String((error.cause as { limit?: unknown }).limit)))

/** An upload stored in the data directory, and the form's other fields. */
export interface StoredUpload {
  readonly filePath: string
  readonly fileName: string
  readonly fields: Readonly<Record<string, string>>
}

/**
 * Streams a multipart form's `file` part to a new file under `dir`, never holding it in memory; at most `limit`
 * bytes (413 past it). A failed or incomplete upload leaves no file behind.
 */
export const storeUpload = (
  request: HttpServerRequest.HttpServerRequest,
  dir: string,
  limit: number,
): Effect.Effect<StoredUpload, InvalidRequest | PayloadTooLarge> =>
  Effect.gen(function* () {
    const type = request.headers["content-type"]?.toLowerCase() ?? ""
    if (!type.includes("multipart/form-data"))
      return yield* new InvalidRequest({ message: "expected a multipart/form-data upload with a `file` field" })
    yield* Effect.promise(() => fs.mkdir(dir, { recursive: true }))
    const target = path.join(dir, `${randomUUID()}.upload`)
    const fields: Record<string, string> = {}
    let fileName: string | null = null
    const parts = Multipart.withLimitsStream(request.multipartStream, {
      maxParts: Option.some(16),
      maxFieldSize: 64 * 1024,
      maxFileSize: Option.some(limit),
      maxTotalSize: Option.some(limit),
      // A part with a file name is the file whatever its type: browsers send a .json export as application/json,
      // which the default would read as a (size-limited) form field.
      fieldMimeTypes: [],
    })
    const writeFile = (part: Multipart.File) =>
      Effect.acquireUseRelease(
        Effect.promise(() => fs.open(target, "w")),
        (handle) => Stream.runForEach(part.content, (chunk) => Effect.promise(() => handle.write(chunk))),
        (handle) => Effect.promise(() => handle.close()),
      )
    yield* Stream.runForEach(parts, (part) => {
      if (Multipart.isField(part)) {
        fields[part.key] = part.value
        return Effect.void
      }
      if (part.key !== "file" || fileName !== null) return Stream.runDrain(part.content)
      fileName = part.name
      return writeFile(part)
    }).pipe(
      Effect.mapError((error) =>
        isTooLarge(error)
          ? new PayloadTooLarge({ message: `the upload exceeds ${limit} bytes (TONEARM_MAX_IMPORT_BYTES)` })
          : new InvalidRequest({ message: `the upload is not a valid multipart form (${error.reason})` }),
      ),
      // A failed or abandoned upload (the client went away) leaves nothing behind.
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) ? Effect.void : Effect.promise(() => fs.rm(target, { force: true })),
      ),
    )
    if (fileName === null) return yield* new InvalidRequest({ message: "file: the form has no `file` field" })
    return { filePath: target, fileName, fields }
  })
