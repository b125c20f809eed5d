import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { UserId, xmlElement } from "@tonearm/core"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { logIn, signUpFirstAdmin } from "../support/accounts.js"
import { scanNow } from "../support/library.js"
import { raw } from "../support/raw.js"
import { TestServerLive } from "../support/TestServer.js"
import { makeLongTrack, soapFault, soapOk, startFakeRenderer } from "./renderers.js"

/** The error paths of casting, against fake renderers on loopback: deadlines, faults, escaping, diagnostics. */

const TITLE = `Tom & Jerry <Live> "Encore" it's ]]>`
const library = fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-cast-fake-"))
makeLongTrack(path.join(library, "Fake/Album/01 Odd.mp3"), { title: TITLE, artist: "A & B", album: "<Album>" }, 2)

const slow = await startFakeRenderer("Slow Speaker")
const faulty = await startFakeRenderer("Faulty Speaker")
const flaky = await startFakeRenderer("Flaky Speaker")
const TIMEOUT_MS = 600
afterAll(async () => {
  await Promise.all([slow.server.stop(), faulty.server.stop(), flaky.server.stop()])
})

const trackId = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ id: string }>`SELECT id FROM tracks LIMIT 1`, (rows) => rows[0]!.id),
)
const logInAdmin = Effect.suspend(() => logIn("admin"))
const codeOf = (json: unknown) => (json as { error: { code: string; message: string } }).error

layer(
  TestServerLive({
    libraryDir: library,
    cast: {
      rendererUrls: [slow.descriptionUrl, faulty.descriptionUrl, flaky.descriptionUrl],
      discovery: false,
      timeoutMs: TIMEOUT_MS,
    },
  }),
  { excludeTestServices: true, timeout: "90 seconds" },
)("casting: renderer failures", (it) => {
  it.effect("a renderer that does not answer in time is 502 renderer_unreachable, within the deadline", () =>
    Effect.gen(function* () {
      const admin = yield* signUpFirstAdmin("admin")
      yield* scanNow()
      const listed = yield* raw("GET", "/api/cast/renderers", { token: admin.token })
      expect((listed.json as { items: Array<{ name: string }> }).items.map((item) => item.name)).toEqual([
        "Faulty Speaker",
        "Flaky Speaker",
        "Slow Speaker",
      ])
      slow.answer("GetTransportInfo", () => new Promise((resolve) => setTimeout(() => resolve({ body: "" }), 5_000)))
      const started = Date.now()
      const response = yield* raw("GET", `/api/cast/renderers/${slow.uuid}/status`, { token: admin.token })
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1_500)
      expect(response.status).toBe(502)
      expect(codeOf(response.json).code).toBe("renderer_unreachable")
      expect(codeOf(response.json).message).toContain(`within ${TIMEOUT_MS} ms`)
    }),
  )

  it.effect("a SOAP fault is 502 renderer_error with the UPnP error code", () =>
    Effect.gen(function* () {
      const token = (yield* logInAdmin).token
      faulty.answer("SetAVTransportURI", () => ({ status: 500, body: soapFault(714, "Illegal MIME-type") }))
      const response = yield* raw("POST", `/api/cast/renderers/${faulty.uuid}/play`, {
        token,
        body: JSON.stringify({ track_id: yield* trackId }),
      })
      expect(response.status).toBe(502)
      expect(codeOf(response.json)).toEqual({
        code: "renderer_error",
        message: "the speaker refused SetAVTransportURI: UPnP error 714 Illegal MIME-type",
      })
    }),
  )

  it.effect("a speaker that closes the connection instead of answering is asked once more, on a new connection", () =>
    Effect.gen(function* () {
      const token = (yield* logInAdmin).token
      // gmediarender's libupnp closes a kept-alive connection just as it is reused ("other side closed").
      let dropped = 0
      faulty.answer("GetTransportInfo", () => {
        if (dropped++ === 0) return { hangUp: true }
        return { body: soapOk("GetTransportInfo", "AVTransport", { CurrentTransportState: "PAUSED_PLAYBACK" }) }
      })
      const before = faulty.calls("GetTransportInfo").length
      const response = yield* raw("GET", `/api/cast/renderers/${faulty.uuid}/status`, { token })
      expect(response.status, response.text).toBe(200)
      expect(response.json).toMatchObject({ state: "PAUSED_PLAYBACK" })
      expect(faulty.calls("GetTransportInfo").length - before).toBe(2)
      // Dropped every time: unreachable, one line, still within the deadline.
      faulty.answer("GetTransportInfo", () => ({ hangUp: true }))
      const gone = yield* raw("GET", `/api/cast/renderers/${faulty.uuid}/status`, { token })
      expect(gone.status).toBe(502)
      expect(codeOf(gone.json).code).toBe("renderer_unreachable")
    }),
  )

  it.effect("titles with & < > quotes travel escaped: DIDL-Lite inside SOAP reads back exactly", () =>
    Effect.gen(function* () {
      const token = (yield* logInAdmin).token
      const id = yield* trackId
      const response = yield* raw("POST", `/api/cast/renderers/${flaky.uuid}/play`, {
        token,
        // A URL in the body is never used: only a known renderer's own control URL is called.
        body: JSON.stringify({ track_id: id, url: "http://169.254.169.254/" }),
      })
      expect(response.status, response.text).toBe(200)
      const body = flaky.calls("SetAVTransportURI").at(-1)!.body
      expect(body).not.toContain("<Live>")
      const didl = xmlElement(body, "CurrentURIMetaData")!
      expect(xmlElement(didl, "title")).toBe(TITLE)
      expect(xmlElement(didl, "artist")).toBe("A & B")
      expect(xmlElement(didl, "album")).toBe("<Album>")
      const uri = xmlElement(body, "CurrentURI")!
      expect(uri).toMatch(new RegExp(`/api/tracks/${id}/stream\\.mp3\\?exp=\\d+&token=[\\w-]{43}$`))
      expect(xmlElement(didl, "res")).toBe(uri)
      expect(didl).toContain('protocolInfo="http-get:*:audio/mpeg:*"')
      expect(flaky.calls("Play")).toHaveLength(1)
    }),
  )

  it.effect("upnp_sync diagnostics: a drop mid-track, a drop when unreachable, a resync when it answers again", () =>
    Effect.gen(function* () {
      const admin = yield* logInAdmin
      yield* admin.client.adminUsers.setDebugMode({
        path: { id: UserId.make(admin.user.id) },
        payload: { enabled: true },
      })
      const id = yield* trackId
      const uri = xmlElement(flaky.calls("SetAVTransportURI").at(-1)!.body, "CurrentURI")!
      const status = () => raw("GET", `/api/cast/renderers/${flaky.uuid}/status`, { token: admin.token })
      flaky.answer("GetPositionInfo", () => ({
        body: soapOk("GetPositionInfo", "AVTransport", {
          TrackURI: uri.replace(/&/g, "&amp;"),
          TrackDuration: "0:01:00",
          RelTime: "0:00:10",
        }),
      }))
      const playing = yield* status()
      expect(playing.json).toMatchObject({ state: "PLAYING", track_id: id, position_ms: 10_000, volume: 40 })
      // The speaker stops by itself 10 s into a 60 s track: a drop.
      flaky.answer("GetTransportInfo", () => ({
        body: soapOk("GetTransportInfo", "AVTransport", { CurrentTransportState: "STOPPED" }),
      }))
      expect((yield* status()).json).toMatchObject({ state: "STOPPED" })
      // Then it is gone, then back.
      yield* Effect.promise(() => flaky.server.stop())
      const gone = yield* status()
      expect(gone.status).toBe(502)
      expect(codeOf(gone.json).code).toBe("renderer_unreachable")
      yield* Effect.promise(() => flaky.server.start())
      expect((yield* status()).status).toBe(200)
      const events = yield* admin.client.adminDiagnostics.timeline({ urlParams: { kind: "upnp_sync" } })
      expect(events.items.map((event) => [event.device_id, event.data])).toEqual([
        [
          `upnp:${flaky.uuid}`,
          expect.objectContaining({ event: "drop", reason: "stopped_mid_track", track_id: id, position_ms: 10_000 }),
        ],
        [`upnp:${flaky.uuid}`, expect.objectContaining({ event: "drop", reason: "unreachable", track_id: id })],
        [`upnp:${flaky.uuid}`, expect.objectContaining({ event: "resync", reason: "answering_again" })],
      ])
    }),
  )

  it.effect("without debug mode nothing is recorded; unknown renderer ids are 404 on every route", () =>
    Effect.gen(function* () {
      const admin = yield* logInAdmin
      yield* admin.client.adminUsers.setDebugMode({
        path: { id: UserId.make(admin.user.id) },
        payload: { enabled: false },
      })
      const before = (yield* admin.client.adminDiagnostics.timeline({ urlParams: { kind: "upnp_sync" } })).items.length
      yield* Effect.promise(() => flaky.server.stop())
      expect((yield* raw("GET", `/api/cast/renderers/${flaky.uuid}/status`, { token: admin.token })).status).toBe(502)
      yield* Effect.promise(() => flaky.server.start())
      const after = (yield* admin.client.adminDiagnostics.timeline({ urlParams: { kind: "upnp_sync" } })).items.length
      expect(after).toBe(before)
      for (const [method, route, body] of [
        ["GET", "status", undefined],
        ["POST", "pause", undefined],
        ["POST", "resume", undefined],
        ["POST", "stop", undefined],
        ["POST", "seek", { position_ms: 0 }],
        ["POST", "volume", { volume: 10 }],
      ] as const) {
        const response = yield* raw(method, `/api/cast/renderers/${"f".repeat(8)}/${route}`, {
          token: admin.token,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
        expect(response.status, route).toBe(404)
      }
    }),
  )
})
