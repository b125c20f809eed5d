import { mimeForFormat, NotFound, parseRange, type TrackId } from "@tonearm/core"
import { Effect, Option } from "effect"
import { TrackFiles } from "../library/index.js"

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

export class StreamService extends Effect.Service<StreamService>()("@tonearm/server/StreamService", {
  effect: Effect.gen(function* () {
    const files = yield* TrackFiles

    /** Single ranges per RFC 9110; an If-Range that no longer matches the file serves it whole. */
    const plan = Effect.fn("StreamService.plan")(function* (
      id: TrackId,
      request: { readonly range?: string | undefined; readonly ifRange?: string | undefined },
    ) {
      const found = yield* files.trackFile(id)
      if (Option.isNone(found)) return yield* new NotFound({ message: "no such track" })
      const file = found.value
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
          return {
            _tag: "Unsatisfiable",
            headers: { ...base, "content-range": `bytes */${file.sizeBytes}` },
          } satisfies StreamPlan
        case "Partial":
          return {
            _tag: "Bytes",
            status: 206,
            path: file.absolutePath,
            start: range.start,
            end: range.end,
            headers: { ...base, "content-range": `bytes ${range.start}-${range.end}/${file.sizeBytes}` },
          } satisfies StreamPlan
        case "Full":
          return {
            _tag: "Bytes",
            status: 200,
            path: file.absolutePath,
            start: 0,
            end: file.sizeBytes - 1,
            headers: base,
          } satisfies StreamPlan
      }
    })

    return { plan } as const
  }),
  dependencies: [TrackFiles.Default],
}) {}
