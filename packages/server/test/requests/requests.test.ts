import { SqlClient } from "@effect/sql"
import { afterAll, expect, layer } from "@effect/vitest"
import { Mbid, RequestId } from "@tonearm/core"
import { Effect } from "effect"
import { ENRICHMENT_DEFAULTS } from "../../src/config/TonearmConfig.js"
import { eventually } from "../enrichment/support.js"
import { createAndLogIn, type SignedIn, signUpFirstAdmin } from "../support/accounts.js"
import { type FakeAnswer, type FakeRequest, type FakeServer, startFakeServer } from "../support/fakeServer.js"
import { scanNow } from "../support/library.js"
import { syntheticLibrary } from "../support/listening.js"
import { raw, rawJson } from "../support/raw.js"
import { openSse, type SseFrame } from "../support/sse.js"
import { secondReplica, serverUrl, TestServerLive } from "../support/TestServer.js"

const root = await syntheticLibrary(120, 5)

/** A small Lidarr (API v1): profiles, root folders, artist and album adds (a second add is "already added"). */
const added = new Set<string>()
const addArtist = (request: FakeRequest): FakeAnswer => {
  const body = JSON.parse(request.body) as { foreignArtistId: string }
  if (added.has(body.foreignArtistId))
    return {
      status: 400,
      body: [
        {
          propertyName: "ForeignArtistId",
          errorMessage: "This artist has already been added.",
          errorCode: "ArtistExistsValidator",
        },
      ],
    }
  added.add(body.foreignArtistId)
  return { status: 201, body: { id: added.size, ...body } }
}
const fakeLidarr = (server: FakeServer) => {
  server.on("GET", "/api/v1/qualityprofile", () => ({
    body: [
      { id: 1, name: "Any" },
      { id: 4, name: "Lossless" },
    ],
  }))
  server.on("GET", "/api/v1/metadataprofile", () => ({ body: [{ id: 2, name: "Standard" }] }))
  server.on("GET", "/api/v1/rootfolder", () => ({ body: [{ path: "/music" }, { path: "/other" }] }))
  server.on("POST", "/api/v1/artist", addArtist)
  server.on("GET", "/api/v1/album/lookup", (request) => {
    const mbid = (request.query.get("term") ?? "").replace(/^lidarr:/, "")
    return {
      body: [{ foreignAlbumId: mbid, title: "Some Album", artist: { foreignArtistId: "a-1", artistName: "Somebody" } }],
    }
  })
  server.on("POST", "/api/v1/album", (request) => {
    const body = JSON.parse(request.body) as { foreignAlbumId: string }
    added.add(body.foreignAlbumId)
    return { status: 201, body: { id: 99, ...body } }
  })
}

const lidarr = await startFakeServer(fakeLidarr)
afterAll(() => lidarr.stop())

/** NOTIFY is asynchronous: an earlier change's event may arrive after a stream opens, so wait for this one. */
const statusChangedTo = (status: string) => (frame: SseFrame) =>
  frame.event === "request.status_changed" &&
  (frame.data as { data?: { status?: string } } | undefined)?.data?.status === status

const mbid = (n: number) => Mbid.make(`${String(n).padStart(8, "0")}-1111-4222-8333-444455556666`)

let admin: SignedIn
let bob: SignedIn
let carol: SignedIn

const lidarrDefaults = {
  url: lidarr.url,
  api_key: "secret",
  root_folder_path: "/music",
  quality_profile_id: 4,
  // Gone from the manager: resolved to its first metadata profile at add time.
  metadata_profile_id: 9,
}

const confirmedAt = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ at: Date | null }>`SELECT manager_add_confirmed_at AS at FROM acquisition_requests WHERE id = ${id}`.pipe(
      Effect.map((rows) => rows[0]?.at ?? null),
    ),
  )

layer(
  TestServerLive({
    libraryDir: root,
    enrichment: { ...ENRICHMENT_DEFAULTS, reconcileMs: 200, managerTimeoutMs: 1000, pollMs: 100 },
  }),
  { excludeTestServices: true, timeout: "180 seconds" },
)("requests and the manager", (it) => {
  it.effect("manager settings: saving without a root folder and both profile ids is 400 missing_defaults", () =>
    Effect.gen(function* () {
      admin = yield* signUpFirstAdmin("admin")
      bob = yield* createAndLogIn(admin.client, "bob")
      carol = yield* createAndLogIn(admin.client, "carol")
      yield* scanNow()
      expect(yield* admin.client.manager.get()).toEqual({
        url: null,
        api_key: null,
        root_folder_path: null,
        quality_profile_id: null,
        metadata_profile_id: null,
        auto_approve: false,
      })
      const missing = yield* rawJson("PUT", "/api/admin/manager", { url: lidarr.url, api_key: "k" }, admin.token)
      expect(missing.status).toBe(400)
      expect(missing.json).toMatchObject({ error: { code: "missing_defaults" } })
      const noMetadata = yield* rawJson(
        "PUT",
        "/api/admin/manager",
        { ...lidarrDefaults, metadata_profile_id: null },
        admin.token,
      )
      expect((noMetadata.json as { error: { code: string; message: string } }).error.message).toMatch(
        /metadata_profile_id/,
      )
      expect((yield* rawJson("PUT", "/api/admin/manager", lidarrDefaults, bob.token)).status).toBe(403)
      expect((yield* raw("GET", "/api/admin/manager", { token: bob.token })).status).toBe(403)
      // Nothing was stored by the refused saves.
      expect((yield* admin.client.manager.get()).url).toBeNull()
    }),
  )

  it.effect(
    "create: pending, request.status_changed to the requester only; a second request for the MBID returns the open row",
    () =>
      Effect.gen(function* () {
        const url = yield* serverUrl
        const bobsEvents = yield* openSse(url, bob.token)
        const adminsEvents = yield* openSse(url, admin.token)
        yield* bobsEvents.waitFor((frame) => frame.text === "connected")
        yield* adminsEvents.waitFor((frame) => frame.text === "connected")
        const [created, response] = yield* bob.client.requests.create({
          payload: { kind: "artist", mbid: mbid(1), name: "Artist One" },
          withResponse: true,
        })
        expect(response.status).toBe(201)
        expect(created).toMatchObject({
          user_id: bob.user.id,
          kind: "artist",
          mbid: mbid(1),
          name: "Artist One",
          status: "pending",
          decided_at: null,
          decided_by: null,
          manager_add_confirmed_at: null,
          reason: null,
        })
        const [event] = yield* bobsEvents.waitFor((frame) => frame.event === "request.status_changed")
        expect(event!.data).toMatchObject({
          kind: "request.status_changed",
          user_id: bob.user.id,
          data: { request_id: created.id, status: "pending" },
        })
        const again = yield* carol.client.requests.create({ payload: { kind: "artist", mbid: mbid(1), name: "Dup" } })
        expect(again.id).toBe(created.id)
        expect(again.user_id).toBe(bob.user.id)
        yield* Effect.sleep("300 millis")
        expect(adminsEvents.frames.filter((frame) => frame.event === "request.status_changed")).toHaveLength(0)
        expect(bobsEvents.frames.filter((frame) => frame.event === "request.status_changed")).toHaveLength(1)
        const rows = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM acquisition_requests WHERE mbid = ${mbid(1)}`,
        )
        expect(rows[0]!.n).toBe(1)
      }).pipe(Effect.scoped),
  )

  it.effect("bad input is 400: a malformed MBID, an unknown kind, an empty name", () =>
    Effect.gen(function* () {
      for (const body of [
        { kind: "artist", mbid: "nope", name: "x" },
        { kind: "track", mbid: mbid(2), name: "x" },
        { kind: "artist", mbid: mbid(2), name: "  " },
      ]) {
        const answer = yield* rawJson("POST", "/api/requests", body, bob.token)
        expect(answer.status).toBe(400)
        expect(answer.json).toMatchObject({ error: { code: "invalid_request" } })
      }
      expect((yield* rawJson("POST", "/api/requests", { kind: "artist", mbid: mbid(2), name: "x" })).status).toBe(401)
    }),
  )

  it.effect("own list, and cancel: another user's request is 404; the requester cancels with an event", () =>
    Effect.gen(function* () {
      const [mine] = yield* bob.client.requests.list()
      expect(mine!.mbid).toBe(mbid(1))
      expect(yield* carol.client.requests.list()).toEqual([])
      const others = yield* raw("POST", `/api/requests/${mine!.id}/cancel`, { token: carol.token })
      expect(others.status).toBe(404)
      expect(
        (yield* raw("POST", `/api/requests/${RequestId.make(mbid(77))}/cancel`, { token: bob.token })).status,
      ).toBe(404)
      const events = yield* openSse(yield* serverUrl, bob.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      const cancelled = yield* bob.client.requests.cancel({ path: { id: mine!.id } })
      expect(cancelled.status).toBe("cancelled")
      const [event] = yield* events.waitFor(statusChangedTo("cancelled"))
      expect(event!.data).toMatchObject({ data: { request_id: mine!.id, status: "cancelled" } })
      // A cancelled request no longer blocks a new one for the MBID.
      const fresh = yield* carol.client.requests.create({ payload: { kind: "artist", mbid: mbid(1), name: "One" } })
      expect(fresh.id).not.toBe(mine!.id)
      expect(fresh.status).toBe("pending")
    }).pipe(Effect.scoped),
  )

  it.effect(
    "approve stores the decision, resolves profiles and adds to the manager; the event goes to the requester, not the admin",
    () =>
      Effect.gen(function* () {
        yield* admin.client.manager.set({ payload: lidarrDefaults })
        const request = yield* carol.client.requests.create({
          payload: { kind: "artist", mbid: mbid(3), name: "Three" },
        })
        const url = yield* serverUrl
        const carols = yield* openSse(url, carol.token)
        const admins = yield* openSse(url, admin.token)
        yield* carols.waitFor((frame) => frame.text === "connected")
        yield* admins.waitFor((frame) => frame.text === "connected")
        const approved = yield* admin.client.adminRequests.approve({ path: { id: request.id } })
        expect(approved).toMatchObject({ status: "approved", decided_by: admin.user.id })
        expect(approved.decided_at).not.toBeNull()
        expect(approved.manager_add_confirmed_at).not.toBeNull()
        const add = lidarr.hits("/api/v1/artist").at(-1)!
        expect(add.headers["x-api-key"]).toBe("secret")
        expect(JSON.parse(add.body)).toMatchObject({
          foreignArtistId: mbid(3),
          qualityProfileId: 4,
          metadataProfileId: 2,
          rootFolderPath: "/music",
          monitored: true,
        })
        const [event] = yield* carols.waitFor(statusChangedTo("approved"))
        expect(event!.data).toMatchObject({ data: { request_id: request.id, status: "approved" } })
        yield* Effect.sleep("200 millis")
        expect(admins.frames.filter((frame) => frame.event === "request.status_changed")).toHaveLength(0)
        // The admin list shows it; a non-admin is 403.
        const listed = yield* admin.client.adminRequests.list({ urlParams: { status: "approved" } })
        expect(listed.map((row) => row.id)).toContain(request.id)
        expect((yield* raw("GET", "/api/admin/requests", { token: carol.token })).status).toBe(403)
        expect((yield* raw("POST", `/api/admin/requests/${request.id}/approve`, { token: carol.token })).status).toBe(
          403,
        )
      }).pipe(Effect.scoped),
  )

  it.effect(
    "a manager outage loses no approved request: approve answers 200, the reconciler confirms once it is back",
    () =>
      Effect.gen(function* () {
        yield* Effect.promise(() => lidarr.stop())
        const request = yield* bob.client.requests.create({ payload: { kind: "artist", mbid: mbid(4), name: "Four" } })
        const approved = yield* admin.client.adminRequests.approve({ path: { id: request.id } })
        expect(approved.status).toBe("approved")
        expect(approved.manager_add_confirmed_at).toBeNull()
        // The reconciler keeps trying while the manager is down: still approved, still unconfirmed, no failed state.
        yield* Effect.sleep("700 millis")
        const attempts = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{ status: string; manager_attempts: number }>`
          SELECT status, manager_attempts FROM acquisition_requests WHERE id = ${request.id}`,
        )
        expect(attempts[0]!.status).toBe("approved")
        expect(attempts[0]!.manager_attempts).toBeGreaterThanOrEqual(2)
        yield* Effect.promise(() => lidarr.start())
        yield* eventually(
          Effect.map(confirmedAt(request.id), (at) => at !== null),
          "the reconciler's confirmation",
        )
        expect(added.has(mbid(4))).toBe(true)
        const [row] = (yield* bob.client.requests.list()).filter((candidate) => candidate.id === request.id)
        expect(row!.status).toBe("approved")
        expect(row!.manager_add_confirmed_at).not.toBeNull()
      }),
  )

  it.effect("the manager's already-exists answer counts as success and sets manager_add_confirmed_at", () =>
    Effect.gen(function* () {
      added.add(mbid(5))
      const request = yield* bob.client.requests.create({ payload: { kind: "artist", mbid: mbid(5), name: "Five" } })
      const approved = yield* admin.client.adminRequests.approve({ path: { id: request.id } })
      expect(approved.manager_add_confirmed_at).not.toBeNull()
      const last = lidarr.hits("/api/v1/artist").at(-1)!
      expect(JSON.parse(last.body)).toMatchObject({ foreignArtistId: mbid(5) })
    }),
  )

  it.effect("an approve during the reconciler's add waits for it and answers its outcome, sending no second add", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* Effect.promise(() => lidarr.stop())
      const request = yield* bob.client.requests.create({ payload: { kind: "artist", mbid: mbid(11), name: "Eleven" } })
      const first = yield* admin.client.adminRequests.approve({ path: { id: request.id } })
      expect(first.manager_add_confirmed_at).toBeNull()
      yield* Effect.promise(() => lidarr.start())
      const addsBefore = lidarr.hits("/api/v1/artist").length
      // The reconciler's add in flight: it holds the request's row until the manager answers, then confirms.
      const locked = yield* Effect.makeLatch(false)
      const reconciler = yield* Effect.fork(
        Effect.gen(function* () {
          yield* sql`SELECT id FROM acquisition_requests WHERE id = ${request.id} FOR UPDATE`
          yield* locked.open
          yield* Effect.sleep("400 millis")
          yield* sql`UPDATE acquisition_requests SET manager_add_confirmed_at = now() WHERE id = ${request.id}`
        }).pipe(sql.withTransaction),
      )
      yield* locked.await
      const again = yield* admin.client.adminRequests.approve({ path: { id: request.id } })
      yield* Effect.fromFiber(reconciler)
      expect(again.manager_add_confirmed_at).not.toBeNull()
      expect(lidarr.hits("/api/v1/artist").length).toBe(addsBefore)
    }),
  )

  it.effect("an album request is added through the manager's album lookup", () =>
    Effect.gen(function* () {
      const request = yield* bob.client.requests.create({ payload: { kind: "album", mbid: mbid(6), name: "Six" } })
      const approved = yield* admin.client.adminRequests.approve({ path: { id: request.id } })
      expect(approved.manager_add_confirmed_at).not.toBeNull()
      const add = JSON.parse(lidarr.hits("/api/v1/album").at(-1)!.body) as Record<string, unknown>
      expect(add).toMatchObject({
        foreignAlbumId: mbid(6),
        monitored: true,
        artist: { qualityProfileId: 4, metadataProfileId: 2, rootFolderPath: "/music" },
      })
    }),
  )

  it.effect(
    "reject: rejected with the reason and an event; 404 unknown; a decided request cannot be approved (409)",
    () =>
      Effect.gen(function* () {
        const request = yield* bob.client.requests.create({ payload: { kind: "artist", mbid: mbid(7), name: "Seven" } })
        const events = yield* openSse(yield* serverUrl, bob.token)
        yield* events.waitFor((frame) => frame.text === "connected")
        const rejected = yield* admin.client.adminRequests.reject({
          path: { id: request.id },
          payload: { reason: "not on this server" },
        })
        expect(rejected).toMatchObject({ status: "rejected", reason: "not on this server", decided_by: admin.user.id })
        const [event] = yield* events.waitFor(statusChangedTo("rejected"))
        expect(event!.data).toMatchObject({ data: { request_id: request.id, status: "rejected" } })
        const approveRejected = yield* raw("POST", `/api/admin/requests/${request.id}/approve`, { token: admin.token })
        expect(approveRejected.status).toBe(409)
        expect(approveRejected.json).toMatchObject({ error: { code: "conflict" } })
        const unknown = yield* rawJson("POST", `/api/admin/requests/${mbid(88)}/reject`, {}, admin.token)
        expect(unknown.status).toBe(404)
      }).pipe(Effect.scoped),
  )

  it.effect("auto-approve: created approved, with a second request.status_changed after the first", () =>
    Effect.gen(function* () {
      yield* admin.client.manager.set({ payload: { auto_approve: true } })
      const events = yield* openSse(yield* serverUrl, carol.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      const request = yield* carol.client.requests.create({ payload: { kind: "artist", mbid: mbid(8), name: "Eight" } })
      expect(request.status).toBe("approved")
      expect(request.decided_by).toBeNull()
      expect(request.manager_add_confirmed_at).not.toBeNull()
      const frames = yield* events.waitFor((frame) => frame.event === "request.status_changed", 2)
      expect(frames.map((frame) => (frame.data as { data: { status: string } }).data.status)).toEqual([
        "pending",
        "approved",
      ])
      yield* admin.client.manager.set({ payload: { auto_approve: false } })
    }).pipe(Effect.scoped),
  )

  it.effect("an approved request becomes available when a scan finds its artist", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const [artist] = yield* sql<{ mbid: string; name: string }>`
        SELECT mbid, name FROM artists WHERE mbid IS NOT NULL ORDER BY name LIMIT 1`
      const request = yield* bob.client.requests.create({
        payload: { kind: "artist", mbid: Mbid.make(artist!.mbid), name: artist!.name },
      })
      const events = yield* openSse(yield* serverUrl, bob.token)
      yield* events.waitFor((frame) => frame.text === "connected")
      yield* admin.client.adminRequests.approve({ path: { id: request.id } })
      const frames = yield* events.waitFor(
        (frame) =>
          frame.event === "request.status_changed" &&
          (frame.data as { data: { status: string } }).data.status === "available",
        1,
        10_000,
      )
      expect(frames).toHaveLength(1)
      const [row] = (yield* bob.client.requests.list()).filter((candidate) => candidate.id === request.id)
      expect(row!.status).toBe("available")
      // Available is terminal: the MBID can be requested again.
      const again = yield* bob.client.requests.create({
        payload: { kind: "artist", mbid: Mbid.make(artist!.mbid), name: artist!.name },
      })
      expect(again.id).not.toBe(request.id)
    }).pipe(Effect.scoped),
  )

  it.effect(
    "replica-safe: with two replicas reconciling, an unconfirmed add is sent once when the manager returns",
    () =>
      Effect.gen(function* () {
        yield* secondReplica({
          libraryDir: root,
          enrichment: { ...ENRICHMENT_DEFAULTS, reconcileMs: 100, managerTimeoutMs: 2000, pollMs: 100 },
        })
        yield* Effect.promise(() => lidarr.stop())
        const request = yield* bob.client.requests.create({ payload: { kind: "artist", mbid: mbid(9), name: "Nine" } })
        expect(
          (yield* admin.client.adminRequests.approve({ path: { id: request.id } })).manager_add_confirmed_at,
        ).toBeNull()
        yield* Effect.sleep("300 millis")
        // A slow manager: each add takes 400 ms, so both replicas' ticks overlap it.
        lidarr.on(
          "POST",
          "/api/v1/artist",
          (add) => new Promise((resolve) => setTimeout(() => resolve(addArtist(add)), 400)),
        )
        yield* Effect.promise(() => lidarr.start())
        yield* eventually(
          Effect.map(confirmedAt(request.id), (at) => at !== null),
          "the confirmation",
        )
        yield* Effect.sleep("600 millis")
        const sent = lidarr
          .hits("/api/v1/artist")
          .filter((hit) => (JSON.parse(hit.body) as { foreignArtistId: string }).foreignArtistId === mbid(9))
        expect(sent).toHaveLength(1)
      }).pipe(Effect.scoped),
  )
})
