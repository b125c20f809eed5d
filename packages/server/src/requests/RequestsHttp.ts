import { HttpApiBuilder } from "@effect/platform"
import { CurrentSession, TonearmApi } from "@tonearm/core"
import { Effect } from "effect"
import { RequestsService } from "./RequestsService.js"

const me = Effect.map(CurrentSession, (session) => session.user.id)

export const RequestsHttpLive = HttpApiBuilder.group(TonearmApi, "requests", (handlers) =>
  Effect.gen(function* () {
    const requests = yield* RequestsService
    return handlers
      .handle("create", ({ payload }) => Effect.flatMap(me, (user) => requests.create(user, payload)))
      .handle("list", () => Effect.flatMap(me, requests.mine))
      .handle("cancel", ({ path }) => Effect.flatMap(me, (user) => requests.cancel(user, path.id)))
  }),
)

export const AdminRequestsHttpLive = HttpApiBuilder.group(TonearmApi, "adminRequests", (handlers) =>
  Effect.gen(function* () {
    const requests = yield* RequestsService
    return handlers
      .handle("list", ({ urlParams }) => requests.list(urlParams.status))
      .handle("approve", ({ path }) => Effect.flatMap(me, (admin) => requests.approve(admin, path.id)))
      .handle("reject", ({ path, payload }) =>
        Effect.flatMap(me, (admin) => requests.reject(admin, path.id, payload.reason)),
      )
  }),
)

export const ManagerHttpLive = HttpApiBuilder.group(TonearmApi, "manager", (handlers) =>
  Effect.gen(function* () {
    const requests = yield* RequestsService
    return handlers
      .handle("get", () => requests.managerSettings)
      .handle("set", ({ payload }) => requests.saveManager(payload))
  }),
)
