import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { DiagnosticsService } from "./DiagnosticsService.js"
import { PlaybackErrorsService } from "./PlaybackErrorsService.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

export const PlaybackErrorsHttpLive = HttpApiBuilder.group(TonearmApi, "playbackErrors", (handlers) =>
  Effect.gen(function* () {
    const errors = yield* PlaybackErrorsService
    return handlers.handle("report", ({ payload }) => Effect.flatMap(me, (user) => errors.report(user, payload)))
  }),
)

export const AdminPlaybackErrorsHttpLive = HttpApiBuilder.group(TonearmApi, "adminPlaybackErrors", (handlers) =>
  Effect.gen(function* () {
    const errors = yield* PlaybackErrorsService
    return handlers
      .handle("list", ({ urlParams }) => errors.list(urlParams))
      .handle("resolve", ({ path, payload }) =>
        Effect.flatMap(me, (admin) => errors.resolve(admin, path.id, payload.resolution)),
      )
  }),
)

export const DiagnosticsHttpLive = HttpApiBuilder.group(TonearmApi, "diagnostics", (handlers) =>
  Effect.gen(function* () {
    const diagnostics = yield* DiagnosticsService
    // Two successes by status (204 off, 202 stored): answered as responses so each keeps its own status.
    return handlers.handle("report", ({ payload }) =>
      Effect.flatMap(me, (user) => diagnostics.report(user, payload)).pipe(
        Effect.map((result) =>
          result === "off"
            ? HttpServerResponse.empty({ status: 204 })
            : HttpServerResponse.unsafeJson({ accepted: result.accepted }, { status: 202 }),
        ),
      ),
    )
  }),
)

export const AdminDiagnosticsHttpLive = HttpApiBuilder.group(TonearmApi, "adminDiagnostics", (handlers) =>
  Effect.gen(function* () {
    const diagnostics = yield* DiagnosticsService
    return handlers
      .handle("timeline", ({ urlParams }) => diagnostics.timeline(urlParams))
      .handle("devices", () => diagnostics.devices)
  }),
)
