import * as fs from "node:fs"
import { HttpServerResponse } from "@effect/platform"
import {
  decideStream,
  errorBody,
  mimeForFormat,
  NotFound,
  parseRange,
  TRANSCODE_MIME,
  type TrackId,
  type TranscodeRequest,
} from "@tonearm/core"
import { Effect, Option } from "effect"
import { type LibraryFile, TrackFiles } from "../library/index.js"
import { Transcoder, type TranscodersBusy } from "./Transcoder.js"

/** What to answer for a stream request; the handler turns it into a response. */
export type StreamPlan =
  | {
      readonly _tag: "Bytes"
      readonly status: 200 | 206
      readonly path: string
      readonly start: number
      readonly end: number
      readonly headers: Record<string, string>
    }
  | { readonly _tag: "Unsatisfiable"; readonly headers: Record<string, string> }

export const STREAM_CACHE_CONTROL = "max-age=31536000, immutable"

/** A stream request as the HTTP routes (JSON API and Subsonic) hand it over. */
export interface StreamRequest {
  readonly range?: string | undefined
  readonly ifRange?: string | undefined
  /** HEAD answers a transcode's headers without starting ffmpeg. */
  readonly head?: boolean | undefined
  readonly transcode?: TranscodeRequest | undefined
  /** Whose transcode this is, for the per-listener cap; asked only when a transcode starts. */
  readonly owner?: Effect.Effect<string> | undefined
}

/** 503 with Retry-After and the error envelope: every transcoder is busy. */
export const busyResponse = (error: TranscodersBusy) =>
  HttpServerResponse.unsafeJson(errorBody("service_unavailable", error.message), {
    status: 503,
    headers: { "retry-after": String(error.retryAfterSeconds) },
  })

type FoundFile = LibraryFile & { readonly fileFormat: string }

/** Single ranges per RFC 9110; an If-Range that no longer matches the file serves it whole. */
const planFile = (
  file: FoundFile,
  request: { readonly range?: string | undefined; readonly ifRange?: string | undefined },
): StreamPlan => {
  const etag = `"${file.sizeBytes.toString(36)}-${file.mtimeMs.toString(36)}"`
  const lastModified = new Date(file.mtimeMs).toUTCString()
  const base = {
    "accept-ranges": "bytes",
    "cache-control": STREAM_CACHE_CONTROL,
    "content-type": mimeForFormat(file.fileFormat),
    etag,
    "last-modified": lastModified,
  }
  const rangeApplies = request.ifRange === undefined || request.ifRange === etag || request.ifRange === lastModified
  const range = parseRange(rangeApplies ? request.range : undefined, file.sizeBytes)
  switch (range._tag) {
    case "Unsatisfiable":
      return { _tag: "Unsatisfiable", headers: { ...base, "content-range": `bytes */${file.sizeBytes}` } }
    case "Partial":
      return {
        _tag: "Bytes",
        status: 206,
        path: file.absolutePath,
        start: range.start,
        end: range.end,
        headers: { ...base, "content-range": `bytes ${range.start}-${range.end}/${file.sizeBytes}` },
      }
    case "Full":
      return { _tag: "Bytes", status: 200, path: file.absolutePath, start: 0, end: file.sizeBytes - 1, headers: base }
  }
}

/** Up to this many bytes a file (or range) is read with one call and sent as one buffer. */
const ONE_READ_BYTES = 128 * 1024

/**
 * The bytes `start` … `start + length − 1` of a file, read with one call; undefined when the file cannot be
 * opened or came up short (it changed since it was planned): the read stream then answers as it always did.
 */
const readOnce = (path: string, start: number, length: number) =>
  Effect.async<Uint8Array | undefined>((resume) => {
    fs.open(path, "r", (openError, fd) => {
      if (openError !== null) return resume(Effect.succeed(undefined))
      const bytes = Buffer.allocUnsafe(length)
      fs.read(fd, bytes, 0, length, start, (readError, bytesRead) => {
        // Closed in the background: the answer does not wait for it.
        fs.close(fd, () => {})
        resume(Effect.succeed(readError === null && bytesRead === length ? bytes : undefined))
      })
    })
  })

/**
 * File bytes with an exact Content-Length. A small file or range is read with one call and sent as one buffer
 * (three file-system calls, no stream); a larger one is piped by Node from a read stream
 * (`HttpServerResponse.file` with an offset sends one byte too many on platform-node 0.108 and corrupts the next
 * response on a keep-alive connection; an Effect stream costs a fiber step per chunk, about a third of a small
 * file's CPU). A HEAD gets the headers alone, so no file is opened that nothing would read.
 */
const originalResponse = (planned: StreamPlan, head: boolean) =>
  Effect.gen(function* () {
    if (planned._tag === "Unsatisfiable") {
      return HttpServerResponse.unsafeJson(
        errorBody("range_not_satisfiable", "the requested range is outside the file"),
        {
          status: 416,
          headers: planned.headers,
        },
      )
    }
    const { "content-type": contentType, ...headers } = planned.headers
    const contentLength = planned.end - planned.start + 1
    if (head || contentLength === 0) {
      return HttpServerResponse.empty({
        status: planned.status,
        headers: { ...planned.headers, "content-length": String(contentLength) },
      })
    }
    if (contentLength <= ONE_READ_BYTES) {
      const bytes = yield* readOnce(planned.path, planned.start, contentLength)
      if (bytes !== undefined)
        return HttpServerResponse.uint8Array(bytes, { status: planned.status, contentType, headers })
    }
    return HttpServerResponse.raw(fs.createReadStream(planned.path, { start: planned.start, end: planned.end }), {
      status: planned.status,
      contentType,
      contentLength,
      headers,
    })
  })

export class StreamService extends Effect.Service<StreamService>()("@tonearm/server/StreamService", {
  effect: Effect.gen(function* () {
    const files = yield* TrackFiles
    const transcoder = yield* Transcoder

    const plan = Effect.fn("StreamService.plan")(function* (
      id: TrackId,
      request: { readonly range?: string | undefined; readonly ifRange?: string | undefined },
    ) {
      const found = yield* files.trackFile(id)
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such track", resource: "track" })
      return planFile(found.value, request)
    })

    /**
     * The answer to a stream request: the original file (Range, ETag) or, when the options ask for it and
     * ffmpeg is there, the transcoded audio streamed as it is encoded (chunked, no Range). The ffmpeg process
     * belongs to the caller's scope, the HTTP request's: it is killed when the response ends or the client
     * goes away. Fails with NotFound, or TranscodersBusy (see `busyResponse`).
     */
    const respond = Effect.fn("StreamService.respond")(function* (id: TrackId, request: StreamRequest) {
      const found = yield* files.trackFile(id)
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such track", resource: "track" })
      const file = found.value
      const decision = decideStream(
        request.transcode ?? {},
        { format: file.fileFormat, bitrateKbps: file.bitrateKbps },
        transcoder.available,
      )
      const head = request.head === true
      if (decision._tag === "Original") return yield* originalResponse(planFile(file, request), head)
      const contentType = TRANSCODE_MIME[decision.format]
      const headers = { "accept-ranges": "none", "cache-control": STREAM_CACHE_CONTROL }
      if (head) {
        return HttpServerResponse.empty({ status: 200, headers: { ...headers, "content-type": contentType } })
      }
      const owner = request.owner === undefined ? "anonymous" : yield* request.owner
      const encoded = yield* transcoder.transcode(file.absolutePath, decision, owner).pipe(
        Effect.map(Option.some),
        Effect.catchTag("TranscodeFailed", (error) =>
          Effect.as(Effect.logWarning(`${error.message}; serving the original`), Option.none()),
        ),
      )
      if (Option.isNone(encoded)) return yield* originalResponse(planFile(file, request), false)
      return HttpServerResponse.stream(encoded.value, { status: 200, contentType, headers })
    })

    return { plan, respond } as const
  }),
  dependencies: [TrackFiles.Default, Transcoder.Default],
}) {}
