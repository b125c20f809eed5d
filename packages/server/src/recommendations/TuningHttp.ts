import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { AccountsService } from "../accounts/index.js"
import { PlaylistsService } from "../playlists/index.js"
import { TuningService } from "./TuningService.js"
import { tuningSample } from "./tuningSample.js"

export const TuningHttpLive = HttpApiBuilder.group(TonearmApi, "tuning", (handlers) =>
  Effect.gen(function* () {
    const tuning = yield* TuningService
    const accounts = yield* AccountsService
    const playlists = yield* PlaylistsService
    return handlers
      .handle("get", () => tuning.view())
      .handle("patch", ({ payload }) =>
        Effect.flatMap(CurrentSession, ({ user }) => tuning.patch(user.id, payload.scope, payload.changes)),
      )
      .handle("reset", ({ payload }) =>
        Effect.flatMap(CurrentSession, ({ user }) => tuning.reset(user.id, payload.scope)),
      )
      .handle("audit", () => tuning.audit())
      .handle("sample", ({ urlParams }) => tuningSample(accounts, playlists, urlParams))
  }),
)
