import { SqlClient } from "@effect/sql"
import {
  type AcquisitionRequest,
  Conflict,
  ManagerSettings,
  type ManagerSettingsInput,
  MissingDefaults,
  missingManagerDefaults,
  type NewRequest,
  NotFound,
  type RequestStatus,
  type UserId,
} from "@tonearm/core"
import { Duration, Effect, Option } from "effect"
import { currentDate } from "../clock.js"
import { enrichmentSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"
import { orInternal } from "../db/sqlErrors.js"
import { EventBus } from "../events/index.js"
import { Leases } from "../leases/index.js"
import { LibraryAccess } from "../library/index.js"
import { ManagerClient } from "./ManagerClient.js"
import { ManagerRepository } from "./ManagerRepository.js"
import { RequestsRepository } from "./RequestsRepository.js"

/** Unconfirmed adds one reconciler tick re-sends. */
const RECONCILE_BATCH = 25
const MBID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * The request workflow (spec "States and transitions"): pending → approved → available, or cancelled by the
 * requester, or rejected by an admin; `request.status_changed` to the requester on every change. Approval is
 * stored first; the add to the manager is then tried once and never fails the approval. A reconciler re-sends
 * unconfirmed adds until the manager confirms (an already-exists answer counts), with no failed state and no
 * expiry, and marks approved requests available once a scan finds them in a library the requester hears. Each add
 * locks its row with `FOR UPDATE SKIP LOCKED`, so replicas never send the same add at once.
 */
/** The lease under which one replica runs the request reconciler. */
export const RECONCILER_LEASE = "request-reconciler"

export class RequestsService extends Effect.Service<RequestsService>()("@tonearm/server/RequestsService", {
  scoped: Effect.gen(function* () {
    const requests = yield* RequestsRepository
    const managerRows = yield* ManagerRepository
    const manager = yield* ManagerClient
    const events = yield* EventBus
    const access = yield* LibraryAccess
    const sql = yield* SqlClient.SqlClient
    const settings = enrichmentSettingsOf(yield* TonearmConfig)

    const announce = (request: AcquisitionRequest) =>
      events.publish("request.status_changed", request.user_id, { request_id: request.id, status: request.status })

    const found = (request: AcquisitionRequest | undefined) =>
      request === undefined
        ? Effect.fail(new NotFound({ message: "no such request", resource: "request" }))
        : Effect.succeed(request)

    /** One add attempt for one approved, unconfirmed request, its row locked for this replica. */
    /** One add attempt; `busy` says what to do when another add of the request is under way (lockUnconfirmed). */
    const tryAdd = (id: string, busy: "skip" | "wait") =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const locked = yield* requests.lockUnconfirmed(id, busy)
            if (locked === undefined) return
            const config = yield* managerRows.load
            const now = yield* currentDate
            const outcome = yield* Effect.either(manager.add(config, locked))
            if (outcome._tag === "Right") yield* requests.confirmed(id, now)
            else yield* requests.attemptFailed(id, now, outcome.left.message)
          }),
        )
        .pipe(
          orInternal("RequestsService.tryAdd"),
          Effect.catchAllCause((cause) => Effect.logWarning(`request ${id}: the add was not recorded`, cause)),
        )

    const approveStored = (id: string, by: UserId | null) =>
      Effect.gen(function* () {
        const now = yield* currentDate
        const approved = yield* requests.transition(id, ["pending"], "approved", { by, at: now })
        if (approved === undefined) return undefined
        yield* announce(approved)
        return approved
      })

    const reread = (id: string) => Effect.flatMap(requests.byId(id), found)

    const create = Effect.fn("RequestsService.create")(function* (user: UserId, request: NewRequest) {
      const now = yield* currentDate
      const inserted = yield* requests.insert(user, request.kind, request.mbid, request.name, now)
      if (Option.isNone(inserted)) {
        const open = yield* requests.openFor(request.mbid)
        if (open !== undefined) return open
        // The open one closed in between: try once more.
        const again = yield* requests.insert(user, request.kind, request.mbid, request.name, now)
        if (Option.isNone(again)) return yield* Effect.flatMap(requests.openFor(request.mbid), found)
        return again.value
      }
      yield* announce(inserted.value)
      if (!(yield* managerRows.load).auto_approve) return inserted.value
      const approved = yield* approveStored(inserted.value.id, null)
      if (approved === undefined) return inserted.value
      yield* tryAdd(approved.id, "wait")
      return yield* reread(approved.id)
    })

    const mine = (user: UserId) => requests.ofUser(user)

    const cancel = Effect.fn("RequestsService.cancel")(function* (user: UserId, id: string) {
      const request = yield* Effect.flatMap(requests.byId(id), found)
      if (request.user_id !== user) return yield* new NotFound({ message: "no such request", resource: "request" })
      if (request.status === "cancelled") return request
      const cancelled = yield* requests.transition(id, ["pending", "approved"], "cancelled", undefined)
      if (cancelled === undefined)
        return yield* new Conflict({
          message: `a request that is ${request.status} cannot be cancelled`,
          reason: "request_state",
        })
      yield* announce(cancelled)
      return cancelled
    })

    const list = (status: RequestStatus | undefined) => requests.all(status)

    const approve = Effect.fn("RequestsService.approve")(function* (admin: UserId, id: string) {
      const request = yield* Effect.flatMap(requests.byId(id), found)
      if (request.status === "approved") {
        // Approving again re-sends an unconfirmed add at once (the reconciler would anyway).
        if (request.manager_add_confirmed_at === null) yield* tryAdd(id, "wait")
        return yield* reread(id)
      }
      const approved = yield* approveStored(id, admin)
      if (approved === undefined)
        return yield* new Conflict({
          message: `a request that is ${request.status} cannot be approved`,
          reason: "request_state",
        })
      yield* tryAdd(id, "wait")
      return yield* reread(id)
    })

    const reject = Effect.fn("RequestsService.reject")(function* (
      admin: UserId,
      id: string,
      reason: string | undefined,
    ) {
      const request = yield* Effect.flatMap(requests.byId(id), found)
      if (request.status === "rejected") return request
      const now = yield* currentDate
      const rejected = yield* requests.transition(id, ["pending", "approved"], "rejected", {
        by: admin,
        at: now,
        reason: reason?.trim() === "" ? null : (reason ?? null),
      })
      if (rejected === undefined)
        return yield* new Conflict({
          message: `a request that is ${request.status} cannot be rejected`,
          reason: "request_state",
        })
      yield* announce(rejected)
      return rejected
    })

    // --- the manager's settings ---

    const managerSettings = managerRows.load

    /** Fields left out keep their stored value; the result must carry a root folder and both profile ids. */
    const saveManager = Effect.fn("RequestsService.saveManager")(function* (input: ManagerSettingsInput) {
      const stored = yield* managerRows.load
      const pick = <K extends keyof ManagerSettingsInput & keyof ManagerSettings>(key: K) =>
        (input[key] === undefined ? stored[key] : input[key]) as ManagerSettings[K]
      const blankToNull = (value: string | null) => (value === null || value.trim() === "" ? null : value.trim())
      const next = new ManagerSettings({
        url: blankToNull(pick("url")),
        api_key: blankToNull(pick("api_key")),
        root_folder_path: blankToNull(pick("root_folder_path")),
        quality_profile_id: pick("quality_profile_id"),
        metadata_profile_id: pick("metadata_profile_id"),
        auto_approve: pick("auto_approve"),
      })
      const missing = missingManagerDefaults(next)
      if (missing.length > 0)
        return yield* new MissingDefaults({ message: `the manager needs defaults: ${missing.join(", ")}` })
      yield* managerRows.save(next, yield* currentDate)
      return next
    })

    /**
     * Suggestion art (spec "Discover and playlists"): each MusicBrainz id's artist image from the manager's
     * lookup, a few at a time, never cached. A manager that is off, down or does not know the artist leaves it out.
     */
    const artistImages = (mbids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const config = yield* managerRows.load
        const found = new Map<string, string>()
        if (config.url === null || config.url.trim() === "") return found
        // The whole lookup gets one manager timeout: a hanging manager costs a Discover request at most that,
        // and the images found by then are kept.
        yield* Effect.forEach(
          mbids.filter((mbid) => MBID.test(mbid)),
          (mbid) =>
            manager.artistImage(config, mbid).pipe(
              Effect.tap((url) => Effect.sync(() => (url === undefined ? undefined : found.set(mbid, url)))),
              Effect.ignore,
            ),
          { concurrency: settings.suggestionArtConcurrency, discard: true },
        ).pipe(Effect.timeout(Duration.millis(settings.managerTimeoutMs)), Effect.ignore)
        return found
      }).pipe(Effect.orElseSucceed(() => new Map<string, string>()))

    // --- the reconciler ---

    const reconcile = Effect.gen(function* () {
      // Available to the requester: held by a library they hear (a library given to them later counts then).
      for (const user of yield* requests.waitingRequesters) {
        const scope = yield* access.forUserId(user)
        for (const available of yield* requests.markAvailable(user, scope)) yield* announce(available)
      }
      const due = yield* requests.unconfirmed(RECONCILE_BATCH)
      if (due.length > 0 && (yield* managerRows.load).url !== null)
        yield* Effect.forEach(due, (id) => tryAdd(id, "skip"), { discard: true })
    })

    // On the one replica holding RECONCILER_LEASE (issue 30): two would each send the manager the same request.
    yield* (yield* Leases).duty(
      RECONCILER_LEASE,
      reconcile.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("request reconciler tick failed", cause)),
        Effect.zipRight(Effect.sleep(Duration.millis(settings.reconcileMs))),
        Effect.forever,
      ),
    )

    return {
      create,
      mine,
      cancel,
      list,
      approve,
      reject,
      managerSettings,
      saveManager,
      artistImages,
      reconcile,
    } as const
  }),
  dependencies: [
    RequestsRepository.Default,
    ManagerRepository.Default,
    ManagerClient.Default,
    Leases.Default,
    LibraryAccess.Default,
  ],
}) {}
