import * as fs from "node:fs"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeStream } from "@effect/platform-node"
import { CurrentSession, errorBody, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { ClientDistributionService } from "./ClientDistributionService.js"

export const ClientDistributionHttpLive = HttpApiBuilder.group(TonearmApi, "client", (handlers) =>
  Effect.gen(function* () {
    const distribution = yield* ClientDistributionService
    return handlers
      .handle("version", () => distribution.version)
      .handle("apk", () =>
        Effect.gen(function* () {
          const { user } = yield* CurrentSession
          const request = yield* HttpServerRequest.HttpServerRequest
          const plan = yield* distribution.apk(user.id, {
            range: request.headers.range,
            ifRange: request.headers["if-range"],
            head: request.method === "HEAD",
          })
          if (plan._tag === "Unsatisfiable") {
            return HttpServerResponse.unsafeJson(
              errorBody("range_not_satisfiable", "the requested range is outside the file"),
              { status: 416, headers: plan.headers },
            )
          }
          const { "content-type": contentType, ...headers } = plan.headers
          // A read stream with an exact Content-Length (HttpServerResponse.file sends a byte too many with an
          // offset on platform-node 0.108; see stack-notes). An empty file has no bytes to read.
          const length = plan.end - plan.start + 1
          return HttpServerResponse.stream(
            NodeStream.fromReadable(
              () => fs.createReadStream(plan.path, { start: plan.start, end: Math.max(plan.start, plan.end) }),
              (cause) => new Error(`reading ${plan.path} failed: ${cause}`),
            ),
            { status: plan.status, contentType, contentLength: Math.max(0, length), headers },
          )
        }),
      )
  }),
)
